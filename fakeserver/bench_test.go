package fakeserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkNewTestAndGetMe is a test's fixed cost: a started fake with its seeded workspace,
// one GET /me, and the close. Compare with BenchmarkHTTPTestServerAndGet.
func BenchmarkNewTestAndGetMe(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		srv, err := New(WithManualClock(TestStart()))
		if err != nil {
			b.Fatal(err)
		}
		seed, err := srv.SeedDemo()
		if err != nil {
			b.Fatal(err)
		}
		req, _ := http.NewRequest("GET", srv.URL()+"/api/rest/v1/me", nil)
		req.Header.Set("Authorization", "Bearer "+seed.APIKey)
		resp, err := srv.Client().Do(req)
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(err, resp)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err := srv.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHTTPTestServerAndGet is the baseline: an httptest server and one GET.
func BenchmarkHTTPTestServerAndGet(b *testing.B) {
	b.ReportAllocs()
	body := []byte(`{"workspace":{"type":"personal","id":"x","name":"Demo"},"key":null}`)
	for b.Loop() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		}))
		resp, err := srv.Client().Get(srv.URL + "/api/rest/v1/me")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		srv.Close()
	}
}
