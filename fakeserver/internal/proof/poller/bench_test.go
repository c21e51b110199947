package pollerproof_test

import (
	"context"
	"testing"

	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/fakeserver/clienttest"
	"github.com/podqa/podqa-go/poller"
)

// BenchmarkPollOnce measures a poll that reads 1,000 completed reports (ten pages) from a
// fake over loopback and hands each to a handler.
func BenchmarkPollOnce(b *testing.B) {
	srv, seed := fakeserver.NewTest(b, fakeserver.WithoutRateLimits())
	if _, err := srv.SeedReports(seed.WorkspaceID, make([]fakeserver.SeededReport, 1000)); err != nil {
		b.Fatal(err)
	}
	c := clienttest.NewClient(b, srv, seed.APIKey)
	handle := func(context.Context, poller.Completion) error { return nil }
	start := fakeserver.TestStart().Add(-1)
	b.ReportAllocs()
	for b.Loop() {
		p, err := poller.New(c, poller.NewMemoryStore(), poller.WithStartTime(start))
		if err != nil {
			b.Fatal(err)
		}
		res, err := p.PollOnce(b.Context(), handle)
		if err != nil || res.Delivered != 1000 {
			b.Fatalf("%+v, %v", res, err)
		}
	}
}
