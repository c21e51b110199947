package fakeserver

import (
	"strconv"
)

// attemptsOf is the timeline of a delivery's attempts as far as the delivery records it: its
// last attempt (status code or error) and the retry queued next.
func (s *Server) attemptsOf(d WebhookDelivery) []uiAttempt {
	var out []uiAttempt
	if d.Attempts > 0 {
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
