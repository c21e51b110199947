package fakeserver

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"
)

// loggers are the cases of the logging benchmarks: no logger (the default), the program's
// default (text at INFO, to a sink), and DEBUG, where every request is a line.
var loggers = []struct {
	name string
	opt  Option
}{
	{"log=none", WithLogger(nil)},
	{"log=info", WithLogger(slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo})))},
	{"log=debug", WithLogger(slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelDebug})))},
}

// BenchmarkGetCompletedReport16ClientsLogging is BenchmarkGetCompletedReport16Clients without a
// logger, with the program's default (INFO) and at DEBUG, in one run: what logging costs.
func BenchmarkGetCompletedReport16ClientsLogging(b *testing.B) {
	for _, bc := range loggers {
		b.Run(bc.name, func(b *testing.B) {
			srv, key, path := completedReport(b, WithoutRateLimits(), bc.opt)
			getOverLoopback(b, srv, key, path)
		})
	}
}

// BenchmarkGetCompletedReportHandlerLogging is the same request in process (no sockets): the
// cost of logging without the network's noise.
func BenchmarkGetCompletedReportHandlerLogging(b *testing.B) {
	for _, bc := range loggers {
		b.Run(bc.name, func(b *testing.B) {
			srv, key, path := completedReport(b, WithoutRateLimits(), bc.opt)
			serveInProcess(b, srv, key, path)
		})
	}
}

// BenchmarkReportsFirstPage is the first page of 50 of a workspace's reports (Reports), newest
// first, unfiltered and by status, with 100 and with 100,000 reports: a page costs what it
// holds, not what the workspace holds.
func BenchmarkReportsFirstPage(b *testing.B) {
	for _, n := range []int{100, 100_000} {
		srv, seed := NewTest(b)
		specs := make([]SeededReport, n)
		for i := range specs {
			if i%2 == 1 {
				specs[i].CompleteAfter = time.Hour // half stay IN_PROGRESS
			}
		}
		if _, err := srv.SeedReports(seed.WorkspaceID, specs); err != nil {
			b.Fatal(err)
		}
		for _, f := range []ReportFilter{{}, {Status: "IN_PROGRESS"}} {
			b.Run(fmt.Sprintf("reports=%d/status=%s", n, f.Status), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					page, err := srv.Reports(seed.WorkspaceID, f)
					if err != nil || len(page.Reports) != DefaultReportPageSize {
						b.Fatal(page, err)
					}
				}
			})
		}
	}
}

// getOverLoopback times 16 clients' GETs of path over loopback, with connections kept alive.
func getOverLoopback(b *testing.B, srv *Server, key, path string) {
	transport := &http.Transport{MaxIdleConnsPerHost: 64}
	b.Cleanup(transport.CloseIdleConnections)
	getParallel(b, &http.Client{Transport: transport}, srv.URL()+path, key)
}

// serveInProcess times GETs of path served by the fake's handler in process (no sockets), 16 at
// a time; the fake's start and its report are not the request's cost.
func serveInProcess(b *testing.B, srv *Server, key, path string) {
	h := srv.Handler()
	b.ReportAllocs()
	b.SetParallelism(16 / runtime.GOMAXPROCS(0))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", path, nil)
			req.Header.Set("Authorization", "Bearer "+key)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("%d %s", rec.Code, rec.Body)
			}
		}
	})
}
