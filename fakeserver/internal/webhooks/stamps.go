package webhooks

import (
	"fmt"
	"time"
)

// Stamping says which clock an attempt's webhook-timestamp (and so its signature) is read from.
type Stamping int

const (
	// StampFake stamps each attempt with its instant on the fake's clock (Attempt.At): the
	// default, so that a receiver under a manual clock verifies against the fake's clock.
	StampFake Stamping = iota
	// StampWall stamps each attempt with the wall clock as it is sent, so that a receiver
	// verifying against its own clock (a Standard Webhooks library's default) accepts it
	// however far the fake's clock has moved. The body, the retry ladder and every record stay
	// on the fake's clock.
	StampWall
)

// Tolerance is how far from its own clock a Standard Webhooks receiver accepts a
// webhook-timestamp, in either direction, by default.
const Tolerance = 5 * time.Minute

// SenderOption configures NewSender.
type SenderOption func(*Sender)

// WithStamping sets the clock of webhook-timestamp (StampFake by default).
func WithStamping(st Stamping) SenderOption { return func(s *Sender) { s.stamping = st } }

// WithWallClock replaces time.Now as the sender's wall clock, the one StampWall stamps with and
// skew is measured against; the package's tests fix it.
func WithWallClock(now func() time.Time) SenderOption { return func(s *Sender) { s.wall = now } }

// skewAdvice is what a 4xx answer adds to its error when the attempt's webhook-timestamp was
// more than Tolerance from the wall clock: the likely reason the receiver refused it, how far
// off it was, and the way out. "" when the stamp was within the tolerance.
func skewAdvice(stamp, wall time.Time) string {
	// In whole seconds of either clock, as the header and a receiver's check read them.
	skew := time.Duration(stamp.Unix()-wall.Unix()) * time.Second
	if skew.Abs() <= Tolerance {
		return ""
	}
	dir := "ahead of"
	if skew < 0 {
		dir = "behind"
	}
	return fmt.Sprintf("webhook-timestamp (the fake's clock) was %s %s the wall clock, past the %s a Standard Webhooks receiver allows; "+
		"stamp with the wall clock (-webhook-clock wall; Go: WithWebhookClock(fakeserver.WebhookClockWall)) or verify on the fake's clock",
		skew.Abs(), dir, Tolerance)
}
