package core

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/podqa/podqa-go/fakeserver/internal/webhooks/wire"
)

// ErrDeliveryNotFound answers a resend of a delivery no endpoint's log holds (unknown, of a
// deleted endpoint, or dropped from its endpoint's log of DeliveryLogSize).
func ErrDeliveryNotFound() *Error { return ErrNotFound("Webhook delivery") }

// ResendDelivery makes a new attempt of a delivery now, as the dashboard's Resend does: the
// same frozen body and webhook-id (a receiver deduplicates on it), a fresh webhook-timestamp
// and signature. The attempt is made at once, without the core's lock, and the delivery is
// returned once its outcome is recorded.
//
// The attempt is outside the retry ladder: it counts among Attempts (and Resends) but moves
// no queued retry and never counts towards disabling the endpoint. A success ends the
// delivery (succeeded, its queued retry dropped); a failure leaves a retrying delivery
// retrying on its schedule and marks any other abandoned, since no automatic attempt follows.
//
// An unknown delivery is 404; one whose endpoint is disabled, one whose first attempt is still
// queued and one with an attempt in flight are 409, and nothing changes.
func (c *Core) ResendDelivery(ctx context.Context, id uuid.UUID) (Delivery, error) {
	defer c.FlushNotices()
	now := c.clock.Now()
	c.mu.Lock()
	d, ep := c.deliveryLocked(id)
	var refusal error
	switch {
	case d == nil:
		refusal = ErrDeliveryNotFound()
	case !ep.Enabled:
		refusal = errorf(CodeConflict, "The endpoint is disabled; enable it before resending a delivery.")
	case d.inFlight:
		refusal = errorf(CodeConflict, "An attempt of this delivery is on its way; resend once it is recorded.")
	case slices.Contains(c.wh.queue, d):
		refusal = errorf(CodeConflict, "The delivery's first attempt is queued for the current instant; advance the clock or wait for it.")
	}
	if refusal != nil {
		c.mu.Unlock()
		return Delivery{}, refusal
	}
	d.inFlight = true
	attempt := c.attemptLocked(ep, d, now)
	send := c.wh.cfg.Send
	// A reset ends the attempt (and waits for it) like any of its state's.
	w := c.startLocked()
	c.mu.Unlock()

	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(w.ctx, cancel)
	out := sendOrFail(ctx, send, []wire.Attempt{attempt})
	stop()
	cancel()

	c.mu.Lock()
	defer c.mu.Unlock()
	defer w.wg.Done()
	if d.gen != c.gen {
		return Delivery{}, ErrDeliveryNotFound() // the fake was reset meanwhile
	}
	c.recordResendLocked(d, out[0], now)
	return cloneDelivery(d), nil
}

// deliveryLocked finds a delivery in its endpoint's log, with the endpoint; nil when no log
// holds it. The cost is one pass over every endpoint's log (at most DeliveryLogSize each).
func (c *Core) deliveryLocked(id uuid.UUID) (*Delivery, *Endpoint) {
	for _, ep := range c.wh.endpoints {
		for _, d := range ep.log {
			if d.ID == id {
				return d, ep
			}
		}
	}
	return nil, nil
}

// keepExchange keeps what the delivery log shows of an attempt: its headers and the start of
// the receiver's answer.
func (d *Delivery) keepExchange(out wire.Outcome) {
	d.Sent, d.Answer, d.AnswerCut = out.Sent, out.Answer, out.AnswerCut
}

// recordResendLocked applies the outcome of a resend (see ResendDelivery): a failed resend
// leaves a delivery on the ladder where it was, and abandons one that was not.
func (c *Core) recordResendLocked(d *Delivery, out wire.Outcome, at time.Time) {
	_, n, failed := c.attemptedLocked(d, out, at, true)
	if !failed {
		return
	}
	if _, queued := c.wh.retrying[d.ID]; queued && d.NextAttemptAt != nil {
		n.NextAttempt = *d.NextAttemptAt
		d.Status = DeliveryRetrying
	} else {
		d.Status, d.NextAttemptAt = DeliveryAbandoned, nil
	}
	c.noticeLocked(n)
}
