package fakeserver_test

import (
	"context"
	"fmt"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
)

// A fake on a manual clock, a feed it hosts with audio synthesised to measure as asked, a report
// created with the REST client, and the clock moved past the analysis instead of sleeping.
// In a test, fakeserver.NewTest(t) does the first three steps and closes the fake at the end.
func Example() {
	srv, err := fakeserver.New(fakeserver.WithManualClock(fakeserver.TestStart()))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	seed, _ := srv.SeedDemo()
	c, _ := client.New(seed.APIKey, client.WithBaseURL(srv.URL()), client.WithHTTPClient(srv.Client()))

	quiet := -30.0
	feed, _ := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "My Show", Episodes: []fakeserver.HostedEpisode{
		{Title: "Too quiet", Duration: 4 * time.Second, LoudnessLUFS: &quiet},
	}})
	ctx := context.Background()
	created, err := c.CreateReportFromFeed(ctx, feed.FeedURL, client.CreateReportParams{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := srv.Advance(10 * time.Minute); err != nil {
		fmt.Println(err)
		return
	}
	report, _ := c.GetReport(ctx, created.ID)
	loudness, _ := report.Result("loudness_lufs")
	value, _ := loudness.Float()
	fmt.Println(report.Status, "passed:", report.Passed())
	fmt.Printf("%s %s: %.1f %s, limit %s\n", loudness.Name, loudness.Status, value, loudness.MeasurementUnit, loudness.Limit)
	// Output:
	// COMPLETE passed: false
	// loudness_lufs FAIL: -30.0 LUFS, limit between −17 and −15 LUFS
}

// Faults make the service's rare failures happen on demand: here the front answers 503 twice,
// and the client's retries ride it out.
func ExampleServer_InjectFault() {
	srv, _ := fakeserver.New(fakeserver.WithManualClock(fakeserver.TestStart()))
	defer srv.Close()
	seed, _ := srv.SeedDemo()
	c, _ := client.New(seed.APIKey, client.WithBaseURL(srv.URL()), client.WithHTTPClient(srv.Client()),
		client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))

	if _, err := srv.InjectFault(fakeserver.Fault{Method: "GET", PathPrefix: "/api/rest/v1/me", Status: 503, Count: 2}); err != nil {
		fmt.Println(err)
		return
	}
	me, err := c.Me(context.Background())
	fmt.Println(me.Workspace.Name, err)
	// Output: Demo <nil>
}
