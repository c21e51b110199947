// Command report-from-feed asks podqa to report on the newest episode of a podcast feed (or the
// episode at -episode), waits for the report to finish and prints the verdict and the checks that
// failed.
//
//	PODQA_API_KEY=podqa_api_... PODQA_BASE_URL=http://127.0.0.1:8080 \
//	  go run ./examples/report-from-feed https://example.com/feed.rss
package main

import (
	"context"
	"errors"
	"flag"
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
	episode := flag.Int("episode", 0, "which episode: 0 is the newest, 1 the one before, ...")
	timeout := flag.Duration("timeout", 30*time.Minute, "give up waiting after this long")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: report-from-feed [-episode N] [-timeout D] FEED_URL")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if err := run(ctx, os.Stdout, flag.Arg(0), *episode); err != nil {
		fmt.Fprintln(os.Stderr, "report-from-feed:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, feedURL string, episode int) error {
	var opts []client.Option
	if base := os.Getenv("PODQA_BASE_URL"); base != "" {
		opts = append(opts, client.WithBaseURL(base))
	}
	c, err := client.New(os.Getenv("PODQA_API_KEY"), opts...)
	if err != nil {
		return err
	}

	created, err := c.CreateReportFromFeed(ctx, feedURL, client.CreateReportParams{EpisodeIndex: episode})
	var apiErr *client.APIError
	switch {
	case errors.Is(err, client.ErrInsufficientCredits):
		return errors.New("not enough credits for this episode; top up or pick a shorter one")
	case errors.As(err, &apiErr):
		return fmt.Errorf("the service refused the report: %s (%s)", apiErr.Message, apiErr.Code)
	case err != nil:
		return err
	}
	fmt.Fprintf(out, "report %s created (%s)\n", created.ID, created.Status)

	// WaitForReport sizes its pauses from the report's own estimate of the time remaining.
	report, err := c.WaitForReport(ctx, created.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: %s\n", report.Name, report.Status)
	if report.Status != client.StatusComplete {
		return fmt.Errorf("the report ended %s", report.Status)
	}
	verdict := "FAILED"
	if report.Passed() { // the verdict is stats.passed, never "no failures"
		verdict = "PASSED"
	}
	fmt.Fprintf(out, "verdict: %s (%d of %d checks passed)\n", verdict, report.Stats.Passes, report.Stats.Total)
	for _, r := range report.Results {
		if !r.Failed() {
			continue
		}
		fmt.Fprintf(out, "  %s %s (%s)", r.Severity, r.VerboseName, r.Name)
		if r.WarningMessage != "" {
			fmt.Fprintf(out, ": %s", r.WarningMessage)
		}
		fmt.Fprintln(out)
	}
	return nil
}
