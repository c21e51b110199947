package fakeserver

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/faults"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/webhooks"
)

// Event kinds: what an Event is about. Every event the fake raises has one of these.
const (
	// EventReportCreated: a report was created (attrs: source, file name).
	EventReportCreated = "report.created"
	// EventReportStatus: a report moved to a status that is not final.
	EventReportStatus = "report.status"
	// EventReportFinished: a report reached COMPLETE, FAILED or OUT_OF_QUOTA (attrs: the
	// reason of a failure).
	EventReportFinished = "report.finished"
	// EventDeliveryFailed: a webhook delivery attempt failed (attrs: endpoint, event, attempt,
	// error, next attempt).
	EventDeliveryFailed = "webhook.attempt_failed"
	// EventDeliverySucceeded: a webhook delivery attempt succeeded (DEBUG).
	EventDeliverySucceeded = "webhook.delivered"
	// EventEndpointDisabled: a webhook endpoint was disabled after deliveries kept failing.
	EventEndpointDisabled = "webhook.endpoint_disabled"
	// EventFeedCheckFailed: a periodic check of a tracked feed failed.
	EventFeedCheckFailed = "feed.check_failed"
	// EventFaultFired: an armed fault answered a request.
	EventFaultFired = "fault.fired"
	// EventRequestRefused: a request was refused for its credentials or by a limit (attrs: the
	// reason or bucket, the key prefix, when the bucket refills).
	EventRequestRefused = "request.refused"
	// EventURLRefused: a webhook or feed URL was refused (attrs: why, and what allows it).
	EventURLRefused = "url.refused"
	// EventClockAdvanced: the manual clock was moved (attrs: by, to).
	EventClockAdvanced = "clock.advanced"
	// EventWorkspaceCreated: a workspace was created.
	EventWorkspaceCreated = "workspace.created"
	// EventReset: the fake was reset (the record is emptied first, so this is its first event).
	EventReset = "fake.reset"
	// EventEndpointSubscribed: a webhook endpoint was created over REST.
	EventEndpointSubscribed = "webhook.subscribed"
	// EventRequest: a request was answered (DEBUG; the control API's at INFO). Requests are
	// logged, not kept in the record: the request journal keeps them.
	EventRequest = "request"
)

// DefaultEventRecordSize is how many events the fake keeps when WithEventRecordSize is not
// given; the oldest go first.
const DefaultEventRecordSize = 10_000

// MaxEventRecordSize is the largest event record WithEventRecordSize accepts.
const MaxEventRecordSize = 1_000_000

// Event is one thing that happened in the fake, as its log line says it and as the bounded
// event record keeps it.
type Event struct {
	// Seq numbers events from 1 in the order they were raised; a reset does not restart it, so
	// a reader can ask for what came after the last event it saw (EventFilter.AfterSeq).
	Seq uint64
	// At is the fake clock's time when the event was raised.
	At time.Time
	// Level is the level of its log line.
	Level slog.Level
	// Kind is one of the Event… constants.
	Kind    string
	Message string
	// WorkspaceID and ReportID are "" when the event is about no workspace or report.
	WorkspaceID, ReportID string
	// Attrs are the other attributes of the log line.
	Attrs []slog.Attr
}

// EventFilter selects events of the record. Zero fields select everything.
type EventFilter struct {
	Kind, WorkspaceID, ReportID string
	// Since keeps events at or after this fake-clock time.
	Since time.Time
	// AfterSeq keeps events whose Seq is above it.
	AfterSeq uint64
	// Limit keeps the newest Limit matching events; 0 keeps all the record holds.
	Limit int
}

// Events returns the events of the bounded event record that match f, oldest first.
func (s *Server) Events(f EventFilter) []Event {
	s.core.FlushNotices()
	return s.events.list(f)
}

// eventRecord is the one place an event is raised: it writes the event's log line and keeps
// the event in a ring of the most recent ones. It has its own lock: raising an event never
// takes the core's.
type eventRecord struct {
	log  *slog.Logger
	size int // how many events the ring keeps; 0 keeps none

	mu   sync.Mutex
	seq  uint64
	ring []Event // grows to size, then next is where the next event goes (the oldest)
	next int
}

func newEventRecord(log *slog.Logger, size int) *eventRecord {
	return &eventRecord{log: log, size: size}
}

// keeps says whether the record keeps events at all.
func (r *eventRecord) keeps() bool { return r.size > 0 }

