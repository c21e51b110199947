package fakeserver

import (
	"net/http"

	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// handleResendDelivery is POST /_fake/webhook-deliveries/{id}/resend: ResendDelivery, answered
// 201 with the delivery after the new attempt.
func (s *Server) handleResendDelivery(w http.ResponseWriter, r *http.Request) {
	d, err := s.ResendDelivery(r.Context(), httpmw.PathID(r, "id"))
	respond(w, http.StatusCreated, deliveryJSONOf(d), err)
}

// exchangeJSON is what a delivery's control API shape shows of its report and of its last
// attempt's exchange with the receiver.
type exchangeJSON struct {
	ReportID              *string      `json:"report_id"`
	Resends               int          `json:"resends"`
	RequestHeaders        []headerJSON `json:"request_headers"`
	ResponseBody          *string      `json:"response_body"`
	ResponseBodyTruncated bool         `json:"response_body_truncated"`
}

type headerJSON struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func exchangeJSONOf(d WebhookDelivery) exchangeJSON {
	out := exchangeJSON{ReportID: nullable(d.ReportID), Resends: d.Resends, RequestHeaders: []headerJSON{},
		ResponseBodyTruncated: d.ResponseBodyTruncated}
	for _, h := range d.RequestHeaders {
		out.RequestHeaders = append(out.RequestHeaders, headerJSON(h))
	}
	if d.Attempts > 0 && d.ResponseCode != nil {
		out.ResponseBody = &d.ResponseBody
	}
	return out
}
