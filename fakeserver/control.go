package fakeserver

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/internal/apitime"
)

// WorkspaceSpec describes a workspace to create. Plan settings left nil take the free plan's:
// 1,200 credits a month and three shows.
type WorkspaceSpec struct {
	// Type is "personal" or "organisation".
	Type            string   `json:"type"`
	Name            string   `json:"name"`
	PlanAllowance   *float64 `json:"plan_allowance,omitempty"`
	PodcastLimit    *int     `json:"podcast_limit,omitempty"`
	ChargingEnabled *bool    `json:"charging_enabled,omitempty"`
}

// Workspace identifies a created workspace.
type Workspace struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Name string `json:"name"`
}

// APIKey is a minted key: Key is its only copy.
type APIKey struct {
	ID        string `json:"id"`
	Key       string `json:"key"`
	MaskedKey string `json:"masked_key"`
}

// CreateWorkspace adds a workspace, as a person signing up (or founding an organisation) would.
// An organisation gets one owner account.
func (s *Server) CreateWorkspace(spec WorkspaceSpec) (_ Workspace, err error) {
	defer apiError(&err)
	ws, err := s.core.CreateWorkspace(core.NewWorkspace{
		Type:            core.WorkspaceType(spec.Type),
		Name:            spec.Name,
		PlanAllowance:   spec.PlanAllowance,
		PodcastLimit:    spec.PodcastLimit,
		ChargingEnabled: spec.ChargingEnabled,
	})
	if err != nil {
		return Workspace{}, err
	}
	s.log.Info("workspace created", "workspace_id", ws.ID, "type", ws.Type)
	return Workspace{ID: ws.ID.String(), Type: string(ws.Type), Name: ws.Name}, nil
}

// CreateAPIKey mints a key for a workspace, as Settings, Developers, API Keys does.
func (s *Server) CreateAPIKey(workspaceID, description string) (_ APIKey, err error) {
	defer apiError(&err)
	return s.createAPIKey(workspaceID, description, false)
}

// CreateLegacyAPIKey mints a key without the podqa_api_ prefix, like keys made before the prefix
// existed; the service still accepts them.
func (s *Server) CreateLegacyAPIKey(workspaceID, description string) (_ APIKey, err error) {
	defer apiError(&err)
	return s.createAPIKey(workspaceID, description, true)
}

func (s *Server) createAPIKey(workspaceID, description string, legacy bool) (APIKey, error) {
	id, err := parseID(workspaceID, "Workspace")
	if err != nil {
		return APIKey{}, err
	}
	rec, key, err := s.core.CreateAPIKey(id, description, legacy)
	if err != nil {
		return APIKey{}, err
	}
	return APIKey{ID: rec.ID.String(), Key: key, MaskedKey: rec.MaskedKey}, nil
}

// SetAPIKeyDisabled disables a key (every use then answers 401 invalid_api_key) or enables it
// again.
func (s *Server) SetAPIKeyDisabled(keyID string, disabled bool) (err error) {
	defer apiError(&err)
	id, err := parseID(keyID, "API key")
	if err != nil {
		return err
	}
	_, err = s.core.SetKeyDisabled(id, disabled)
	return err
}

// RemoveOwners leaves an organisation with no owner, so every one of its keys answers 401.
func (s *Server) RemoveOwners(workspaceID string) (err error) {
	defer apiError(&err)
	id, err := parseID(workspaceID, "Workspace")
	if err != nil {
		return err
	}
	return s.core.RemoveOwners(id)
}

// CreateSession logs the user of a personal workspace in and returns the value of the sessionid
// cookie, which works for reads only.
func (s *Server) CreateSession(workspaceID string) (_ string, err error) {
	defer apiError(&err)
	id, err := parseID(workspaceID, "Workspace")
	if err != nil {
		return "", err
	}
	return s.core.CreateSession(id)
}

// Now is the fake's current instant.
func (s *Server) Now() time.Time { return s.clock.Now() }

