package control

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/internal/apitime"
)

// The webhook calls of Settings and the emails: each a thin adapter of the core's operation
// (core.AddSettingsEndpoint, EndpointsOf, SwitchEndpoint, RemoveSettingsEndpoint,
// SendTestEventTo, DeliveryLog, ResendDeliveryNamed, EmailLog), which the Go API's methods
// (fakeserver's api_webhooks.go) adapt too.

// endpointJSON is an endpoint as the control API shows it (fakeserver.WebhookEndpoint).
type endpointJSON struct {
	ID        string   `json:"id"`
	Secret    string   `json:"secret,omitempty"`
	URL       string   `json:"url"`
	Events    []string `json:"events"`
	SeriesID  *string  `json:"series_id"`
	Enabled   bool     `json:"enabled"`
	Source    string   `json:"source"`
	CreatedAt string   `json:"created_at"`
}

func endpointJSONOf(ep core.Endpoint, secret string) endpointJSON {
	out := endpointJSON{
		ID: ep.ID.String(), Secret: secret, URL: ep.URL, Events: ep.Events, Enabled: ep.Enabled,
		Source: ep.Source(), CreatedAt: apitime.Format(ep.CreatedAt),
	}
	if ep.Series != nil {
		id := ep.Series.String()
		out.SeriesID = &id
	}
	return out
}

// deliveryJSON is a delivery as the control API shows it (fakeserver.WebhookDelivery).
type deliveryJSON struct {
	ID             string          `json:"id"`
	EndpointID     string          `json:"endpoint_id"`
	EventType      string          `json:"event_type"`
	WebhookID      string          `json:"webhook_id"`
	Attempts       int             `json:"attempts"`
	FailedAttempts int             `json:"failed_attempts"`
	Status         string          `json:"status"`
	ResponseCode   *int            `json:"response_code"`
	LastError      *string         `json:"last_error"`
	Test           bool            `json:"test"`
	CreatedAt      string          `json:"created_at"`
	LastAttemptAt  *string         `json:"last_attempt_at"`
	NextAttemptAt  *string         `json:"next_attempt_at"`
	Body           json.RawMessage `json:"body"`
	exchangeJSON
}

// exchangeJSON is what a delivery shows of its report and of its last attempt's exchange with
// the receiver.
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

func deliveryJSONOf(d core.Delivery) deliveryJSON {
	out := deliveryJSON{
		ID: d.ID.String(), EndpointID: d.Endpoint.String(), EventType: d.EventType, WebhookID: d.MessageID,
		Attempts: d.Attempts, FailedAttempts: d.FailedAttempts(), Status: d.Status, ResponseCode: d.ResponseCode,
		LastError: d.LastError, Test: d.Test, CreatedAt: apitime.Format(d.CreatedAt),
		LastAttemptAt: optionalTime(d.LastAttemptAt), NextAttemptAt: optionalTime(d.NextAttemptAt), Body: d.Body,
		exchangeJSON: exchangeJSON{Resends: d.Resends, RequestHeaders: []headerJSON{}, ResponseBodyTruncated: d.AnswerCut},
	}
	if d.Report != uuid.Nil {
		id := d.Report.String()
		out.ReportID = &id
	}
	for _, h := range d.Sent {
		out.RequestHeaders = append(out.RequestHeaders, headerJSON{Name: h.Name, Value: h.Value})
	}
	if d.Attempts > 0 && d.ResponseCode != nil {
		text := d.AnswerText()
		out.ResponseBody = &text
	}
	return out
}

// optionalTime is *t in the API's format, or nil (null) for no time.
func optionalTime(t *time.Time) *string {
	if t == nil || t.IsZero() {
		return nil
	}
	s := apitime.Format(*t)
	return &s
}

// emailJSON is an email as the control API shows it (fakeserver.Email).
type emailJSON struct {
	ID          string   `json:"id"`
	WorkspaceID string   `json:"workspace_id"`
	Kind        string   `json:"kind"`
	To          []string `json:"to"`
	Subject     string   `json:"subject"`
	Text        string   `json:"text"`
	SentAt      string   `json:"sent_at"`
}

func emailJSONOf(e core.Email) emailJSON {
	return emailJSON{ID: e.ID.String(), WorkspaceID: e.Workspace.String(), Kind: e.Kind, To: e.To, Subject: e.Subject, Text: e.Text, SentAt: apitime.Format(e.SentAt)}
}

// itemsJSON is {"items": [...]} with each item in its control API shape.
func itemsJSON[T, J any](items []T, view func(T) J) map[string][]J {
	out := make([]J, len(items))
	for i, it := range items {
		out[i] = view(it)
	}
	return map[string][]J{"items": out}
}

