package poller

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/internal/errval"
)

// Polling bounds of the recipe: every five to fifteen minutes is enough.
const (
	// DefaultInterval is the pause between polls unless WithInterval says otherwise.
	DefaultInterval = 5 * time.Minute
	// MinInterval and MaxInterval bound WithInterval and the jittered pause.
	MinInterval = 5 * time.Minute
	MaxInterval = 15 * time.Minute
	// DefaultJitter is the fraction of the interval added at random to each pause, so that
	// many pollers started together do not poll in lockstep.
	DefaultJitter = 0.1
	// DefaultOverlap is how far below the highest updated_at a poll saw the next poll starts
	// reading again (see the package documentation).
	DefaultOverlap = time.Second
	// DefaultMaxRetryAfter is the longest Retry-After of a 429 a poll waits for before it
	// gives up and keeps the old watermark.
	DefaultMaxRetryAfter = 2 * time.Minute
	// PageSize is the limit of every list request: the largest the API allows, so that a poll
	// takes as few requests as possible.
	PageSize = 100
)

// maxRateLimitWaits bounds how many 429s one poll waits out.
const maxRateLimitWaits = 3

// ErrInvalidOption is wrapped by the errors New returns for a bad option.
var ErrInvalidOption = errval.New("poller.ErrInvalidOption", "poller: invalid option")

type config struct {
	start          string // normalised first watermark; "" when none was given
	interval       time.Duration
	checkInterval  bool
	jitter         float64
	overlap        time.Duration
	maxRetryAfter  time.Duration
	fetchReports   bool
	clock          client.Clock
	log            *slog.Logger
	progress       func(PollResult)
	randomFraction func() float64
	lease          leaseConfig // see lease.go
}

// Option configures New.
type Option func(*config) error

// WithStartWatermark gives the first watermark, used only while the store holds none: an
// updated_at read from a report (safest), or any RFC 3339 date-time with a zone, which is
// converted to the fixed +00:00 form. An empty or unreadable w is an error.
func WithStartWatermark(w string) Option {
	return func(c *config) error {
		n, err := NormalizeWatermark(w)
		if err != nil {
			return fmt.Errorf("%w: WithStartWatermark: %w", ErrInvalidOption, err)
		}
		c.start = n
		return nil
	}
}

// WithStartTime gives the first watermark as an instant, used only while the store holds none:
// the first poll delivers the reports completed after t.
func WithStartTime(t time.Time) Option {
	return func(c *config) error {
		if t.IsZero() {
			return fmt.Errorf("%w: WithStartTime: the zero time is not a watermark", ErrInvalidOption)
		}
		n, err := NormalizeWatermark(t.UTC().Format(time.RFC3339Nano))
		if err != nil {
			return fmt.Errorf("%w: WithStartTime: %w", ErrInvalidOption, err)
		}
		c.start = n
		return nil
	}
}

// WithInterval sets the pause between the polls of Run, from MinInterval to MaxInterval
// (default DefaultInterval). Jitter is added on top, never past MaxInterval.
func WithInterval(d time.Duration) Option {
	return func(c *config) error {
		if d < MinInterval || d > MaxInterval {
			return fmt.Errorf("%w: interval %s is outside %s to %s (WithIntervalUnbounded overrides)", ErrInvalidOption, d, MinInterval, MaxInterval)
		}
		c.interval, c.checkInterval = d, true
		return nil
	}
}

// WithIntervalUnbounded sets the pause between polls to any positive d, overriding the five to
// fifteen minutes of the recipe: for a fake in tests, or an agreement with the service.
func WithIntervalUnbounded(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("%w: interval %s must be positive", ErrInvalidOption, d)
		}
		c.interval, c.checkInterval = d, false
		return nil
	}
}

// WithJitter sets the largest fraction of the interval added at random to each pause, 0 to 1
// (default DefaultJitter); 0 makes the pauses exact.
func WithJitter(fraction float64) Option {
	return func(c *config) error {
		if !(fraction >= 0 && fraction <= 1) {
			return fmt.Errorf("%w: jitter %v is outside 0 to 1", ErrInvalidOption, fraction)
		}
		c.jitter = fraction
		return nil
	}
}

// WithOverlap sets how far below the highest updated_at it saw each poll moves the watermark
// (default DefaultOverlap), so that a report stamped a moment before it became visible is read
// again by the next poll rather than skipped. Reports re-read are recognised by id and not
// delivered twice. 0 is allowed.
func WithOverlap(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("%w: overlap %s is negative", ErrInvalidOption, d)
		}
		c.overlap = d
		return nil
	}
}

// WithMaxRetryAfter sets the longest Retry-After of a 429 a poll waits out (default
// DefaultMaxRetryAfter); a longer one ends the poll with the error, keeping the old watermark,
// and Run waits at least that long before the next poll. 0 never waits.
func WithMaxRetryAfter(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("%w: max Retry-After %s is negative", ErrInvalidOption, d)
		}
		c.maxRetryAfter = d
		return nil
	}
}

// WithFetchReports makes the poller read each new report with GET /reports/{id} before calling
// the handler, which then finds it in Completion.Report: the current verdict, since passed can
// change after completion without updated_at moving.
func WithFetchReports() Option {
	return func(c *config) error {
		c.fetchReports = true
		return nil
	}
}

// WithClock replaces the clock the poller measures paging on and waits between polls and out a
// Retry-After on. Default: the clock of the client given to New (client.WithClock). Against a
// fake on a manual clock, give the client or this option the fake's clock (fakeserver's
// Server.Clock): the poller measures how long paging took on it (see the package documentation).
func WithClock(clk client.Clock) Option {
	return func(c *config) error {
		if clk == nil {
			return fmt.Errorf("%w: nil Clock", ErrInvalidOption)
		}
		c.clock = clk
		return nil
	}
}

// WithLogger logs each poll (Info), each wait for a Retry-After (Info) and each failed poll or
// handler call (Warn) to l. Default: no logs.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		c.log = l
		return nil
	}
}

// WithProgress calls fn after every poll with its result, from the goroutine that polled.
func WithProgress(fn func(PollResult)) Option {
	return func(c *config) error {
		c.progress = fn
		return nil
	}
}