// Advance moves a manual clock forward by d after running, in time order, everything that falls
// due in the span, and returns the new instant. On a real clock it returns an error.
func (s *Server) Advance(d time.Duration) (_ time.Time, err error) {
	defer apiError(&err)
	now, err := s.clock.Advance(d)
	if errors.Is(err, clock.ErrNotManual) {
		return time.Time{}, &Error{Status: http.StatusConflict, Code: core.CodeConflict, Message: "The fake runs on the real clock; start it with a manual clock to move time."}
	}
	if err != nil {
		return time.Time{}, &Error{Status: http.StatusBadRequest, Code: core.CodeValidation, Message: "Time cannot move backwards."}
	}
	return now, nil
}

func parseID(s, what string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return uuid.Nil, core.ErrNotFound(what)
	}
	return id, nil
}

// controlRoutes serves the control API under /_fake.
func (s *Server) controlRoutes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /_fake/workspaces", s.handleCreateWorkspace)
	mux.HandleFunc("POST /_fake/workspaces/{id}/api-keys", s.handleCreateAPIKey)
	mux.HandleFunc("POST /_fake/workspaces/{id}/sessions", s.handleCreateSession)
	mux.HandleFunc("DELETE /_fake/workspaces/{id}/owners", s.handleRemoveOwners)
	mux.HandleFunc("PATCH /_fake/api-keys/{id}", s.handlePatchAPIKey)
	mux.HandleFunc("GET /_fake/clock", s.handleGetClock)
	mux.HandleFunc("POST /_fake/clock/advance", s.handleAdvance)
	mux.HandleFunc("POST /_fake/faults", s.handleCreateFault)
	mux.HandleFunc("DELETE /_fake/faults", s.handleClearFaults)
	mux.HandleFunc("GET /_fake/faults", s.handleListFaults)
	mux.HandleFunc("DELETE /_fake/faults/{id}", s.handleRemoveFault)
	mux.HandleFunc("PATCH /_fake/workspaces/{id}/credits", s.handlePatchCredits)
	mux.HandleFunc("POST /_fake/workspaces/{id}/topups", s.handleAddTopup)
	mux.HandleFunc("POST /_fake/feeds", s.handleHostFeed)
	mux.HandleFunc("POST /_fake/feeds/{id}/episodes", s.handleAddHostedEpisode)
	mux.HandleFunc("PATCH /_fake/feeds/{id}", s.handleChangeFeed)
	mux.HandleFunc("GET /_fake/webhook-deliveries", s.handleListDeliveries)
	s.webhookControlRoutes(mux)
	mux.HandleFunc("POST /_fake/workspaces/{id}/standards", s.handleCreateStandard)
	mux.HandleFunc("GET /_fake/workspaces/{id}/standards", s.handleListStandards)
	mux.HandleFunc("PUT /_fake/workspaces/{id}/default-standard", s.handleSetDefaultStandard)
	mux.HandleFunc("PUT /_fake/series/{id}/standard", s.handleSetSeriesStandard)
	mux.HandleFunc("POST /_fake/workspaces/{id}/reports", s.handleSeedReports)
	mux.HandleFunc("POST /_fake/transcripts", s.handleScriptTranscript)
	mux.HandleFunc("POST /_fake/reset", s.handleReset)
	mux.HandleFunc("GET /_fake/requests", s.handleListRequests)
	mux.HandleFunc("DELETE /_fake/requests", s.handleClearRequests)
	mux.HandleFunc("/_fake/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, core.ErrNotFound("Control call"))
	})
	return s.requireAdmin(s.validateControl(mux))
}

func (s *Server) requireAdmin(next http.Handler) http.Handler {
	want := []byte("Bearer " + s.opts.adminToken)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			writeError(w, &Error{Status: http.StatusUnauthorized, Code: core.CodeInvalidAPIKey, Message: "The control API needs Authorization: Bearer <admin_token>."})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) handleCreateWorkspace(w http.ResponseWriter, r *http.Request) {
	var spec WorkspaceSpec
	if !decodeBody(w, r, &spec) {
		return
	}
	ws, err := s.CreateWorkspace(spec)
	respond(w, http.StatusCreated, ws, err)
}

