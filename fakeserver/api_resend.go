package fakeserver

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/webhooks"
)

// MaxWebhookAnswer is how much of a receiver's answer body a delivery keeps and shows: the
// first 2 KiB.
const MaxWebhookAnswer = webhooks.MaxAnswerKept

// WebhookHeader is one request header of a delivery attempt as sent.
type WebhookHeader struct {
	Name, Value string
}

// deliveryExchange fills in what a delivery shows of its last attempt and its report.
func deliveryExchange(v *WebhookDelivery, d core.Delivery) {
	if d.Report != uuid.Nil {
		v.ReportID = d.Report.String()
	}
	v.Resends = d.Resends
	for _, h := range d.Sent {
		v.RequestHeaders = append(v.RequestHeaders, WebhookHeader{Name: h.Name, Value: h.Value})
	}
	// Cut at MaxWebhookAnswer bytes, an answer may end inside a character.
	v.ResponseBody, v.ResponseBodyTruncated = strings.ToValidUTF8(string(d.Answer), "\uFFFD"), d.AnswerCut
}

// ResendDelivery makes a new attempt of a delivery now, as the dashboard's Resend button does,
// and returns the delivery once the attempt's outcome is recorded: the same body and
// webhook-id, a fresh webhook-timestamp and signature. The attempt is outside the retry
// ladder: a success ends the delivery (its queued retry dropped); a failure leaves a retrying
// delivery on its schedule and any other abandoned. It never counts towards disabling the
// endpoint.
//
// An unknown delivery (or one no longer in its endpoint's log of 20) is 404 not_found; a
// delivery of a disabled endpoint, one whose first attempt is still queued and one with an
// attempt on its way are 409 conflict, and nothing changes.
func (s *Server) ResendDelivery(ctx context.Context, deliveryID string) (_ WebhookDelivery, err error) {
	defer apiError(&err)
	id, err := parseID(deliveryID, "Webhook delivery")
	if err != nil {
		return WebhookDelivery{}, err
	}
	d, err := s.core.ResendDelivery(ctx, id)
	if err != nil {
		return WebhookDelivery{}, err
	}
	return deliveryView(d), nil
}
