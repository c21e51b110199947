package fakeserver

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/faults"
)

// Fault makes requests that match it fail the way networks and services really fail: slow
// answers, dropped connections, cut or crawling bodies, 429s and errors from in front of the
// API, every time or on a seeded pattern. Faults apply to the REST API, GraphQL, the webhook
// subscription calls, signed upload URLs (/_uploads) and the fake's hosted feeds, their audio and
// covers (/_feeds); never to the control API.
//
// A fault has at most one outcome: Status (an error answer), Reset (no answer) or
// TruncateAfterBytes (a cut success answer). Latency and ThrottleBytesPerS combine with any
// outcome, and a fault may be only a delay, only a throttle or both. Probability and After
// choose which matching requests it fires on; Count ends it.
type Fault struct {
	// Method matches one HTTP method; empty matches any.
	Method string
	// PathPrefix matches request paths that begin with it, such as "/api/rest/v1/reports".
	PathPrefix string
	// Status is the error answered instead of the API's: 429 rate_limited in the service's
	// envelope with a Retry-After header, as the service's rate limiter answers; 500 the API's
	// internal_error; 502, 503 and 504 plain-text answers from in front of the API ("Bad Gateway",
	// "Service Unavailable", "Gateway Timeout"). Nothing reaches the API: nothing is created or
	// charged. 0 lets the request through to the API.
	Status int
	// RetryAfter is the Retry-After of a 429, rounded up to whole seconds, from 1 second (the
	// default) to a day. Only with Status 429.
	RetryAfter time.Duration
	// Count is how many times the fault fires before it disarms itself; 0 keeps it armed until
	// RemoveFault or ClearFaults.
	Count int
	// Latency delays the answer by that much wall time, on a manual clock too (it is the network
	// that is slow, not the service), before anything else the fault does; at most
	// MaxFaultLatency.
	Latency time.Duration
	// Jitter varies the delay by up to that much either way, drawn uniformly in whole
	// milliseconds; at most Latency.
	Jitter time.Duration
	// Reset closes the connection without an answer: "before_body" at once, without reading the
	// request body, "after_body" once the request body has been read (and thrown away). The API
	// never sees the request. The client sees a connection reset.
	Reset string
	// TruncateAfterBytes lets the request through to the API and cuts its success answer after
	// that many bytes of body: the full Content-Length is declared, the connection is closed
	// after the cut, so the client reads an unexpected EOF. Answers that are not 2xx, and bodies
	// no longer than the cut, are sent whole. nil: no cut.
	TruncateAfterBytes *int64
	// ThrottleBytesPerS makes the answer's body, and the request body as it is read, crawl at
	// that many bytes a second of wall time.
	ThrottleBytesPerS int64
	// Probability is the chance, from 0 to 1, that a matching request (past the first After) is
	// faulted; nil means 1. The draws come from the fake's seed (WithSeed, the -seed flag), so a
	// seeded fake faults the same matches in every run.
	Probability *float64
	// After lets the first After matching requests through untouched.
	After int
}

// ArmedFault is an armed fault as Faults lists it.
type ArmedFault struct {
	// ID names the fault for RemoveFault.
	ID string
	Fault
	// Matches counts the requests that matched the fault so far, those let through included.
	Matches int
	// Fired counts the requests the fault acted on.
	Fired int
}

// The fault resets.
const (
	ResetBeforeBody = "before_body"
	ResetAfterBody  = "after_body"
)

// MaxFaultLatency is the longest Latency a fault may have (faults.MaxLatency, which
// TestFaultBoundsAreTheEngines holds equal).
const MaxFaultLatency = 10 * time.Minute

// InjectFault arms f and returns its id. A request meets at most one fault: the first, in the
// order they were armed, that fires on it; a fault that lets a matching request through (After,
// Probability) passes it on to the next. Every fault counts the requests it matched.
// A refused fault is a validation_error *Error whose message names the control API's field
// (latency_ms for Latency, retry_after_s for RetryAfter), as POST /_fake/faults answers.
func (s *Server) InjectFault(f Fault) (_ string, err error) {
	defer apiError(&err)
	_, id, err := s.faults.Arm(faults.Fault(f))
	return id, err
}

// Faults lists the armed faults in the order they were armed, with their counts of matches.
func (s *Server) Faults() []ArmedFault {
	armed := s.faults.List()
	out := make([]ArmedFault, len(armed))
	for i, a := range armed {
		out[i] = ArmedFault{ID: a.ID, Fault: Fault(a.Fault), Matches: a.Matches, Fired: a.Fired}
	}
	return out
}

// RemoveFault disarms the fault with that id; a fault that is unknown or already spent is a
// not_found *Error.
func (s *Server) RemoveFault(id string) (err error) {
	defer apiError(&err)
	return s.faults.Remove(id)
}

// ClearFaults disarms every fault. The seeded patterns of faults armed after it start afresh,
// as if on a new fake.
func (s *Server) ClearFaults() { s.faults.Clear() }

// newFaults is the fake's list of faults, seeded as o says, whose ids newID mints.
func newFaults(o options, newID func() uuid.UUID) *faults.Faults {
	return faults.New(o.seed, o.seeded, newID)
}

// injectFaults applies the armed faults to the requests next serves, raising each that fires.
func (s *Server) injectFaults(next http.Handler) http.Handler {
	return s.faults.Inject(next, s.raiseFault)
}

// faultView is f as the control API spells it (faults.Spec), for the run report.
func faultView(f Fault) json.RawMessage { return faults.Spec(faults.Fault(f)) }
