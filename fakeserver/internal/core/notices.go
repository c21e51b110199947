package core

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

// Notice kinds: what the core tells its observer (Deps.Observe).
const (
	// NoticeReportCreated: a report was made (Source, FileName, Series).
	NoticeReportCreated = "report.created"
	// NoticeReportStatus: a report moved to a status that is not final (Status).
	NoticeReportStatus = "report.status"
	// NoticeReportFinished: a report reached COMPLETE, FAILED or OUT_OF_QUOTA (Status, Reason;
	// Passed, Failures and Credits on COMPLETE; Balance and Credits on OUT_OF_QUOTA).
	NoticeReportFinished = "report.finished"
	// NoticeAttemptFailed: a webhook attempt failed (Endpoint, Delivery, EventType, Attempt, Err,
	// ResponseCode, Latency, NextAttempt; NextAttempt zero when the delivery was abandoned).
	NoticeAttemptFailed = "webhook.attempt_failed"
	// NoticeDelivered: a webhook attempt succeeded (Endpoint, Delivery, EventType, Attempt,
	// ResponseCode, Latency).
	NoticeDelivered = "webhook.delivered"
	// NoticeEndpointDisabled: an endpoint was disabled after deliveries kept failing
	// (Endpoint, URL, Attempt: the deliveries abandoned in a row).
	NoticeEndpointDisabled = "webhook.endpoint_disabled"
	// NoticeFeedCheckFailed: a check of a tracked feed failed (URL, Reason: fetch or ingest,
	// Err, Attempt: failures in a row).
	NoticeFeedCheckFailed = "feed.check_failed"
)

// Notice is something that happened in the core, told to the observer the fakeserver package
// gives it (Deps.Observe), which logs it and keeps it. Only the fields its kind names are set.
type Notice struct {
	Kind string
	// At is the core's clock when it happened.
	At        time.Time
	Workspace uuid.UUID
	Report    uuid.UUID
	Series    *uuid.UUID

	Status, Reason, Source, FileName string

	Passed   bool
	Failures int
	// Credits is what a completed report was charged, or what an OUT_OF_QUOTA one would cost.
	Credits int
	Balance float64

	Endpoint uuid.UUID
	// Delivery is the delivery an attempt belongs to.
	Delivery uuid.UUID
	// Latency is how long an attempt took on the real clock.
	Latency      time.Duration
	URL          string
	EventType    string
	Attempt      int
	ResponseCode int
	Err          string
	NextAttempt  time.Time
	// Resend marks an attempt made by ResendDelivery.
	Resend bool
}

// notices holds what was noticed under the core's lock until FlushNotices tells the observer,
// after the lock is released: the observer logs, and logging never holds the core's lock.
type notices struct {
	// queued counts the notices not yet told, so that a flush with none (every request's)
	// takes no lock.
	queued  atomic.Int64
	mu      sync.Mutex
	pending []Notice
	// telling is held while a batch is told, so that the observer hears notices in order.
	telling sync.Mutex
}

// noticeLocked queues n for the observer; nothing is built or kept without one.
func (c *Core) noticeLocked(n Notice) {
	if c.deps.Observe == nil {
		return
	}
	c.notices.mu.Lock()
	c.notices.pending = append(c.notices.pending, n)
	c.notices.queued.Add(1)
	c.notices.mu.Unlock()
}

// FlushNotices tells the observer every queued notice, in order. The core calls it after each
// change that may notice something, once its lock is released; adapters may call it too (it
// never takes the core's lock, so it is safe anywhere but inside the observer).
func (c *Core) FlushNotices() {
	if c.deps.Observe == nil || c.notices.queued.Load() == 0 {
		return
	}
	c.notices.telling.Lock()
	defer c.notices.telling.Unlock()
	for {
		c.notices.mu.Lock()
		batch := c.notices.pending
		c.notices.pending = nil
		c.notices.queued.Add(-int64(len(batch)))
		c.notices.mu.Unlock()
		if len(batch) == 0 {
			return
		}
		for _, n := range batch {
			c.deps.Observe(n)
		}
	}
}
