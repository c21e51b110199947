package fakeserver

import (
	"net/http"
	"testing"
)

func TestHealthzNeedsNoToken(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	for _, h := range []http.Header{nil, bearer("wrong"), admin(srv)} {
		status, header, body := call(t, srv, "GET", "/_fake/healthz", h, "")
		if status != http.StatusOK || string(body) != "ok" || header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Fatalf("healthz with %v: %d %q %q", h, status, header.Get("Content-Type"), body)
		}
	}
	// Only GET: the other control calls still need the token.
	if status, _, _ := call(t, srv, "POST", "/_fake/healthz", nil, ""); status != http.StatusUnauthorized {
		t.Fatalf("POST healthz without token: %d", status)
	}
}
