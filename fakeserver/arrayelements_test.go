package fakeserver

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestArrayElements splits arrays as encoding/json does, strings with brackets, commas and
// escapes included.
func TestArrayElements(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{`[]`, `[ ]`, `[1]`, `[{"a":"],\"["},[1,[2]], "x\\", null ,{}]`, ` [ {"a" : [ {} ] } , 2 ] `} {
		var want []json.RawMessage
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		var got []string
		arrayElements([]byte(strings.TrimSpace(doc)), func(el []byte) bool { got = append(got, string(el)); return true })
		if len(got) != len(want) {
			t.Fatalf("%s: %q, want %d elements", doc, got, len(want))
		}
		for i := range got {
			if got[i] != strings.TrimSpace(string(want[i])) {
				t.Errorf("%s: element %d = %q, want %q", doc, i, got[i], want[i])
			}
		}
	}
}
