package clientproof_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
)

// Connect to a fake of the service and check the key with Me, the recommended connection test.
// Against the real service, omit WithBaseURL and WithHTTPClient.
func Example() {
	t0 := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	srv, err := fakeserver.New(fakeserver.WithManualClock(t0))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	seed, _ := srv.SeedDemo()

	c, err := client.New(seed.APIKey, client.WithBaseURL(srv.URL()), client.WithHTTPClient(srv.Client()))
	if err != nil {
		fmt.Println(err)
		return
	}
	me, err := c.Me(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(me.Workspace.Name, me.Workspace.Type)
	// Output: Demo personal
}

// Branch on the error code with errors.Is, never on the message; errors.As gives the details.
func ExampleClient_GetReport_notFound() {
	srv, _ := fakeserver.New(fakeserver.WithManualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)))
	defer srv.Close()
	seed, _ := srv.SeedDemo()
	c, _ := client.New(seed.APIKey, client.WithBaseURL(srv.URL()), client.WithHTTPClient(srv.Client()))

	_, err := c.GetReport(context.Background(), "3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e")
	switch {
	case errors.Is(err, client.ErrNotFound):
		var apiErr *client.APIError
		errors.As(err, &apiErr)
		fmt.Println("no such report:", apiErr.StatusCode, apiErr.Code)
	case errors.Is(err, client.ErrRateLimited):
		fmt.Println("rate limited; retry later")
	case err != nil:
		fmt.Println("failed:", err)
	}
	// Output: no such report: 404 not_found
}

// Read one page of reports, then walk every page with the iterator; the Demo workspace has
// none yet.
func ExampleClient_ListReports() {
	srv, _ := fakeserver.New(fakeserver.WithManualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)))
	defer srv.Close()
	seed, _ := srv.SeedDemo()
	c, _ := client.New(seed.APIKey, client.WithBaseURL(srv.URL()), client.WithHTTPClient(srv.Client()))
	ctx := context.Background()

	page, err := c.ListReports(ctx, client.ListReportsParams{Status: client.StatusComplete, Limit: 20})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d reports (limit %d, offset %d, more: %v)\n", len(page.Items), page.Limit, page.Offset, page.HasMore)

	n := 0
	for r, err := range c.AllReports(ctx, client.ListReportsParams{}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(r.ID, r.Status)
		n++
	}
	fmt.Println("walked", n)
	// Output:
	// 0 reports (limit 20, offset 0, more: false)
	// walked 0
}

// Report on the newest episode of a feed and wait for the verdict. The fake hosts the feed and
// synthesises its audio; with an analysis pace of 0 it finishes at once.
func ExampleClient_WaitForReport() {
	srv, err := fakeserver.New(fakeserver.WithAnalysisPace(0))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	seed, _ := srv.SeedDemo()
	loudness := -16.0
	feed, _ := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "My Show", Episodes: []fakeserver.HostedEpisode{
		{Title: "Pilot", Duration: 4 * time.Second, LoudnessLUFS: &loudness},
	}})
	c, _ := client.New(seed.APIKey, client.WithBaseURL(srv.URL()), client.WithHTTPClient(srv.Client()))

	ctx := context.Background()
	created, err := c.CreateReportFromFeed(ctx, feed.FeedURL, client.CreateReportParams{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// At most a poll a second, so that however long the analysis takes, the polls stay under
	// the 100 requests a minute of the key's rate limit.
	report, err := c.WaitForReport(ctx, created.ID, client.WaitBounds(10*time.Millisecond, time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(report.Status, "passed:", report.Passed())
	for _, r := range report.Results {
		if r.Failed() {
			fmt.Println("failed:", r.Name, r.WarningMessage)
		}
	}
	// Output: COMPLETE passed: true
}

// Upload a local file and create its report in one call; the duration is measured from the
// audio. Here the file is ten seconds of synthesised speech the fake hosts.
func ExampleClient_Upload() {
	srv, err := fakeserver.New(fakeserver.WithAnalysisPace(0))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	seed, _ := srv.SeedDemo()
	feed, _ := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "Source", Episodes: []fakeserver.HostedEpisode{{Title: "Take 1", Duration: 10 * time.Second, Format: "wav"}}})
	audio := downloadNewestEpisode(srv, feed.FeedURL)

	c, _ := client.New(seed.APIKey, client.WithBaseURL(srv.URL()), client.WithHTTPClient(srv.Client()))
	ctx := context.Background()
	created, err := c.Upload(ctx, bytes.NewReader(audio), client.UploadParams{FileName: "take-1.wav", ContentType: "audio/wav"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("estimated credits:", *created.EstimatedCredits, "for", created.Duration, "measured:", created.Measured)
	report, err := c.WaitForReport(ctx, created.ID, client.WaitBounds(10*time.Millisecond, time.Second)) // under the rate limit
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(report.Status, report.OriginalFilename, "passed:", report.Passed())
	// Output:
	// estimated credits: 100 for 10s measured: true
	// COMPLETE take-1.wav passed: true
}

// downloadNewestEpisode fetches the audio of a feed's newest episode.
func downloadNewestEpisode(srv *fakeserver.Server, feedURL string) []byte {
	resp, err := srv.Client().Get(feedURL)
	if err != nil {
		return nil
	}
	rss, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, rest, _ := bytes.Cut(rss, []byte(`url="`))
	audioURL, _, _ := bytes.Cut(rest, []byte(`"`))
	resp, err = srv.Client().Get(string(audioURL))
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	audio, _ := io.ReadAll(resp.Body)
	return audio
}
