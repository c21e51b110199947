// Command testing is a release gate for a podcast: it reports on the newest episode of a feed and
// exits with status 1 when the episode does not pass. Its test, main_test.go, is the point of this
// example: it shows how to test code like this against the fake of the service (clienttest, the
// fake's clock, hosted feeds, fault injection) without sleeping or touching the network.
//
//	PODQA_API_KEY=podqa_api_... PODQA_BASE_URL=http://127.0.0.1:8080 \
//	  go run ./examples/testing https://example.com/feed.rss
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/podqa/podqa-go/client"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: testing FEED_URL")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	var opts []client.Option
	if base := os.Getenv("PODQA_BASE_URL"); base != "" {
		opts = append(opts, client.WithBaseURL(base))
	}
	c, err := client.New(os.Getenv("PODQA_API_KEY"), opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testing:", err)
		os.Exit(2)
	}
	passed, err := gate{c: c}.run(ctx, os.Stdout, os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "testing:", err)
		os.Exit(2)
	}
	if !passed {
		os.Exit(1)
	}
}

// gate is the code under test: it submits an episode, waits for its report and judges it. The
// wait runs on the client's clock: the wall clock here, the fake's clock in the test, where it
// passes at once.
type gate struct{ c *client.Client }

// run reports on the newest episode of the feed, prints the verdict to out and says whether the
// episode may be released.
func (g gate) run(ctx context.Context, out io.Writer, feedURL string) (bool, error) {
	id, err := g.submit(ctx, feedURL)
	if err != nil {
		return false, err
	}
	report, err := g.c.WaitForReport(ctx, id)
	if err != nil {
		return false, fmt.Errorf("wait for the report: %w", err)
	}
	return g.judge(out, report), nil
}

// submit asks for a report on the newest episode of the feed and returns its id.
func (g gate) submit(ctx context.Context, feedURL string) (string, error) {
	created, err := g.c.CreateReportFromFeed(ctx, feedURL, client.CreateReportParams{})
	if err != nil {
		return "", fmt.Errorf("create a report: %w", err)
	}
	return created.ID, nil
}

// judge prints the verdict of a finished report and the required checks that failed, and says
// whether the episode may be released.
func (g gate) judge(out io.Writer, r *client.Report) bool {
	if r.Status != client.StatusComplete {
		fmt.Fprintf(out, "%s: the report ended %s\n", r.Name, r.Status)
		return false
	}
	if r.Passed() {
		fmt.Fprintf(out, "%s: PASSED\n", r.Name)
		return true
	}
	fmt.Fprintf(out, "%s: FAILED\n", r.Name)
	for _, res := range r.Results {
		if res.Failed() && res.Severity == client.SeverityRequired {
			fmt.Fprintf(out, "  %s: %s\n", res.Name, res.WarningMessage)
		}
	}
	return false
}
