//go:build unix

package fakeserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/rest"
)

// BenchmarkNewTestInterleaved is BenchmarkNewTestAndGetMe against BenchmarkHTTPTestServerAndGet
// (GetMe), and BenchmarkNewAndClose against BenchmarkHTTPTestServerNewAndClose (NewAndClose),
// made robust to a busy machine: the fake and the httptest server alternate in rounds of 20, so
// that both see the same load, and each one's wall time and CPU time (the process's user and
// system time) are reported per iteration, with the fake's cost as a multiple of the
// baseline's (fake-x, cpu-x).
func BenchmarkNewTestInterleaved(b *testing.B) {
	body := []byte(`{"workspace":{"type":"personal","id":"x","name":"Demo"},"key":null}`)
	get := func(b *testing.B, c *http.Client, url, key string) {
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
	start := func(b *testing.B) *Server {
		srv, err := New(WithManualClock(TestStart()))
		if err != nil {
			b.Fatal(err)
		}
		return srv
	}
	stop := func(b *testing.B, srv *Server) {
		if err := srv.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("GetMe", func(b *testing.B) {
		interleave(b, [2]func(*testing.B){
			func(b *testing.B) {
				srv := start(b)
				seed, err := srv.SeedDemo()
				if err != nil {
					b.Fatal(err)
				}
				get(b, srv.Client(), srv.URL()+rest.Base+"/me", seed.APIKey)
				stop(b, srv)
			},
			func(b *testing.B) {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write(body)
				}))
				get(b, srv.Client(), srv.URL+rest.Base+"/me", "")
				srv.Close()
			},
		})
	})
	b.Run("NewAndClose", func(b *testing.B) {
		interleave(b, [2]func(*testing.B){
			func(b *testing.B) { stop(b, start(b)) },
			func(*testing.B) { httptest.NewServer(http.NotFoundHandler()).Close() },
		})
	})
}

// interleave runs runs[0] (the fake) and runs[1] (the baseline) b.N times each, in alternating
// rounds, and reports their wall and CPU time per iteration.
func interleave(b *testing.B, runs [2]func(*testing.B)) {
	// The process's first fake builds what every fake shares; it is not a test's cost.
	runs[0](b)
	runs[1](b)
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
				run(b)
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
