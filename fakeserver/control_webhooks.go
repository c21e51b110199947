package fakeserver

import (
	"net/http"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// handleListDeliveries lists webhook deliveries, newest first: each endpoint's 20 most recent
// (the delivery log of Settings), of one endpoint when endpoint_id names it.
func (s *Server) handleListDeliveries(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Has("endpoint_id") && q.Get("endpoint_id") == "" {
		writeError(w, core.ErrNotFound("Webhook endpoint"))
		return
	}
	items, err := s.WebhookDeliveries(q.Get("endpoint_id"))
	respond(w, http.StatusOK, map[string][]WebhookDelivery{"items": items}, err)
}

func (s *Server) handleCreateEndpoint(w http.ResponseWriter, r *http.Request) {
	var spec WebhookEndpointSpec
	if !decodeBody(w, r, &spec) {
		return
	}
	ep, err := s.CreateWebhookEndpoint(r.Context(), r.PathValue("id"), spec)
	respond(w, http.StatusCreated, ep, err)
}

func (s *Server) handleListEndpoints(w http.ResponseWriter, r *http.Request) {
	eps, err := s.WebhookEndpoints(r.PathValue("id"))
	respond(w, http.StatusOK, map[string][]WebhookEndpoint{"items": eps}, err)
}

func (s *Server) handlePatchEndpoint(w http.ResponseWriter, r *http.Request) {
	enabled, ok := decodeEnabled(w, r)
	if !ok {
		return
	}
	ep, err := s.SetWebhookEndpointEnabled(r.PathValue("id"), enabled)
	respond(w, http.StatusOK, ep, err)
}

func (s *Server) handleDeleteEndpoint(w http.ResponseWriter, r *http.Request) {
	if err := s.DeleteWebhookEndpoint(r.PathValue("id")); err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleTestEvent(w http.ResponseWriter, r *http.Request) {
	d, err := s.SendTestEvent(r.Context(), r.PathValue("id"))
	respond(w, http.StatusCreated, d, err)
}

func (s *Server) handleListEmails(w http.ResponseWriter, r *http.Request) {
	es, err := s.Emails(r.URL.Query().Get("workspace_id"))
	respond(w, http.StatusOK, map[string][]Email{"items": es}, err)
}
