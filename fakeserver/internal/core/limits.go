package core

import (
	"sync"
	"time"

	"github.com/google/uuid"
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
	// off admits everything and counts nothing (WithoutRateLimits); it outlives a reset.
	off bool
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

// limitBucket names one counter: a bucket and whom it counts, a key (by id, kept as its bytes so
// that counting a request makes no string) or an address.
type limitBucket struct {
	bucket  Bucket
	key     uuid.UUID
	address string
}

// subject is the key id or the address b counts for, as a LimitRefusal names it.
func (b limitBucket) subject() string {
	if b.bucket == BucketKeyMinute || b.bucket == BucketKeyWrites {
		return b.key.String()
	}
	return b.address
}

// take counts one request in bucket b and refuses it when the window already holds limit.
func (l *limiter) take(b limitBucket, limit int, window time.Duration, now time.Time) *LimitRefusal {
	if l.off {
		return nil
	}
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
		return &LimitRefusal{Bucket: b.bucket, Subject: b.subject(), Limit: limit, Window: window, At: now, RefillsAt: w.end}
	}
	w.n++
	return nil
}

// Bucket names one of the limiter's fixed-window counters.
type Bucket string

// The limiter's buckets.
const (
	// BucketKeyMinute counts every request of an API key: 100 per minute.
	BucketKeyMinute Bucket = "key_requests_per_minute"
	// BucketKeyWrites counts the writes of an API key: 30 per hour.
	BucketKeyWrites Bucket = "key_writes_per_hour"
	// BucketAnonymous counts GraphQL requests without credentials per address: 100 per minute.
	BucketAnonymous Bucket = "anonymous_requests_per_minute"
	// BucketRefusedCredentials counts refused credentials per address: 20 per five minutes.
	BucketRefusedCredentials Bucket = "refused_credentials_per_5_minutes"
)

// LimitRefusal is a request refused by a limit: which bucket, whose, and when it refills. It
// unwraps to the answer every adapter gives, 429 rate_limited with its Retry-After.
type LimitRefusal struct {
	Bucket Bucket
	// Subject is the key id or the address the bucket counts for (never a key).
	Subject string
	// Limit is how many requests the window holds.
	Limit int
	// Window is the bucket's fixed window.
	Window time.Duration
	// At is when the request was refused, on the core's clock.
	At time.Time
	// RefillsAt is when the refusing window ends, on the core's clock.
	RefillsAt time.Time
	// Cause is the credential refusal that tipped BucketRefusedCredentials over; nil otherwise.
	Cause *CredentialRefusal
}

func (e *LimitRefusal) Error() string { return e.Answer().Error() }

// Unwrap returns the answer, so that errors.As finds the *Error adapters write.
func (e *LimitRefusal) Unwrap() error { return e.Answer() }

// Answer is the refusal as the APIs give it: 429 rate_limited, Retry-After in whole seconds
// rounded up (at least 1) until RefillsAt.
func (e *LimitRefusal) Answer() *Error {
	wait := e.RefillsAt.Sub(e.At)
	secs := int((wait + time.Second - 1) / time.Second)
	return &Error{Code: CodeRateLimited, Message: rateMessage(e.Bucket), RetryAfter: max(secs, 1)}
}

func rateMessage(b Bucket) string {
	switch b {
	case BucketKeyWrites:
		return "Rate limit exceeded: 30 write requests per hour per API key."
	case BucketAnonymous:
		return "Rate limit exceeded: 100 requests per minute per address without an API key."
	case BucketRefusedCredentials:
		return "Too many rejected credentials from this address: 20 per 5 minutes."
	default:
		return "Rate limit exceeded: 100 requests per minute per API key."
	}
}

// admitKey applies the per-key limits to a request made with an accepted key: every request
// counts against the minute window, writes also against the hour window. A browser session
// (no key) is limited by the service's web front, not per key.
func (c *Core) admitKey(p Principal, write bool) *LimitRefusal {
	if p.Key == nil {
		return nil
	}
	now := c.clock.Now()
	id := p.Key.ID
	if r := c.limits.take(limitBucket{bucket: BucketKeyMinute, key: id}, keyRequestsPerMinute, time.Minute, now); r != nil {
		return r
	}
	if write {
		return c.limits.take(limitBucket{bucket: BucketKeyWrites, key: id}, keyWritesPerHour, time.Hour, now)
	}
	return nil
}

// admitAnonymous applies the per-address limit of requests made without credentials.
func (c *Core) admitAnonymous(clientIP string) *LimitRefusal {
	return c.limits.take(limitBucket{bucket: BucketAnonymous, address: clientIP}, anonymousPerMinute, time.Minute, c.clock.Now())
}

// countRefusal counts a refused credential against the caller's address; it returns the limit's
// refusal once the address has had 20 refusals in the window.
func (c *Core) countRefusal(clientIP string, cause *CredentialRefusal) *LimitRefusal {
	r := c.limits.take(limitBucket{bucket: BucketRefusedCredentials, address: clientIP}, refusedPerFiveMinutes, 5*time.Minute, c.clock.Now())
	if r != nil {
		r.Cause = cause
	}
	return r
}

// Admit applies the per-key limits to p's request, as Enter does after resolving credentials.
func (c *Core) Admit(p Principal, write bool) error {
	if r := c.admitKey(p, write); r != nil {
		return r
	}
	return nil
}

// AdmitAnonymous applies the per-address limit of requests made without credentials, as Enter
// does for a caller that may go on anonymously.
func (c *Core) AdmitAnonymous(clientIP string) error {
	if r := c.admitAnonymous(clientIP); r != nil {
		return r
	}
	return nil
}

// RefuseCredentials counts a refused credential against the caller's address, as Enter does,
// and returns the bare answer: 401 invalid_api_key, or 429 once the address has had 20 refusals
// in the window.
func (c *Core) RefuseCredentials(clientIP string) error {
	if r := c.countRefusal(clientIP, nil); r != nil {
		return r.Answer()
	}
	return ErrInvalidAPIKey()
}

// MaxAdvance bounds one advance of the clock from the control API and the dashboard to a
// century, which keeps the duration arithmetic exact.
const MaxAdvance = 100 * 365 * 24 * time.Hour
