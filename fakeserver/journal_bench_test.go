package fakeserver

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
)

// journalOnOff are the two cases of the journal benchmarks.
var journalOnOff = []struct {
	name string
	size int
}{{"journal=on", DefaultJournalSize}, {"journal=off", 0}}

// BenchmarkGetCompletedReport16ClientsJournal is BenchmarkGetCompletedReport16Clients with the
// request journal on (the default) and off, in one run, to show what the journal costs.
func BenchmarkGetCompletedReport16ClientsJournal(b *testing.B) {
	for _, bc := range journalOnOff {
		b.Run(bc.name, func(b *testing.B) {
			srv, key, path := completedReport(b, WithoutRateLimits(), WithJournalSize(bc.size))
			transport := &http.Transport{MaxIdleConnsPerHost: 64}
			b.Cleanup(transport.CloseIdleConnections)
			getParallel(b, &http.Client{Transport: transport}, srv.URL()+path, key)
		})
	}
}

// BenchmarkGetCompletedReportHandlerJournal is the same request served in process (the fake's
// handler, no sockets), with the journal on and off: the journal's own cost without the
// network's noise.
func BenchmarkGetCompletedReportHandlerJournal(b *testing.B) {
	for _, bc := range journalOnOff {
		b.Run(bc.name, func(b *testing.B) {
			srv, key, path := completedReport(b, WithoutRateLimits(), WithJournalSize(bc.size))
			h := srv.Handler()
			b.ReportAllocs()
			b.SetParallelism(16 / runtime.GOMAXPROCS(0))
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
		})
	}
}
