package client

import (
	"context"
	"fmt"
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
