package graphqlclientproof_test

import (
	"context"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/fakeserver/clienttest"
	"github.com/podqa/podqa-go/graphqlclient"
)

// BenchmarkGetReport reads a finished report over GraphQL from the fake, decoding every
// JSON-string field: the cost of one poll of a report's current verdict.
func BenchmarkGetReport(b *testing.B) {
	srv, seed := fakeserver.NewTest(b, fakeserver.WithoutRateLimits())
	feed, err := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "Bench", Episodes: []fakeserver.HostedEpisode{{Title: "one", Duration: 2 * time.Second}}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rest := clienttest.NewClient(b, srv, seed.APIKey)
	created, err := rest.CreateReportFromFeed(ctx, feed.FeedURL, client.CreateReportParams{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := srv.Advance(time.Minute); err != nil {
		b.Fatal(err)
	}
	c, err := graphqlclient.New(rest)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		r, err := c.GetReport(ctx, created.ID)
		if err != nil || r.Stats == nil {
			b.Fatalf("%+v, %v", r, err)
		}
	}
}
