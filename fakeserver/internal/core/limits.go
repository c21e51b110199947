package core

import (
	"sync"
	"time"
)

// The service's three fixed-window limits. Windows are aligned to the clock (a minute window
// runs from hh:mm:00 to the next minute, the hour window from hh:00:00, the five-minute window
// from a multiple of five minutes), which is what "fixed, not rolling" means here; Retry-After
// is the whole seconds, rounded up, until the window that refused the request ends.
const (
	keyRequestsPerMinute  = 100
	keyWritesPerHour      = 30
	refusedPerFiveMinutes = 20
	// anonymousPerMinute limits GraphQL requests without credentials (report(id) needs none) per
	// address. The specification is silent; the fake gives an address the minute budget of one
	// key, so that a report id cannot be read (or guessed at) faster than a key could.
	anonymousPerMinute = 100
)

// sweepEvery is how often, in clock time, the limiter drops the records of windows that have
// ended, so that a scan from many addresses leaves no lasting trace: at most the records of the
// windows of the last sweepEvery plus the longest window are held.
const sweepEvery = time.Minute

type windowCount struct {
	start, end time.Time
	n          int
}

// limiter counts requests in fixed windows.
type limiter struct {
	mu        sync.Mutex
	windows   map[limitBucket]*windowCount
	nextSweep time.Time
}

// sweepLocked drops the records of windows that ended by now, at most once per sweepEvery.
func (l *limiter) sweepLocked(now time.Time) {
	if now.Before(l.nextSweep) {
		return
	}
	l.nextSweep = now.Add(sweepEvery)
	for b, w := range l.windows {
		if !now.Before(w.end) {
			delete(l.windows, b)
		}
	}
}

type limitBucket struct {
	kind string // "key", "write" or "ip"
	id   string
}

// take counts one request in bucket b and refuses it when the window already holds limit.
func (l *limiter) take(b limitBucket, limit int, window time.Duration, now time.Time) *Error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.windows == nil {
		l.windows = map[limitBucket]*windowCount{}
	}
	l.sweepLocked(now)
	start := now.Truncate(window)
	w := l.windows[b]
	if w == nil || !w.start.Equal(start) {
		w = &windowCount{start: start, end: start.Add(window)}
		l.windows[b] = w
	}
	if w.n >= limit {
		wait := start.Add(window).Sub(now)
		secs := int((wait + time.Second - 1) / time.Second)
		return &Error{
			Code:       CodeRateLimited,
			Message:    rateMessage(b.kind),
			RetryAfter: max(secs, 1),
		}
	}
	w.n++
	return nil
}

func rateMessage(kind string) string {
	switch kind {
	case "write":
		return "Rate limit exceeded: 30 write requests per hour per API key."
	case "anon":
		return "Rate limit exceeded: 100 requests per minute per address without an API key."
	case "ip":
		return "Too many rejected credentials from this address: 20 per 5 minutes."
	default:
		return "Rate limit exceeded: 100 requests per minute per API key."
	}
}

// Admit applies the per-key limits to a request made with an accepted key: every request counts
// against the minute window, writes also against the hour window.
func (c *Core) Admit(p Principal, write bool) error {
	if p.Key == nil {
		return nil // browser sessions are limited by the service's web front, not per key
	}
	now := c.clock.Now()
	id := p.Key.ID.String()
	if err := c.limits.take(limitBucket{"key", id}, keyRequestsPerMinute, time.Minute, now); err != nil {
		return err
	}
	if write {
		if err := c.limits.take(limitBucket{"write", id}, keyWritesPerHour, time.Hour, now); err != nil {
			return err
		}
	}
	return nil
}

// AdmitAnonymous applies the per-address limit of requests made without credentials.
func (c *Core) AdmitAnonymous(clientIP string) error {
	if err := c.limits.take(limitBucket{"anon", clientIP}, anonymousPerMinute, time.Minute, c.clock.Now()); err != nil {
		return err
	}
	return nil
}

// RefuseCredentials counts a refused credential against the caller's address and returns the
// answer: 401 invalid_api_key, or 429 once the address has had 20 refusals in the window.
func (c *Core) RefuseCredentials(clientIP string) error {
	if err := c.limits.take(limitBucket{"ip", clientIP}, refusedPerFiveMinutes, 5*time.Minute, c.clock.Now()); err != nil {
		return err
	}
	return ErrInvalidAPIKey()
}
