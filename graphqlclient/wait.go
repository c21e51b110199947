package graphqlclient

import (
	"context"
	"fmt"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/graphqlclient/internal/operations"
	"github.com/podqa/podqa-go/internal/errval"
	"github.com/podqa/podqa-go/internal/wait"
)

// Defaults of WaitForLatestReport, after the service's polling recipe: a report about every 30
// seconds, a generous ceiling (a one-hour episode typically takes around five minutes).
const (
	DefaultWaitInterval = 30 * time.Second
	DefaultWaitMin      = 2 * time.Second
	DefaultWaitCeiling  = 2 * time.Hour
)

// ErrNoReport is wrapped by the error of WaitForLatestReport when the series has no report to wait
// for.
var ErrNoReport = errval.New("graphqlclient.ErrNoReport", "podqa: the series has no report")

// WaitOption configures WaitForLatestReport.
type WaitOption func(*waitConfig)

type waitConfig struct {
	interval, min, ceiling time.Duration
	progress               func(Progress)
}

// Progress is one poll of WaitForLatestReport.
type Progress struct {
	ReportID string
	Status   client.Status
	// Stats is nil while the service has none; Stats.TimeRemaining sizes the next wait.
	Stats *client.Stats
}

// WaitInterval sets the longest pause between polls (default 30 s). Zero or negative keeps
// the default.
func WaitInterval(d time.Duration) WaitOption {
	return func(w *waitConfig) {
		if d > 0 {
			w.interval = d
		}
	}
}

// WaitCeiling sets how long WaitForLatestReport waits in all before giving up with an error
// wrapping client.ErrWaitTimeout (default 2 h). Zero or negative keeps the default.
func WaitCeiling(d time.Duration) WaitOption {
	return func(w *waitConfig) {
		if d > 0 {
			w.ceiling = d
		}
	}
}

// WaitProgress calls fn after every poll, the final one included.
func WaitProgress(fn func(Progress)) WaitOption {
	return func(w *waitConfig) { w.progress = fn }
}

// WaitForLatestReport follows the service's GraphQL polling recipe for the newest report of a
// series: it reads the newest report with reports(forSeriesId:), then, until its status is
// COMPLETE, FAILED or OUT_OF_QUOTA, polls report(id) for id, status and stats. Each pause is
// the interval (default 30 s), shortened to stats.time_remaining when the report should finish
// sooner (at least 2 s), and 2 s once the run has overrun its estimate. An unknown status is
// not final. When final, it returns the whole report (a FAILED or OUT_OF_QUOTA report without
// error: check Status).
//
// It stops when ctx ends, on the first error other than a rate limit or unavailability that
// carries Retry-After (waited out), and at the ceiling with an error wrapping
// client.ErrWaitTimeout. The clock is the client's (WithClock).
func (c *Client) WaitForLatestReport(ctx context.Context, seriesID string, opts ...WaitOption) (*Report, error) {
	cfg := waitConfig{interval: DefaultWaitInterval, min: DefaultWaitMin, ceiling: DefaultWaitCeiling}
	for _, o := range opts {
		o(&cfg)
	}
	cfg.min = min(cfg.min, cfg.interval)
	rows, err := c.ListReports(ctx, ListReportsParams{ListParams: ListParams{Limit: 1}, ForSeriesID: seriesID})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: series %s", ErrNoReport, seriesID)
	}
	id := rows[0].ID
	// The first poll is the listing's row; the following ones ask report(id) for its progress.
	first := &Progress{ReportID: id, Status: rows[0].Status, Stats: rows[0].Stats}
	loop := wait.Loop[Progress]{
		Clock:   c.clock,
		Ceiling: cfg.ceiling,
		Poll: func(ctx context.Context) (Progress, error) {
			if p := first; p != nil {
				first = nil
				return *p, nil
			}
			return c.progress(ctx, id)
		},
		Final:      func(p Progress) bool { return p.Status.IsFinal() },
		Pause:      func(p Progress) time.Duration { return cfg.pause(p.Stats) },
		RetryAfter: client.RetryAfter,
		Progress:   cfg.progress,
		Timeout: func(last Progress, _ bool, err error) error {
			if err != nil {
				return fmt.Errorf("%w: report %s still %s after %s: %w", client.ErrWaitTimeout, id, last.Status, cfg.ceiling, err)
			}
			return fmt.Errorf("%w: report %s still %s after %s", client.ErrWaitTimeout, id, last.Status, cfg.ceiling)
		},
		Interrupted: func(err error) error { return fmt.Errorf("podqa: waiting for report %s: %w", id, err) },
	}
	if _, err := loop.Run(ctx); err != nil {
		return nil, err
	}
	return c.GetReport(ctx, id)
}

// progress polls one report for id, status and stats.
func (c *Client) progress(ctx context.Context, id string) (Progress, error) {
	data, err := operations.ReportProgress(ctx, c.gql, id)
	if err != nil {
		return Progress{}, err
	}
	r := data.Report
	if r == nil {
		return Progress{}, &Error{Op: "ReportProgress", Errors: []ErrorEntry{{Message: "Report not found.", Code: string(client.CodeNotFound)}}}
	}
	stats, err := decodeOptional[client.Stats]("stats", r.Stats)
	if err != nil {
		return Progress{}, err
	}
	return Progress{ReportID: r.Id, Status: client.Status(r.Status), Stats: stats}, nil
}

// pause sizes the wait after a poll of a report that is not final.
func (w *waitConfig) pause(stats *client.Stats) time.Duration {
	var remaining time.Duration
	if stats != nil {
		remaining = stats.Remaining()
	}
	switch {
	case remaining < 0:
		return w.min
	case remaining > 0:
		return min(max(remaining, w.min), w.interval)
	}
	return w.interval
}