func (s *Server) handleCreateAPIKey(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Description string `json:"description"`
		// Legacy mints a key without the podqa_api_ prefix.
		Legacy bool `json:"legacy"`
	}
	if !decodeBody(w, r, &body) {
		return
	}
	key, err := s.createAPIKey(r.PathValue("id"), body.Description, body.Legacy)
	respond(w, http.StatusCreated, key, err)
}

func (s *Server) handleCreateSession(w http.ResponseWriter, r *http.Request) {
	token, err := s.CreateSession(r.PathValue("id"))
	respond(w, http.StatusCreated, map[string]string{"sessionid": token}, err)
}

func (s *Server) handleRemoveOwners(w http.ResponseWriter, r *http.Request) {
	if err := s.RemoveOwners(r.PathValue("id")); err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handlePatchAPIKey(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Disabled *bool `json:"disabled"`
	}
	if !decodeBody(w, r, &body) {
		return
	}
	if body.Disabled == nil {
		writeError(w, core.ErrValidation("disabled is required."))
		return
	}
	err := s.SetAPIKeyDisabled(r.PathValue("id"), *body.Disabled)
	respond(w, http.StatusOK, map[string]bool{"disabled": *body.Disabled}, err)
}

type clockAnswer struct {
	Now string `json:"now"`
}

func (s *Server) handleGetClock(w http.ResponseWriter, r *http.Request) {
	respond(w, http.StatusOK, clockAnswer{Now: apitime.Format(s.Now())}, nil)
}

// maxAdvance bounds one advance to a century, which keeps the duration arithmetic exact.
const maxAdvance = 100 * 365 * 24 * time.Hour

func (s *Server) handleAdvance(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Seconds *float64 `json:"seconds"`
	}
	if !decodeBody(w, r, &body) {
		return
	}
	if body.Seconds == nil || math.IsNaN(*body.Seconds) || *body.Seconds < 0 || *body.Seconds > maxAdvance.Seconds() {
		writeError(w, core.ErrValidation("seconds must be a number from 0 to %d.", int64(maxAdvance.Seconds())))
		return
	}
	now, err := s.Advance(time.Duration(*body.Seconds * float64(time.Second)))
	respond(w, http.StatusOK, clockAnswer{Now: apitime.Format(now)}, err)
}

// maxControlBody bounds control API bodies.
const maxControlBody = 1 << 20

// decodeBody reads a JSON object strictly (unknown fields are refused, so typos in a test suite
// surface) and answers 400 itself when it cannot.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if ct := r.Header.Get("Content-Type"); !isJSON(ct) {
		writeError(w, core.ErrValidation("Content-Type must be application/json."))
		return false
	}
	body, err := readBody(r, maxControlBody)
	if err != nil {
		writeError(w, err)
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, core.ErrValidation("Request body is not valid JSON for this call: %s.", jsonProblem(err)))
		return false
	}
	if dec.More() {
		writeError(w, core.ErrValidation("Request body must hold one JSON object."))
		return false
	}
	return true
}

func jsonProblem(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("syntax error at byte %d", syntax.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("%s must be %s", typ.Field, typ.Type)
	case errors.Is(err, io.EOF):
		return "the body is empty"
	default:
		return strings.TrimPrefix(err.Error(), "json: ")
	}
}

func isJSON(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}

func respond(w http.ResponseWriter, status int, v any, err error) {
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, status, v)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

type errorEnvelope struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// writeError answers err in the REST envelope; anything that is not a core refusal is an
// internal error whose detail stays in the logs.
func writeError(w http.ResponseWriter, err error) {
	e := asError(err)
	setRetryAfter(w, e)
	body, _ := json.Marshal(errorEnvelope{Error: errorDetail{Code: e.Code, Message: e.Message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_, _ = w.Write(append(body, '\n'))
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
	respond(w, http.StatusOK, map[string][]WebhookDelivery{"items": items}, err)
}
