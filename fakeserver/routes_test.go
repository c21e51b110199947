package fakeserver

import (
	"slices"
	"strings"
	"testing"
)

// TestControlRowsMatchTheContract: the route table's control rows and control.openapi.json name
// the same calls, so the table a reader opens first is the whole control API.
func TestControlRowsMatchTheContract(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	var rows []string
	for _, r := range append(srv.controlRows(), srv.publicControlRows()...) {
		rows = append(rows, r.pattern)
	}
	doc, err := controlContract()
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	slices.Sort(rows)
	slices.Sort(documented)
	for _, r := range rows {
		if _, found := slices.BinarySearch(documented, r); !found {
			t.Errorf("route %q is not in control.openapi.json", r)
		}
	}
	for _, d := range documented {
		if _, found := slices.BinarySearch(rows, d); !found {
			t.Errorf("control.openapi.json documents %q, which no row serves", d)
		}
	}
	if len(slices.Compact(slices.Clone(rows))) != len(rows) {
		t.Errorf("a control row is listed twice: %v", rows)
	}
}
