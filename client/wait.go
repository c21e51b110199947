package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/podqa/podqa-go/internal/errval"
	"github.com/podqa/podqa-go/internal/wait"
)

// Defaults of WaitForReport.
const (
	DefaultWaitMin     = 2 * time.Second
	DefaultWaitMax     = 30 * time.Second
	DefaultWaitCeiling = 2 * time.Hour
)

// ErrWaitTimeout is wrapped by the error of WaitForReport when the report is not final by the
// ceiling (see WaitCeiling).
var ErrWaitTimeout = errval.New("client.ErrWaitTimeout", "podqa: report not final before the wait ceiling")

// WaitOption configures WaitForReport.
type WaitOption func(*waitConfig)

type waitConfig struct {
	min, max, ceiling time.Duration
	progress          func(*Report)
}

// WaitBounds bounds each pause between polls (default 2 s to 30 s). Zero or negative values
// keep the defaults; a max below min is raised to min.
func WaitBounds(minWait, maxWait time.Duration) WaitOption {
	return func(w *waitConfig) {
		if minWait > 0 {
			w.min = minWait
		}
		if maxWait > 0 {
			w.max = maxWait
		}
	}
}

// WaitCeiling sets how long WaitForReport waits in all before giving up with ErrWaitTimeout
// (default 2 h; a one-hour episode typically takes around five minutes).
func WaitCeiling(d time.Duration) WaitOption {
	return func(w *waitConfig) {
		if d > 0 {
			w.ceiling = d
		}
	}
}

// WaitProgress calls fn with every report read while waiting, the final one included.
func WaitProgress(fn func(*Report)) WaitOption {
	return func(w *waitConfig) { w.progress = fn }
}

// WaitForReport polls GetReport until the report reaches a final status (COMPLETE, FAILED or
// OUT_OF_QUOTA) and returns it; a FAILED or OUT_OF_QUOTA report is returned without error, so
// check its Status. An unknown status is not final: polling goes on.
//
// Each pause is sized from stats.time_remaining within the bounds (WaitBounds): the estimate
// itself while it is positive; the shortest pause while it is negative (the run overran its
// estimate and is still working, which is not a failure); and, before any estimate exists,
// pauses doubling from the shortest. A rate-limit answer whose Retry-After exceeded the
// client's MaxRetryAfter is waited out here rather than returned.
//
// WaitForReport stops when ctx ends, on the first error other than such a rate limit, and at
// the ceiling (WaitCeiling) with an error wrapping ErrWaitTimeout. When it returns an error it
// also returns the last report it read, nil if none.
func (c *Client) WaitForReport(ctx context.Context, reportID string, opts ...WaitOption) (*Report, error) {
	cfg := waitConfig{min: DefaultWaitMin, max: DefaultWaitMax, ceiling: DefaultWaitCeiling}
	for _, o := range opts {
		o(&cfg)
	}
	cfg.max = max(cfg.max, cfg.min)
	if _, err := parseID("report id", reportID); err != nil {
		return nil, err
	}
	idle := 0 // consecutive polls without an estimate
	loop := wait.Loop[*Report]{
		Clock:      c.clock,
		Ceiling:    cfg.ceiling,
		Poll:       func(ctx context.Context) (*Report, error) { return c.GetReport(ctx, reportID) },
		Final:      func(r *Report) bool { return r.Status.IsFinal() },
		Pause:      func(r *Report) time.Duration { return cfg.pause(r, &idle) },
		RetryAfter: RetryAfter,
		Progress:   cfg.progress,
		Timeout: func(last *Report, polled bool, err error) error {
			status := Status("unknown")
			if polled {
				status = last.Status
			}
			if err != nil {
				return fmt.Errorf("%w: report %s still %s after %s: %w", ErrWaitTimeout, reportID, status, cfg.ceiling, err)
			}
			return fmt.Errorf("%w: report %s still %s after %s", ErrWaitTimeout, reportID, status, cfg.ceiling)
		},
		Interrupted: func(err error) error { return fmt.Errorf("podqa: waiting for report %s: %w", reportID, err) },
	}
	return loop.Run(ctx)
}

// pause sizes the wait after a poll of a report that is not final.
func (w *waitConfig) pause(r *Report, idle *int) time.Duration {
	var remaining time.Duration
	if r.Stats != nil {
		remaining = r.Stats.Remaining()
	}
	switch {
	case remaining > 0:
		*idle = 0
		return min(max(remaining, w.min), w.max)
	case remaining < 0:
		*idle = 0
		return w.min
	}
	d := w.min
	for i := 0; i < *idle && d < w.max; i++ {
		d *= 2
	}
	*idle++
	return min(d, w.max)
}

// RetryAfter returns the wait the service asked for with a refusal that is worth retrying: err
// (or an error it wraps) is an *APIError of status 429 (a rate limit) or 503 (unavailable) that
// carried a positive Retry-After. ok is false for any other error, so a caller can tell "wait
// this long" from "do not retry on your own".
func RetryAfter(err error) (wait time.Duration, ok bool) {
	var ae *APIError
	if !errors.As(err, &ae) || ae.RetryAfter <= 0 {
		return 0, false
	}
	if ae.StatusCode != http.StatusTooManyRequests && ae.StatusCode != http.StatusServiceUnavailable {
		return 0, false
	}
	return ae.RetryAfter, true
}