// enabled says whether an event of level would be logged, so that events the record does not
// keep (requests) are skipped before any attribute is built.
func (r *eventRecord) enabled(level slog.Level) bool {
	return r.log.Enabled(context.Background(), level)
}

// raise logs an event at level, with the ids as attributes, and keeps it in the record.
func (r *eventRecord) raise(at time.Time, level slog.Level, kind, msg, workspaceID, reportID string, attrs ...slog.Attr) {
	if r.enabled(level) {
		all := make([]slog.Attr, 0, len(attrs)+3)
		all = append(all, slog.String("kind", kind))
		if workspaceID != "" {
			all = append(all, slog.String("workspace_id", workspaceID))
		}
		if reportID != "" {
			all = append(all, slog.String("report_id", reportID))
		}
		all = append(all, attrs...)
		r.log.LogAttrs(context.Background(), level, msg, all...)
	}
	r.keep(Event{At: at, Level: level, Kind: kind, Message: msg, WorkspaceID: workspaceID, ReportID: reportID, Attrs: attrs})
}

func (r *eventRecord) keep(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	e.Seq = r.seq
	switch {
	case r.size == 0:
	case len(r.ring) < r.size:
		r.ring = append(r.ring, e)
	default:
		r.ring[r.next] = e
		r.next = (r.next + 1) % r.size
	}
}

// clear empties the record (a reset); Seq goes on counting.
func (r *eventRecord) clear() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ring, r.next = nil, 0
}

func (r *eventRecord) list(f EventFilter) []Event {
	r.mu.Lock()
	ordered := make([]Event, 0, len(r.ring))
	ordered = append(ordered, r.ring[r.next:]...)
	ordered = append(ordered, r.ring[:r.next]...)
	r.mu.Unlock()
	out := ordered[:0]
	for _, e := range ordered {
		if (f.Kind == "" || e.Kind == f.Kind) &&
			(f.WorkspaceID == "" || e.WorkspaceID == f.WorkspaceID) &&
			(f.ReportID == "" || e.ReportID == f.ReportID) &&
			!e.At.Before(f.Since) && e.Seq > f.AfterSeq {
			out = append(out, e)
		}
	}
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	return out
}

// MaxEventScan is how many events of the record one page of EventPage reads at most: a page
// of a rare kind may hold fewer than its limit (even none) and still have a next cursor, so
// that a page costs the same whatever the record holds.
const MaxEventScan = 10_000

// page reads the record after the event numbered afterSeq, oldest first: the events of kind
// and reportID ("" for any) until limit of them or MaxEventScan read. It returns them, the
// Seq of the last event read, how many it read, and whether more follow it. Seqs in the ring are consecutive,
// so the first event to read is found by arithmetic, not by a walk.
func (r *eventRecord) page(kind, reportID string, afterSeq uint64, limit int) (out []Event, last uint64, read int, more bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.ring)
	last = afterSeq
	if n == 0 {
		return nil, last, 0, false
	}
	oldest := r.seq - uint64(n) + 1
	skip := 0
	if afterSeq >= oldest {
		skip = int(min(afterSeq-oldest+1, uint64(n)))
	}
	start := 0
	if n == r.size {
		start = r.next // a full ring's oldest event is where the next one goes
	}
	for i := skip; i < n; i++ {
		if len(out) == limit || read == MaxEventScan {
			return out, last, read, true
		}
		e := r.ring[(start+i)%n]
		read++
		last = e.Seq
		if (kind == "" || e.Kind == kind) && (reportID == "" || e.ReportID == reportID) {
			out = append(out, e)
		}
	}
	return out, last, read, false
}

// eventKinds are the kinds the events page offers as a filter.
var eventKinds = []string{
	EventReportCreated, EventReportStatus, EventReportFinished, EventDeliveryFailed, EventDeliverySucceeded,
	EventEndpointDisabled, EventFeedCheckFailed, EventFaultFired, EventRequestRefused, EventURLRefused,
	EventClockAdvanced, EventWorkspaceCreated, EventReset,
}

// lastSeq is the Seq of the newest event raised, 0 before the first: a cheap sign that the
// fake changed, for the dashboard's poll.
func (r *eventRecord) lastSeq() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}

// This file maps what happens in the fake to events (events.go): the core's notices, refused
// credentials and limits, faults, clock moves and requests. Each event is raised once, here,
// and names ids and prefixes, never a key, token, secret or signature.

func idString(id uuid.UUID) string {
	if id == uuid.Nil {
		return ""
	}
	return id.String()
}

