package fakeserver

import (
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
			getOverLoopback(b, srv, key, path)
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
			serveInProcess(b, srv, key, path)
		})
	}
}
