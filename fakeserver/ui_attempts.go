package fakeserver

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"time"
)

// attemptKey names the deliveries of one endpoint whose attempts the event record can tell
// apart: an event type about one report (each report's event goes once to each endpoint).
type attemptKey struct{ report, event string }

// attemptLog is the event record's attempts on one endpoint, by attemptKey, oldest first.
type attemptLog map[attemptKey][]Event

// attemptsOnEndpoint reads the event record's delivery attempts (failed and succeeded) on one
// endpoint: two passes over the bounded record for the whole page.
func (s *Server) attemptsOnEndpoint(endpointID string) attemptLog {
	log := attemptLog{}
	events := append(s.Events(EventFilter{Kind: EventDeliveryFailed}), s.Events(EventFilter{Kind: EventDeliverySucceeded})...)
	slices.SortStableFunc(events, func(a, b Event) int { return cmp.Compare(a.Seq, b.Seq) })
	for _, e := range events {
		if e.ReportID == "" || eventAttr(e, "endpoint_id") != endpointID {
			continue
		}
		k := attemptKey{e.ReportID, eventAttr(e, "event")}
		log[k] = append(log[k], e)
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

// reportOfDelivery is the id of the report a delivery's body is about (data.report.id), ""
// for a test delivery and for events about no report.
func reportOfDelivery(d WebhookDelivery) string {
	if d.Test {
		return ""
	}
	var body struct {
		Data struct {
			Report struct {
				ID string `json:"id"`
			} `json:"report"`
		} `json:"data"`
	}
	if json.Unmarshal(d.Body, &body) != nil {
		return ""
	}
	return body.Data.Report.ID
}

// attemptsOf is the timeline of a delivery's attempts: every attempt the event record still
// holds for it (a report's events), else the last attempt the delivery itself records; then
// the retry queued next, if any.
func (s *Server) attemptsOf(d WebhookDelivery, log attemptLog) []uiAttempt {
	var out []uiAttempt
	if report := reportOfDelivery(d); report != "" {
		for _, e := range log[attemptKey{report, d.EventType}] {
			if e.At.Before(d.CreatedAt) {
				continue
			}
			n, _ := strconv.Atoi(eventAttr(e, "attempt"))
			a := uiAttempt{N: n, At: e.At, Status: "failed", Code: eventAttr(e, "response_status"),
				Error: eventAttr(e, "error"), Latency: eventAttr(e, "latency")}
			if e.Kind == EventDeliverySucceeded {
				a.Status = "succeeded"
			}
			if next, err := time.Parse(time.RFC3339Nano, eventAttr(e, "next_attempt")); err == nil {
				a.Next = next
			}
			out = append(out, a)
		}
	}
	if len(out) < d.Attempts && (len(out) == 0 || out[len(out)-1].N < d.Attempts) {
		// The record has not got the last attempt (a test event, or dropped as the record
		// filled): show it from the delivery.
		a := uiAttempt{N: d.Attempts, At: d.LastAttemptAt, Status: "failed"}
		if d.Status == "succeeded" {
			a.Status = "succeeded"
		}
		if d.ResponseCode != nil {
			a.Code = strconv.Itoa(*d.ResponseCode)
		}
		if d.LastError != nil {
			a.Error = *d.LastError
		}
		out = append(out, a)
	}
	if !d.NextAttemptAt.IsZero() {
		out = append(out, uiAttempt{N: d.Attempts + 1, At: d.NextAttemptAt, Status: "queued", Queued: true})
	}
	return out
}
