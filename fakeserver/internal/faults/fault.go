// Package faults holds the fake's armed faults and the middleware that fires them (Inject):
// slow answers, dropped connections, cut or crawling bodies, 429s and errors from in front of the
// API, on a seeded pattern. It stands on the core and httpmw; it validates and arms a fault
// (Arm: fakeserver.Fault's rules) for the Go API and for its own control calls under
// /_fake/faults (control.go), which the facade mounts behind the admin guard as it mounts Inject
// in its one middleware chain (fakeserver/DESIGN.md).
package faults

import "time"

// Fault is a validated fault; fakeserver.Fault is the same fields, documented there, and the
// facade converts one to the other (a conversion that stops compiling if they drift).
type Fault struct {
	Method             string
	PathPrefix         string
	Status             int
	RetryAfter         time.Duration
	Count              int
	Latency            time.Duration
	Jitter             time.Duration
	Reset              string
	TruncateAfterBytes *int64
	ThrottleBytesPerS  int64
	Probability        *float64
	After              int
}

// Armed is an armed fault as List lists it (fakeserver.ArmedFault).
type Armed struct {
	ID string
	Fault
	Matches int
	Fired   int
}

// The fault resets: fakeserver.ResetBeforeBody and ResetAfterBody, which a facade test holds
// to these.
const (
	ResetBeforeBody = "before_body"
	ResetAfterBody  = "after_body"
)
