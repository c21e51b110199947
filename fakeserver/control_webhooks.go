package fakeserver

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/internal/apitime"
)

// endpointJSON is a WebhookEndpoint as the control API shows it.
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

func endpointJSONOf(ep WebhookEndpoint) endpointJSON {
	return endpointJSON{
		ID: ep.ID, Secret: ep.Secret, URL: ep.URL, Events: ep.Events, SeriesID: nullable(ep.SeriesID),
		Enabled: ep.Enabled, Source: ep.Source, CreatedAt: apitime.Format(ep.CreatedAt),
	}
}

// deliveryJSON is a WebhookDelivery as the control API shows it.
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

func deliveryJSONOf(d WebhookDelivery) deliveryJSON {
	return deliveryJSON{
		ID: d.ID, EndpointID: d.EndpointID, EventType: d.EventType, WebhookID: d.WebhookID,
		Attempts: d.Attempts, FailedAttempts: d.FailedAttempts, Status: d.Status, ResponseCode: d.ResponseCode,
		LastError: d.LastError, Test: d.Test, CreatedAt: apitime.Format(d.CreatedAt),
		LastAttemptAt: optionalTime(d.LastAttemptAt), NextAttemptAt: optionalTime(d.NextAttemptAt), Body: d.Body,
		exchangeJSON: exchangeJSONOf(d),
	}
}

// optionalTime is t in the API's format, or nil (null) for the zero time.
func optionalTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := apitime.Format(t)
	return &s
}

// emailJSON is an Email as the control API shows it.
type emailJSON struct {
	ID          string   `json:"id"`
	WorkspaceID string   `json:"workspace_id"`
	Kind        string   `json:"kind"`
	To          []string `json:"to"`
	Subject     string   `json:"subject"`
	Text        string   `json:"text"`
	SentAt      string   `json:"sent_at"`
}

// jsonList answers {"items": [...]} with each item in its control API shape.
func jsonList[T, J any](items []T, view func(T) J) map[string][]J {
	out := make([]J, len(items))
	for i, it := range items {
		out[i] = view(it)
	}
	return map[string][]J{"items": out}
}

// handleListDeliveries lists webhook deliveries, newest first: each endpoint's 20 most recent
// (the delivery log of Settings), of one endpoint when endpoint_id names it.
func (s *Server) handleListDeliveries(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Has("endpoint_id") && q.Get("endpoint_id") == "" {
		writeError(w, core.ErrNotFound("Webhook endpoint"))
		return
	}
	items, err := s.WebhookDeliveries(q.Get("endpoint_id"))
	respond(w, http.StatusOK, jsonList(items, deliveryJSONOf), err)
}

func (s *Server) handleCreateEndpoint(w http.ResponseWriter, r *http.Request) {
	var spec WebhookEndpointSpec
	if !decodeBody(w, r, &spec) {
		return
	}
	ep, err := s.CreateWebhookEndpoint(r.Context(), httpmw.PathID(r, "id"), spec)
	respond(w, http.StatusCreated, endpointJSONOf(ep), err)
}

func (s *Server) handleListEndpoints(w http.ResponseWriter, r *http.Request) {
	eps, err := s.WebhookEndpoints(httpmw.PathID(r, "id"))
	respond(w, http.StatusOK, jsonList(eps, endpointJSONOf), err)
}

func (s *Server) handlePatchEndpoint(w http.ResponseWriter, r *http.Request) {
	enabled, ok := decodeEnabled(w, r)
	if !ok {
		return
	}
	ep, err := s.SetWebhookEndpointEnabled(httpmw.PathID(r, "id"), enabled)
	respond(w, http.StatusOK, endpointJSONOf(ep), err)
}

func (s *Server) handleDeleteEndpoint(w http.ResponseWriter, r *http.Request) {
	if err := s.DeleteWebhookEndpoint(httpmw.PathID(r, "id")); err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleTestEvent(w http.ResponseWriter, r *http.Request) {
	d, err := s.SendTestEvent(r.Context(), httpmw.PathID(r, "id"))
	respond(w, http.StatusCreated, deliveryJSONOf(d), err)
}

func (s *Server) handleListEmails(w http.ResponseWriter, r *http.Request) {
	es, err := s.Emails(r.URL.Query().Get("workspace_id"))
	respond(w, http.StatusOK, jsonList(es, func(e Email) emailJSON {
		return emailJSON{ID: e.ID, WorkspaceID: e.WorkspaceID, Kind: e.Kind, To: e.To, Subject: e.Subject, Text: e.Text, SentAt: apitime.Format(e.SentAt)}
	}), err)
}