// latencyAttrs are a webhook attempt's latency on the real clock, as a duration and in
// milliseconds, like a request's duration.
func latencyAttrs(d time.Duration) []slog.Attr {
	return []slog.Attr{slog.String("latency", d.Round(time.Microsecond).String()), slog.Float64("latency_ms", float64(d)/float64(time.Millisecond))}
}

// fakeTime formats an instant of the fake's clock for a log line.
func fakeTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// observe hears the core's notices (core.Deps.Observe), outside the core's lock.
func (s *Server) observe(n core.Notice) {
	ws, report := idString(n.Workspace), idString(n.Report)
	series := func(attrs []slog.Attr) []slog.Attr {
		if n.Series != nil {
			attrs = append(attrs, slog.String("series_id", n.Series.String()))
		}
		return attrs
	}
	switch n.Kind {
	case core.NoticeReportCreated:
		s.events.raise(n.At, slog.LevelInfo, EventReportCreated, "report created", ws, report,
			series([]slog.Attr{slog.String("source", n.Source), slog.String("file_name", n.FileName)})...)
	case core.NoticeReportStatus:
		s.events.raise(n.At, slog.LevelInfo, EventReportStatus, "report status", ws, report,
			slog.String("status", n.Status), slog.String("at", fakeTime(n.At)))
	case core.NoticeReportFinished:
		switch n.Status {
		case core.StatusComplete:
			s.events.raise(n.At, slog.LevelInfo, EventReportFinished, "report complete", ws, report,
				slog.String("status", n.Status), slog.String("at", fakeTime(n.At)), slog.Bool("passed", n.Passed),
				slog.Int("required_failures", n.Failures), slog.Int("credits_charged", n.Credits))
		case core.StatusOutOfQuota:
			s.events.raise(n.At, slog.LevelWarn, EventReportFinished, "report out of quota", ws, report,
				slog.String("status", n.Status), slog.String("at", fakeTime(n.At)), slog.Float64("balance", n.Balance),
				slog.Int("cost", n.Credits), slog.String("reason", n.Reason))
		default:
			s.events.raise(n.At, slog.LevelWarn, EventReportFinished, "report failed", ws, report,
				slog.String("status", n.Status), slog.String("at", fakeTime(n.At)), slog.String("reason", n.Reason))
		}
	case core.NoticeAttemptFailed:
		attrs := []slog.Attr{
			slog.String("endpoint_id", n.Endpoint.String()), slog.String("delivery_id", n.Delivery.String()),
			slog.String("url", n.URL), slog.String("event", n.EventType),
			slog.Int("attempt", n.Attempt), slog.String("error", n.Err),
		}
		if n.Latency > 0 {
			attrs = append(attrs, latencyAttrs(n.Latency)...)
		}
		if n.ResponseCode != 0 {
			attrs = append(attrs, slog.Int("response_status", n.ResponseCode))
		}
		if n.Resend {
			attrs = append(attrs, slog.Bool("resend", true))
		}
		if n.NextAttempt.IsZero() {
			attrs = append(attrs, slog.String("next_attempt", "none: abandoned"))
		} else {
			attrs = append(attrs, slog.String("next_attempt", fakeTime(n.NextAttempt)))
		}
		s.events.raise(n.At, slog.LevelWarn, EventDeliveryFailed, "webhook attempt failed", ws, report, attrs...)
	case core.NoticeDelivered:
		if !s.events.keeps() && !s.events.enabled(slog.LevelDebug) {
			return
		}
		attrs := append([]slog.Attr{slog.String("endpoint_id", n.Endpoint.String()), slog.String("delivery_id", n.Delivery.String()),
			slog.String("event", n.EventType), slog.Int("attempt", n.Attempt), slog.Int("response_status", n.ResponseCode)},
			latencyAttrs(n.Latency)...)
		if n.Resend {
			attrs = append(attrs, slog.Bool("resend", true))
		}
		s.events.raise(n.At, slog.LevelDebug, EventDeliverySucceeded, "webhook delivered", ws, report, attrs...)
	case core.NoticeEndpointDisabled:
		s.events.raise(n.At, slog.LevelWarn, EventEndpointDisabled, "webhook endpoint disabled", ws, "",
			slog.String("endpoint_id", n.Endpoint.String()), slog.String("url", n.URL),
			slog.Int("abandoned_in_a_row", n.Attempt))
	case core.NoticeFeedCheckFailed:
		s.events.raise(n.At, slog.LevelWarn, EventFeedCheckFailed, "feed check failed", ws, "",
			series([]slog.Attr{slog.String("feed_url", n.URL), slog.String("failure", n.Reason),
				slog.String("error", n.Err), slog.Int("failures_in_a_row", n.Attempt)})...)
	}
}

