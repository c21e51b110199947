//go:build unix

package fakeserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"
)

// BenchmarkNewTestInterleaved is BenchmarkNewTestAndGetMe against BenchmarkHTTPTestServerAndGet
// made robust to a busy machine: the two alternate in rounds of 20, so that both see the same
// load, and each one's wall time and CPU time (the process's user and system time) are
// reported per iteration, with the fake's cost as a multiple of the baseline's (fake-x, cpu-x).
func BenchmarkNewTestInterleaved(b *testing.B) {
	body := []byte(`{"workspace":{"type":"personal","id":"x","name":"Demo"},"key":null}`)
	get := func(c *http.Client, url, key string) {
		req, _ := http.NewRequest("GET", url, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := c.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatal(err, resp)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	runs := [2]func(){
		func() {
			srv, err := New(WithManualClock(TestStart()))
			if err != nil {
				b.Fatal(err)
			}
			seed, err := srv.SeedDemo()
			if err != nil {
				b.Fatal(err)
			}
			get(srv.Client(), srv.URL()+restBase+"/me", seed.APIKey)
			if err := srv.Close(); err != nil {
				b.Fatal(err)
			}
		},
		func() {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(body)
			}))
			get(srv.Client(), srv.URL+restBase+"/me", "")
			srv.Close()
		},
	}
	// The process's first fake builds what every fake shares; it is not a test's cost.
	runs[0]()
	runs[1]()
	const round = 20
	b.ReportAllocs()
	runtime.GC()
	b.ResetTimer()
	var cpu, wall [2]time.Duration
	for done := 0; done < b.N; done += round {
		n := min(round, b.N-done)
		for i, run := range runs {
			c0, w0 := processCPU(b), time.Now()
			for range n {
				run()
			}
			cpu[i] += processCPU(b) - c0
			wall[i] += time.Since(w0)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(wall[0])/float64(b.N), "fake-ns/op")
	b.ReportMetric(float64(wall[1])/float64(b.N), "httptest-ns/op")
	b.ReportMetric(float64(cpu[0])/float64(b.N), "fake-cpu-ns/op")
	b.ReportMetric(float64(cpu[1])/float64(b.N), "httptest-cpu-ns/op")
	b.ReportMetric(float64(wall[0])/float64(wall[1]), "fake-x")
	b.ReportMetric(float64(cpu[0])/float64(cpu[1]), "cpu-x")
}
