package fakeserver

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkNewAndClose is a fake started and closed, with nothing asked of it. Compare with
// BenchmarkHTTPTestServerNewAndClose. The process's first fake runs before the timing.
func BenchmarkNewAndClose(b *testing.B) {
	b.ReportAllocs()
	one := func() {
		srv, err := New(WithManualClock(TestStart()))
		if err != nil {
			b.Fatal(err)
		}
		if err := srv.Close(); err != nil {
			b.Fatal(err)
		}
	}
	one()
	for b.Loop() {
		one()
	}
}

// BenchmarkHTTPTestServerNewAndClose is the baseline: an httptest server started and closed.
func BenchmarkHTTPTestServerNewAndClose(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close()
	}
}
