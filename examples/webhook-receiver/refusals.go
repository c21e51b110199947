package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/podqa/podqa-go/webhook"
)

// logRefusals returns the handler's error hook: one line on w for each delivery answered with
// an error status, saying why, so that whoever runs the receiver sees what the sender only sees
// as a status. A timestamp outside the tolerance says by how much and the likeliest cause.
func logRefusals(w io.Writer) func(r *http.Request, status int, err error) {
	return func(r *http.Request, status int, err error) {
		id := r.Header.Get(webhook.HeaderID)
		if id == "" {
			id = "without a webhook-id"
		}
		line := fmt.Sprintf("webhook-receiver: delivery %s answered %d: %v", id, status, err)
		if errors.Is(err, webhook.ErrTimestampTooOld) || errors.Is(err, webhook.ErrTimestampTooNew) {
			line += timestampHint(r.Header.Get(webhook.HeaderTimestamp), time.Now())
		}
		fmt.Fprintln(w, line) // one write a line: lines from concurrent requests stay whole
	}
}

// timestampHint says how far a refused webhook-timestamp is from this machine's clock and what
// usually causes it: a podqa fake whose manual clock moved stamps its own time.
func timestampHint(header string, now time.Time) string {
	sec, err := strconv.ParseInt(header, 10, 64)
	if err != nil {
		return ""
	}
	skew := time.Duration(sec-now.Unix()) * time.Second
	dir := "ahead of"
	if skew < 0 {
		dir = "behind"
	}
	return fmt.Sprintf(" (%s %s this machine's clock: a podqa fake on a manual clock stamps its own time; "+
		"start it with -webhook-clock wall, in Go WithWebhookClock(fakeserver.WebhookClockWall))", skew.Abs(), dir)
}
