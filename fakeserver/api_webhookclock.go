package fakeserver

import (
	"fmt"

	"github.com/podqa/podqa-go/fakeserver/internal/webhooks"
)

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
