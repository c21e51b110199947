package fakeserver

import (
	"context"
	"time"

	"github.com/podqa/podqa-go/internal/ctxsleep"
)

// Clock is the fake's time in the shape the SDK's WithClock options take: Now and a Sleep
// that honours its context. Get one from Server.Clock.
type Clock struct{ s *Server }

// Clock returns the fake's clock for code under test that waits: give it to client.WithClock
// (or the WithClock of graphqlclient, poller and webhook), and a WaitForReport, a retry pause or
// a poller's interval passes at once. On a manual clock Sleep(d) moves the fake's time by d, as
// Advance does (what falls due in the span runs first), and returns; two goroutines sleeping at
// once move it twice. On the real clock Sleep waits d.
func (s *Server) Clock() Clock { return Clock{s: s} }

// Now returns the fake's current time, as Server.Now.
func (c Clock) Now() time.Time { return c.s.Now() }

// Sleep moves a manual clock forward by d, or waits d on the real clock. It returns ctx's error
// when ctx has ended; a Sleep called after ctx ended moves nothing.
func (c Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !c.s.clock.Manual() {
		return ctxsleep.Sleep(ctx, d)
	}
	if d <= 0 {
		return nil
	}
	if _, err := c.s.Advance(d); err != nil {
		return err
	}
	return ctx.Err()
}