// enter lets a request in through one of the core's doors and raises the refusal, if any: for
// a credential, why (unknown, disabled, malformed…) and the key's prefix; for a limit, the
// bucket, whose it is and when it refills on the fake's clock.
func (s *Server) enter(r *http.Request, door core.Door) (core.Principal, error) {
	p, err := s.core.Enter(httpmw.Presented(r), door)
	if err == nil {
		if s.admitted != nil {
			s.admitted(r)
		}
		return p, nil
	}
	var cred *core.CredentialRefusal
	var limit *core.LimitRefusal
	switch {
	case errors.As(err, &limit):
		attrs := []slog.Attr{
			slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", http.StatusTooManyRequests),
			slog.String("bucket", string(limit.Bucket)), slog.String("subject", limit.Subject), slog.Int("limit", limit.Limit),
			slog.String("window", limit.Window.String()), slog.String("refills_at", fakeTime(limit.RefillsAt)),
		}
		if limit.Cause != nil {
			attrs = append(attrs, slog.String("credential", string(limit.Cause.Reason)))
			if limit.Cause.MaskedKey != "" {
				attrs = append(attrs, slog.String("key_prefix", limit.Cause.MaskedKey))
			}
		}
		s.events.raise(limit.At, slog.LevelWarn, EventRequestRefused, "request refused by a rate limit", "", "", attrs...)
	case errors.As(err, &cred):
		attrs := []slog.Attr{
			slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", http.StatusUnauthorized),
			slog.String("credential", string(cred.Reason)),
		}
		if cred.MaskedKey != "" {
			attrs = append(attrs, slog.String("key_prefix", cred.MaskedKey))
		}
		if cred.KeyID != uuid.Nil {
			attrs = append(attrs, slog.String("key_id", cred.KeyID.String()))
		}
		if cred.Session {
			attrs = append(attrs, slog.Bool("session", true))
		}
		s.events.raise(s.clock.Now(), slog.LevelWarn, EventRequestRefused, "request refused: credentials", "", "", attrs...)
	}
	return p, err
}

// raiseRefusedURL raises the refusal of a feed or audio URL whose host is an internal address
// (other failures to fetch are the caller's to report); the reason names the way out.
func (s *Server) raiseRefusedURL(err error, msg, url string) {
	var private *webhooks.RefusedAddressError
	if errors.As(err, &private) {
		s.events.raise(s.clock.Now(), slog.LevelWarn, EventURLRefused, msg, "", "",
			slog.String("url", url), slog.String("reason", private.Error()))
	}
}

// raiseFault raises a fault that fired on a request.
func (s *Server) raiseFault(r *http.Request, fire *faults.Firing) {
	if s.events == nil {
		return // a bare Server of the fault tests: no clock, no record
	}
	attrs := []slog.Attr{slog.String("fault_id", fire.ID), slog.String("method", r.Method), slog.String("path", r.URL.Path)}
	if fire.Status != 0 {
		attrs = append(attrs, slog.Int("answer_status", fire.Status))
	}
	if fire.Reset != "" {
		attrs = append(attrs, slog.String("reset", fire.Reset))
	}
	if fire.Delay > 0 {
		attrs = append(attrs, slog.String("latency", fire.Delay.String()))
	}
	if fire.TruncateAfterBytes != nil {
		attrs = append(attrs, slog.Int64("truncate_after_bytes", *fire.TruncateAfterBytes))
	}
	if fire.ThrottleBytesPerS > 0 {
		attrs = append(attrs, slog.Int64("throttle_bytes_per_s", fire.ThrottleBytesPerS))
	}
	s.events.raise(s.clock.Now(), slog.LevelInfo, EventFaultFired, "fault fired", "", "", attrs...)
}

// raiseRequest logs one request at level (DEBUG for the APIs, INFO for the control API), with
// its wall-clock duration both as a Go duration and in milliseconds. Requests are not kept in
// the event record (the journal keeps them), so nothing is built when the level is off.
func (s *Server) raiseRequest(r *http.Request, level slog.Level, status int, took time.Duration) {
	if !s.events.enabled(level) {
		return
	}
	s.log.LogAttrs(r.Context(), level, "request", slog.String("kind", EventRequest),
		slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", status),
		slog.String("duration", took.String()), slog.Float64("duration_ms", float64(took)/float64(time.Millisecond)))
}
