package fakeserver

import (
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/faults"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/webhooks"
)

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