// ServeListDeliveries is GET /_fake/webhook-deliveries: Server.WebhookDeliveries over HTTP,
// newest first, each endpoint's 20 most recent (the delivery log of Settings), of one endpoint
// when endpoint_id names it.
func (a *API) ServeListDeliveries(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Has("endpoint_id") && q.Get("endpoint_id") == "" {
		httpmw.WriteError(w, core.ErrNotFound("Webhook endpoint"))
		return
	}
	ds, err := a.core.DeliveryLog(q.Get("endpoint_id"))
	httpmw.Respond(w, http.StatusOK, itemsJSON(ds, deliveryJSONOf), err)
}

// ServeCreateEndpoint is POST /_fake/workspaces/{id}/webhook-endpoints:
// Server.CreateWebhookEndpoint over HTTP, answering 201 with the endpoint and its secret.
func (a *API) ServeCreateEndpoint(w http.ResponseWriter, r *http.Request) {
	// fakeserver.WebhookEndpointSpec as sent.
	var spec struct {
		URL      string   `json:"url"`
		Events   []string `json:"events"`
		SeriesID string   `json:"series_id,omitempty"`
	}
	if !httpmw.DecodeBody(w, r, &spec) {
		return
	}
	ep, secret, err := a.core.AddSettingsEndpoint(r.Context(), httpmw.PathID(r, "id"), core.SettingsEndpoint(spec), a.checkURL)
	httpmw.Respond(w, http.StatusCreated, endpointJSONOf(ep, secret), err)
}

// checkURL is the fake's URL policy of webhook receivers (Deps.CheckWebhookURL).
func (a *API) checkURL(ctx context.Context, url string) error { return a.checkWebhookURL(ctx, url) }

// ServeListEndpoints is GET /_fake/workspaces/{id}/webhook-endpoints: Server.WebhookEndpoints
// over HTTP, without secrets.
func (a *API) ServeListEndpoints(w http.ResponseWriter, r *http.Request) {
	eps, err := a.core.EndpointsOf(httpmw.PathID(r, "id"))
	httpmw.Respond(w, http.StatusOK, itemsJSON(eps, func(ep core.Endpoint) endpointJSON { return endpointJSONOf(ep, "") }), err)
}

// ServePatchEndpoint is PATCH /_fake/webhook-endpoints/{id}: Server.SetWebhookEndpointEnabled
// over HTTP.
func (a *API) ServePatchEndpoint(w http.ResponseWriter, r *http.Request) {
	enabled, ok := httpmw.DecodeEnabled(w, r)
	if !ok {
		return
	}
	ep, err := a.core.SwitchEndpoint(httpmw.PathID(r, "id"), enabled)
	httpmw.Respond(w, http.StatusOK, endpointJSONOf(ep, ""), err)
}

// ServeDeleteEndpoint is DELETE /_fake/webhook-endpoints/{id}: Server.DeleteWebhookEndpoint
// over HTTP, answering 204.
func (a *API) ServeDeleteEndpoint(w http.ResponseWriter, r *http.Request) {
	if err := a.core.RemoveSettingsEndpoint(httpmw.PathID(r, "id")); err != nil {
		httpmw.WriteError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// ServeTestEvent is POST /_fake/webhook-endpoints/{id}/test: Server.SendTestEvent over HTTP,
// answering 201 with the delivery after its first attempt.
func (a *API) ServeTestEvent(w http.ResponseWriter, r *http.Request) {
	d, err := a.core.SendTestEventTo(r.Context(), httpmw.PathID(r, "id"))
	httpmw.Respond(w, http.StatusCreated, deliveryJSONOf(d), err)
}

// ServeResendDelivery is POST /_fake/webhook-deliveries/{id}/resend: Server.ResendDelivery over
// HTTP, answering 201 with the delivery after the new attempt.
func (a *API) ServeResendDelivery(w http.ResponseWriter, r *http.Request) {
	d, err := a.core.ResendDeliveryNamed(r.Context(), httpmw.PathID(r, "id"))
	httpmw.Respond(w, http.StatusCreated, deliveryJSONOf(d), err)
}

// ServeListEmails is GET /_fake/emails: Server.Emails over HTTP, newest first, of one workspace
// when workspace_id names it.
func (a *API) ServeListEmails(w http.ResponseWriter, r *http.Request) {
	es, err := a.core.EmailLog(r.URL.Query().Get("workspace_id"))
	httpmw.Respond(w, http.StatusOK, itemsJSON(es, emailJSONOf), err)
}
