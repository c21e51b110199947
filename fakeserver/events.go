package fakeserver

import (
	"context"
	"log/slog"
	"sync"
	"time"
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
