package httpmw

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

// TestSecurityHeadersValueIsNotSharedMutably holds SecurityHeaders' shared value slice safe: a
// handler that adds to, or sets, the header on one answer leaves the next answer's as it was.
func TestSecurityHeadersValueIsNotSharedMutably(t *testing.T) {
	t.Parallel()
	calls := 0
	h := SecurityHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		switch calls {
		case 1:
			w.Header().Add("X-Content-Type-Options", "added")
		case 2:
			w.Header().Set("X-Content-Type-Options", "replaced")
		}
	}))
	wants := [][]string{{"nosniff", "added"}, {"replaced"}, {"nosniff"}}
	for i, want := range wants {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		if got := rec.Result().Header.Values("X-Content-Type-Options"); !slices.Equal(got, want) {
			t.Errorf("answer %d: X-Content-Type-Options %q, want %q", i+1, got, want)
		}
	}
}
