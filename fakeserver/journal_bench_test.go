package fakeserver

import (
	"net/http"
	"testing"
)

// BenchmarkGetCompletedReport16ClientsJournal is BenchmarkGetCompletedReport16Clients with the
// request journal on (the default) and off, in one run, to show what the journal costs.
func BenchmarkGetCompletedReport16ClientsJournal(b *testing.B) {
	for _, bc := range []struct {
		name string
		size int
	}{{"journal=on", DefaultJournalSize}, {"journal=off", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			srv, key, path := completedReport(b, WithoutRateLimits(), WithJournalSize(bc.size))
			transport := &http.Transport{MaxIdleConnsPerHost: 64}
			b.Cleanup(transport.CloseIdleConnections)
			getParallel(b, &http.Client{Transport: transport}, srv.URL()+path, key)
		})
	}
}
