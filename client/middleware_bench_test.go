package client

import (
	"net/http"
	"testing"
)

// BenchmarkUnusedMiddleware is what the middleware hook costs a client that has none, per
// attempt: compare with BenchmarkGetReport, the whole call.
func BenchmarkUnusedMiddleware(b *testing.B) {
	c, err := New(testKey)
	if err != nil {
		b.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1/api/rest/v1/me", nil)
	if err != nil {
		b.Fatal(err)
	}
	st := &call{c: c}
	b.ReportAllocs()
	for b.Loop() {
		if r, hc := c.withMiddleware(req, st); r != req || hc != c.http {
			b.Fatal("a client without middleware changed its request or HTTP client")
		}
	}
}
