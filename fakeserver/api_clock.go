package fakeserver

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/internal/ctxsleep"
)

// Now is the fake's current instant.
func (s *Server) Now() time.Time { return s.clock.Now() }

// Advance moves a manual clock forward by d after running, in time order, everything that falls
// due in the span, and returns the new instant. On a real clock it returns an error.
func (s *Server) Advance(d time.Duration) (_ time.Time, err error) {
	defer apiError(&err)
	now, err := s.clock.Advance(d)
	if errors.Is(err, clock.ErrNotManual) {
		return time.Time{}, &Error{Status: http.StatusConflict, Code: core.CodeConflict, Message: "The fake runs on the real clock; start it with a manual clock to move time."}
	}
	if err != nil {
		return time.Time{}, &Error{Status: http.StatusBadRequest, Code: core.CodeValidation, Message: "Time cannot move backwards."}
	}
	s.core.FlushNotices()
	s.events.raise(now, slog.LevelInfo, EventClockAdvanced, "clock advanced", "", "", slog.String("by", d.String()), slog.String("now", fakeTime(now)))
	return now, nil
}

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
