package faults

import (
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// MaxLatency is the longest Latency a fault may have (fakeserver.MaxFaultLatency, which a
// facade test holds to it).
const MaxLatency = 10 * time.Minute

// MaxRetryAfter bounds RetryAfter: a day, far from where seconds overflow a Duration.
const MaxRetryAfter = 24 * time.Hour

// Arm validates fault, arms it normalised and returns it as armed with its id: what the Go API's
// InjectFault and POST /_fake/faults both do. A refused fault is a core validation error whose
// message names the control API's field (latency_ms for Latency, retry_after_s for RetryAfter).
func (f *Faults) Arm(fault Fault) (Fault, string, error) {
	fault, err := fault.validate()
	if err != nil {
		return Fault{}, "", err
	}
	return fault, f.add(fault), nil
}

// wholeSeconds rounds d up to whole seconds, as a Retry-After header carries it, without
// overflowing.
func wholeSeconds(d time.Duration) time.Duration {
	if r := d % time.Second; r != 0 && d <= math.MaxInt64-time.Second {
		return d - r + time.Second
	}
	return d
}

// validate checks f and returns it normalised.
func (f Fault) validate() (Fault, error) {
	f.Method = strings.ToUpper(f.Method)
	bad := func(format string, args ...any) (Fault, error) { return Fault{}, core.ErrValidation(format, args...) }
	switch {
	case !strings.HasPrefix(f.PathPrefix, "/"):
		return bad("path_prefix must begin with /.")
	case strings.ContainsFunc(f.Method, func(r rune) bool { return r < 'A' || r > 'Z' }):
		return bad("method must be an HTTP method such as GET.")
	case f.Status != 0 && f.Status != 429 && f.Status != 500 && f.Status != 502 && f.Status != 503 && f.Status != 504:
		return bad("status must be 429, 500, 502, 503 or 504.")
	case f.RetryAfter < 0 || f.RetryAfter > MaxRetryAfter:
		return bad("retry_after_s must be from 1 to %d.", int(MaxRetryAfter/time.Second))
	case f.RetryAfter > 0 && f.Status != http.StatusTooManyRequests:
		return bad("retry_after_s goes with status 429 only.")
	case f.Count < 0:
		return bad("count must not be negative.")
	case f.After < 0:
		return bad("after must not be negative.")
	case f.Latency < 0 || f.Latency > MaxLatency:
		return bad("latency_ms must be from 0 to %d.", MaxLatency.Milliseconds())
	case f.Jitter < 0 || f.Jitter > f.Latency:
		return bad("jitter_ms must be from 0 to latency_ms.")
	case f.Reset != "" && f.Reset != ResetBeforeBody && f.Reset != ResetAfterBody:
		return bad("reset must be before_body or after_body.")
	case f.TruncateAfterBytes != nil && *f.TruncateAfterBytes < 0:
		return bad("truncate_after_bytes must not be negative.")
	case f.ThrottleBytesPerS < 0:
		return bad("throttle_bytes_per_s must not be negative.")
	case f.Probability != nil && !(*f.Probability >= 0 && *f.Probability <= 1):
		return bad("probability must be from 0 to 1.")
	}
	outcomes := 0
	for _, set := range []bool{f.Status != 0, f.Reset != "", f.TruncateAfterBytes != nil} {
		if set {
			outcomes++
		}
	}
	switch {
	case outcomes > 1:
		return bad("status, reset and truncate_after_bytes exclude each other: a fault has at most one outcome.")
	case outcomes == 0 && f.Latency == 0 && f.ThrottleBytesPerS == 0:
		return bad("a fault needs status, reset, truncate_after_bytes, latency_ms or throttle_bytes_per_s.")
	case f.Reset == ResetBeforeBody && f.ThrottleBytesPerS > 0:
		return bad("throttle_bytes_per_s cannot go with reset before_body: nothing is read or answered.")
	}
	if f.Status == http.StatusTooManyRequests {
		f.RetryAfter = max(wholeSeconds(f.RetryAfter), time.Second)
	}
	if f.TruncateAfterBytes != nil {
		n := *f.TruncateAfterBytes
		f.TruncateAfterBytes = &n // the caller's pointer stays the caller's
	}
	if f.Probability != nil {
		p := *f.Probability
		f.Probability = &p
	}
	return f, nil
}
