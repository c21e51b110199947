package graphqlclientproof_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/graphqlclient"
)

// Connect to a fake of the service and ask who the key acts as. Against the real service, omit
// WithBaseURL and WithHTTPClient.
func Example() {
	srv, err := fakeserver.New(fakeserver.WithManualClock(fakeserver.TestStart()))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	seed, _ := srv.SeedDemo()

	rest, err := client.New(seed.APIKey, client.WithBaseURL(srv.URL()), client.WithHTTPClient(srv.Client()))
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := graphqlclient.New(rest)
	if err != nil {
		fmt.Println(err)
		return
	}
	me, err := c.Me(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(me.Key.Owner.Type, me.Key.Owner.ID == seed.WorkspaceID, len(me.Organisations))
	// Output: UserType true 0
}

// An organisation key reads its organisation: the client learns the organisation id from
// currentApiKey.owner once and passes it as organisationId.
func ExampleNew_organisationKey() {
	srv, _ := fakeserver.New(fakeserver.WithManualClock(fakeserver.TestStart()), fakeserver.WithAnalysisPace(0))
	defer srv.Close()
	org, _ := srv.CreateWorkspace(fakeserver.WorkspaceSpec{Type: "organisation", Name: "Acme"})
	key, _ := srv.CreateAPIKey(org.ID, "integration")
	feed, _ := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "Acme Weekly", Episodes: []fakeserver.HostedEpisode{{Title: "Pilot", Duration: 1 * time.Second}}})
	rest, _ := client.New(key.Key, client.WithBaseURL(srv.URL()), client.WithHTTPClient(srv.Client()))
	if _, err := rest.CreateReportFromFeed(context.Background(), feed.FeedURL, client.CreateReportParams{}); err != nil {
		fmt.Println(err)
		return
	}

	c, _ := graphqlclient.New(rest)
	shows, err := c.ListSeries(context.Background(), graphqlclient.ListParams{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range shows {
		fmt.Println(s.Title, s.Kind)
	}
	// Output: Acme Weekly PODCAST
}

// Wait for the newest report of a show with the GraphQL polling recipe. The REST client runs on
// the fake's clock (client.WithClock), so the waits move the fake's time and take no wall time.
func ExampleClient_WaitForLatestReport() {
	srv, _ := fakeserver.New(fakeserver.WithManualClock(fakeserver.TestStart()))
	defer srv.Close()
	seed, _ := srv.SeedDemo()
	feed, _ := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "Daily", Episodes: []fakeserver.HostedEpisode{{Title: "Monday", Duration: 2 * time.Second}}})
	rest, _ := client.New(seed.APIKey, client.WithBaseURL(srv.URL()), client.WithHTTPClient(srv.Client()),
		client.WithClock(srv.Clock()))
	ctx := context.Background()
	created, err := rest.CreateReportFromFeed(ctx, feed.FeedURL, client.CreateReportParams{})
	if err != nil {
		fmt.Println(err)
		return
	}
	report, _ := rest.GetReport(ctx, created.ID)

	c, _ := graphqlclient.New(rest)
	done, err := c.WaitForLatestReport(ctx, report.Series.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	loudness, _ := done.Result("loudness_lufs")
	fmt.Println(done.Status, done.Passed(), loudness.Status, done.Stats.RequiredFailures)
	// Output: COMPLETE true PASS 0
}

// Branch on GraphQL errors with errors.Is and the client package's sentinels; errors.As gives
// the entries.
func ExampleError() {
	srv, _ := fakeserver.New(fakeserver.WithManualClock(fakeserver.TestStart()))
	defer srv.Close()
	seed, _ := srv.SeedDemo()
	rest, _ := client.New(seed.APIKey, client.WithBaseURL(srv.URL()), client.WithHTTPClient(srv.Client()))
	c, _ := graphqlclient.New(rest)

	_, err := c.GetReport(context.Background(), "3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e")
	var gerr *graphqlclient.Error
	switch {
	case errors.Is(err, client.ErrNotFound) && errors.As(err, &gerr):
		fmt.Println("no such report:", gerr.Errors[0].Code)
	case err != nil:
		fmt.Println("failed:", err)
	}
	// Output: no such report: not_found
}
