package core

import "time"

// The delivery ladder of the service's webhooks (the specification's "Delivery and retries"
// and its limits): how often a delivery is tried, when, and what the endpoint keeps. The core
// owns it; the HTTP sender (internal/webhooks) is handed the receiver budget and knows nothing
// else of it.
const (
	// MaxDeliveryAttempts is how many attempts one delivery gets before it is abandoned.
	MaxDeliveryAttempts = 10
	// FirstRetryGap is the gap after the first failed attempt; each later gap doubles.
	FirstRetryGap = 10 * time.Minute
	// MaxRetryGap caps the gap between two attempts.
	MaxRetryGap = 6 * time.Hour
	// RetrySweepInterval is how often the retry sweep runs; a retry goes out on the first sweep
	// at or after its due instant, so it can land a few minutes late.
	RetrySweepInterval = 5 * time.Minute
	// DisableAfterAbandoned is how many deliveries in a row must exhaust the ladder before their
	// endpoint is disabled.
	DisableAfterAbandoned = 5
	// ReceiverBudget is how long a receiver has to answer one attempt.
	ReceiverBudget = 10 * time.Second
	// DeliveryLogSize is how many recent deliveries an endpoint's delivery log shows.
	DeliveryLogSize = 20
)

// RetryDelay is the gap after the failed-th failed attempt (1 for the first): 10 minutes,
// doubling, at most 6 hours.
func RetryDelay(failed int) time.Duration {
	d := FirstRetryGap
	for i := 1; i < failed && d < MaxRetryGap; i++ {
		d *= 2
	}
	return min(d, MaxRetryGap)
}

// NextRetrySweep is the first sweep instant at or after t: sweeps run on multiples of
// RetrySweepInterval of the clock.
func NextRetrySweep(t time.Time) time.Time {
	s := t.Truncate(RetrySweepInterval)
	if s.Before(t) {
		s = s.Add(RetrySweepInterval)
	}
	return s
}
