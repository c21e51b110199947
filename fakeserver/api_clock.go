package fakeserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/webhooks"
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

// WebhookClock names the clock a delivery's webhook-timestamp header is read from (see
// WithWebhookClock).
type WebhookClock string

const (
	// WebhookClockFake stamps each attempt with the fake's clock, the default: a receiver under
	// a manual clock verifies against the fake's clock (webhook.WithClock(srv.Clock())).
	WebhookClockFake WebhookClock = "fake"
	// WebhookClockWall stamps each attempt with the wall clock as it is sent, so that a receiver
	// verifying against its own clock, as every Standard Webhooks library does by default,
	// accepts deliveries however far the fake's manual clock has moved.
	WebhookClockWall WebhookClock = "wall"
)

// ParseWebhookClock reads "fake" or "wall", the values of the program's -webhook-clock flag.
func ParseWebhookClock(s string) (WebhookClock, error) {
	switch c := WebhookClock(s); c {
	case WebhookClockFake, WebhookClockWall:
		return c, nil
	}
	return "", fmt.Errorf("the webhook clock must be %q or %q, not %q", WebhookClockWall, WebhookClockFake, s)
}

// WithWebhookClock sets the clock of each delivery attempt's webhook-timestamp header, which its
// webhook-signature covers (default WebhookClockFake). With WebhookClockWall a receiver in any
// language verifies with its library's defaults, on its own clock, after the fake's clock was
// moved; the body's timestamp stays the event's instant on the fake's clock, and retries, the
// delivery log and the events stay on the fake's clock too. New refuses any other value.
func WithWebhookClock(c WebhookClock) Option { return func(o *options) { o.webhookClock = c } }

// webhookStamping is the sender's stamping of o's webhook clock, or the error New answers for
// a value that is neither.
func webhookStamping(o options) (webhooks.Stamping, error) {
	switch o.webhookClock {
	case "", WebhookClockFake:
		return webhooks.StampFake, nil
	case WebhookClockWall:
		return webhooks.StampWall, nil
	}
	_, err := ParseWebhookClock(string(o.webhookClock))
	return 0, fmt.Errorf("fakeserver: WithWebhookClock: %w", err)
}
