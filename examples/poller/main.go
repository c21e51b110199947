// Command poller follows podqa's completed reports without webhooks: every few minutes it asks
// for the reports completed since its watermark, prints each one once, and keeps the watermark
// in a file so that a restart carries on where it stopped.
//
// The first run needs a starting point: -since takes a report's updated_at (safest) or any
// RFC 3339 instant; later runs read the state file and ignore it.
//
//	PODQA_API_KEY=podqa_api_... PODQA_BASE_URL=http://127.0.0.1:8080 \
//	  go run ./examples/poller -state poller-state.json -since 2026-01-05T09:00:00+00:00
//
// -once polls a single time and exits, for a cron job or a CI step.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/poller"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	state := flag.String("state", "poller-state.json", "file that keeps the watermark")
	since := flag.String("since", "", "first watermark, used only while the state file holds none")
	once := flag.Bool("once", false, "poll once and exit")
	flag.Parse()
	if err := run(ctx, os.Stdout, *state, *since, *once); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "poller:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, statePath, since string, once bool) error {
	var opts []client.Option
	if base := os.Getenv("PODQA_BASE_URL"); base != "" {
		opts = append(opts, client.WithBaseURL(base))
	}
	c, err := client.New(os.Getenv("PODQA_API_KEY"), opts...)
	if err != nil {
		return err
	}
	store, err := poller.NewFileStore(statePath)
	if err != nil {
		return err
	}
	popts := []poller.Option{
		// Read each report before handling it: its verdict can change after completion.
		poller.WithFetchReports(),
		poller.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil))),
	}
	if since != "" {
		popts = append(popts, poller.WithStartWatermark(since))
	}
	p, err := poller.New(c, store, popts...)
	if err != nil {
		return err
	}

	handle := func(ctx context.Context, done poller.Completion) error {
		verdict := "FAILED"
		if done.Report.Passed() {
			verdict = "PASSED"
		}
		fmt.Fprintf(out, "%s %s %s (updated %s)\n", done.Item.ID, verdict, done.Report.Name, client.FormatTime(done.Item.UpdatedAt))
		return nil // an error here would have the report offered again next poll
	}
	if once {
		res, err := p.PollOnce(ctx, handle)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "delivered %d, watermark %s\n", res.Delivered, res.Watermark)
		return nil
	}
	return p.Run(ctx, handle)
}
