package dashboard

import (
	"cmp"
	"slices"
	"strconv"
	"time"
)

// attemptLog is the event record's attempts on one endpoint, by delivery id, oldest first.
type attemptLog map[string][]Event

// attemptsOnEndpoint reads the event record's delivery attempts (failed and succeeded) on one
// endpoint: two passes over the bounded record for the whole page.
func (ui *UI) attemptsOnEndpoint(endpointID string) attemptLog {
	log := attemptLog{}
	events := append(ui.deps.Events(EventFilter{Kind: ui.deps.DeliveryFailedKind}), ui.deps.Events(EventFilter{Kind: ui.deps.DeliverySucceededKind})...)
	slices.SortStableFunc(events, func(a, b Event) int { return cmp.Compare(a.Seq, b.Seq) })
	for _, e := range events {
		if eventAttr(e, "endpoint_id") != endpointID {
			continue
		}
		if id := eventAttr(e, "delivery_id"); id != "" {
			log[id] = append(log[id], e)
		}
	}
	return log
}

// eventAttr is the value of an event's attribute key as text, "" when absent.
func eventAttr(e Event, key string) string {
	for _, a := range e.Attrs {
		if a.Key == key {
			return a.Value.Resolve().String()
		}
	}
	return ""
}

// attemptsOf is the timeline of a delivery's attempts: every attempt the event record still
// holds for it (by its delivery id), else the last attempt the delivery itself records; then
// the retry queued next, if any.
func attemptsOf(d Delivery, log attemptLog, succeededKind string) []attempt {
	var out []attempt
	for _, e := range log[d.ID] {
		n, _ := strconv.Atoi(eventAttr(e, "attempt"))
		a := attempt{N: n, At: e.At, Status: "failed", Resend: eventAttr(e, "resend") == "true"}
		a.Code, a.Latency, a.Error = attemptLine(eventAttr(e, "response_status"), eventAttr(e, "latency"), eventAttr(e, "error"))
		if e.Kind == succeededKind {
			a.Status = "succeeded"
		}
		if next, err := time.Parse(time.RFC3339Nano, eventAttr(e, "next_attempt")); err == nil {
			a.Next = next
		}
		out = append(out, a)
	}
	if len(out) < d.Attempts && (len(out) == 0 || out[len(out)-1].N < d.Attempts) {
		// The record has not got the last attempt (a test event, or dropped as the record
		// filled): show it from the delivery.
		a := attempt{N: d.Attempts, At: d.LastAttemptAt, Status: "failed"}
		if d.Status == "succeeded" {
			a.Status = "succeeded"
		}
		if d.ResponseCode != nil {
			a.Code = strconv.Itoa(*d.ResponseCode)
		}
		if d.LastError != nil {
			a.Error = *d.LastError
		}
		a.Code, a.Latency, a.Error = attemptLine(a.Code, a.Latency, a.Error)
		out = append(out, a)
	}
	// An attempt's "next attempt" is the retry it queued: past once a later attempt was made,
	// and void once the delivery succeeded or was given up. Only the last attempt of a delivery
	// still retrying keeps it.
	for i := range out {
		if i < len(out)-1 || d.NextAttemptAt.IsZero() {
			out[i].Next = time.Time{}
		}
	}
	if !d.NextAttemptAt.IsZero() {
		out = append(out, attempt{N: d.Attempts + 1, At: d.NextAttemptAt, Status: "queued", Queued: true})
	}
	return out
}
