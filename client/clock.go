package client

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/podqa/podqa-go/internal/ctxsleep"
)

// Clock tells the time and waits. Every package of this module that waits or reads the time
// takes one through its WithClock option: the client (retry pauses, Retry-After dates,
// WaitForReport), graphqlclient, the poller and the webhook verifier. Tests give them the
// clock of a fake on a manual clock (fakeserver's Server.Clock), whose Sleep moves the fake's
// time instead of waiting, so that code under test that waits finishes at once.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits d, or returns ctx's error when ctx ends first.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the wall clock: time.Now and a timer. It is the default of every WithClock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits d on a timer, or returns ctx's error when ctx ends first.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	return ctxsleep.Sleep(ctx, d)
}

// WithClock makes the client read the time and wait on clk: the pauses between retries, the
// instant a Retry-After date is measured from, and WaitForReport's polls. Packages built on
// the client (graphqlclient, poller) use it too unless given their own. Default SystemClock.
func WithClock(clk Clock) Option {
	return func(c *Client) error {
		if clk == nil {
			return fmt.Errorf("%w: nil Clock", ErrInvalidArgument)
		}
		c.clock = clk
		return nil
	}
}

// Clock returns the clock the client runs on (WithClock).
func (c *Client) Clock() Clock { return c.clock }

// ManualClock is a Clock that moves only when told: Sleep and Advance move it, nothing
// else does. It is for tests without a fake, such as a webhook receiver verifying recorded
// deliveries or a store's expiry. It is safe for concurrent use.
type ManualClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewManualClock returns a clock standing at start.
func NewManualClock(start time.Time) *ManualClock { return &ManualClock{now: start} }

// Now returns the clock's instant.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep moves the clock forward by d at once (nothing for d <= 0), unless ctx has ended; then
// it returns ctx's error and moves nothing.
func (c *ManualClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d > 0 {
		c.Advance(d)
	}
	return nil
}

// Advance moves the clock by d and returns the new instant. A negative d steps it back, as a
// wall clock corrected by NTP can be.
func (c *ManualClock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

var _ Clock = (*ManualClock)(nil)
