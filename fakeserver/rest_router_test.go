package fakeserver

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

// restMarker stands for the REST API's row in a copy of the route table, so that a test can
// tell which handler the table picks.
type restMarker struct{}

func (restMarker) ServeHTTP(http.ResponseWriter, *http.Request) {}

// shortcutAndTable is the fake's REST shortcut and its route table, with the REST row served
// by restMarker.
func shortcutAndTable(t testing.TB) (*restShortcut, *http.ServeMux) {
	t.Helper()
	srv, err := New(WithManualClock(TestStart()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	table := http.NewServeMux()
	for _, r := range srv.routeRows() {
		h := r.handler
		if r.pattern == restBase+"/" {
			h = restMarker{}
		}
		table.Handle(r.pattern, h)
	}
	return newRESTShortcut(restMarker{}, table), table
}

// agrees fails t when the shortcut takes r but the table would not give it to the REST API.
func agrees(t testing.TB, c *restShortcut, table *http.ServeMux, r *http.Request) bool {
	t.Helper()
	if !c.takes(r) {
		return false
	}
	if h, pattern := table.Handler(r); h != (restMarker{}) {
		t.Errorf("%s %q: the shortcut takes it, the table gives it to %q (%T)", r.Method, r.URL.EscapedPath(), pattern, h)
	}
	return true
}

func TestRESTShortcutAgreesWithTheTable(t *testing.T) {
	t.Parallel()
	c, table := shortcutAndTable(t)
	const id = "8c5f3b7e-1111-4222-8333-444455556666"
	tests := []struct {
		method, target string
		takes          bool
	}{
		{"GET", restBase + "/reports/" + id, true},
		{"HEAD", restBase + "/reports/" + id, true},
		{"GET", restBase + "/reports/" + id + "/transcript", true},
		{"GET", restBase + "/reports?limit=5", true},
		{"POST", restBase + "/reports", true},
		{"DELETE", restBase + "/reports/" + id, true},
		{"GET", restBase + "/me", true},
		{"GET", restBase + "/credits", true},
		{"GET", restBase + "/series/x/episodes", true},
		{"POST", restBase + "/uploads", true},
		{"GET", restBase + "/reports/", true},
		// The table's own routes under restBase, and what it redirects or does not clean.
		{"GET", restBase + "/openapi.json", false},
		{"POST", restBase + "/openapi.json", false},
		{"GET", restBase + "/docs", false},
		{"GET", restBase + "/docs/assets/x.js", false},
		{"GET", restBase + "//reports", false},
		{"GET", restBase + "/reports//" + id, false},
		{"GET", restBase + "/reports/../me", false},
		{"GET", restBase + "/./me", false},
		{"GET", restBase + "/reports/.", false},
		{"GET", restBase + "/%72eports", false},
		{"GET", restBase + "/unknown", false},
		{"GET", restBase + "/", false},
		{"GET", restBase, false},
		{"GET", "/api/rest/v2/reports", false},
		{"GET", "/_fake/clock", false},
		{"CONNECT", restBase + "/reports", false},
	}
	for _, tt := range tests {
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(tt.method + " " + tt.target + " HTTP/1.1\r\nHost: fake\r\n\r\n")))
		if err != nil {
			t.Fatalf("%s %s: %v", tt.method, tt.target, err)
		}
		if got := agrees(t, c, table, r); got != tt.takes {
			t.Errorf("%s %s: shortcut takes it %v, want %v", tt.method, tt.target, got, tt.takes)
		}
	}
}

func FuzzRESTShortcutAgreesWithTheTable(f *testing.F) {
	for _, seed := range [][2]string{
		{"GET", restBase + "/reports/8c5f3b7e-1111-4222-8333-444455556666"},
		{"POST", restBase + "/reports/../openapi.json"},
		{"GET", restBase + "/docs/assets/"},
		{"PUT", restBase + "/series/%2F/episodes/"},
		{"CONNECT", restBase + "/me"},
	} {
		f.Add(seed[0], seed[1])
	}
	c, table := shortcutAndTable(f)
	f.Fuzz(func(t *testing.T, method, target string) {
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(method + " " + target + " HTTP/1.1\r\nHost: fake\r\n\r\n")))
		if err != nil {
			return
		}
		agrees(t, c, table, r)
	})
}
