package httpmw

import (
	"net/http/httptest"
	"testing"
)

// TestCallFault: a call names the fault marked on it; a request without a call records nothing
// and names none.
func TestCallFault(t *testing.T) {
	t.Parallel()
	r, c := Begin(httptest.NewRequest("GET", "/x", nil))
	if got := CallOf(r.Context()).Fault(); got != "" {
		t.Fatalf("a fresh call names fault %q", got)
	}
	c.MarkFault("f-1")
	if got := CallOf(r.Context()).Fault(); got != "f-1" {
		t.Fatalf("the call names fault %q, want f-1", got)
	}
	bare := httptest.NewRequest("GET", "/x", nil)
	CallOf(bare.Context()).MarkFault("f-2")
	if got := CallOf(bare.Context()).Fault(); got != "" {
		t.Fatalf("a request without a call names fault %q", got)
	}
}
