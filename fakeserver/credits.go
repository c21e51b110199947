package fakeserver

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/internal/apitime"
)

// CreditsChange changes a workspace's plan figures; nil fields stay as they are.
type CreditsChange struct {
	PlanAllowance   *float64 `json:"plan_allowance,omitempty"`
	PlanUsed        *float64 `json:"plan_used,omitempty"`
	ChargingEnabled *bool    `json:"charging_enabled,omitempty"`
}

// SetCredits changes a workspace's plan allowance, credits used this period, or charging
// switch, and returns the REST credits object as JSON.
func (s *Server) SetCredits(workspaceID string, change CreditsChange) (json.RawMessage, error) {
	id, err := parseID(workspaceID, "Workspace")
	if err != nil {
		return nil, err
	}
	cr, err := s.core.SetCredits(id, change.PlanAllowance, change.PlanUsed, change.ChargingEnabled)
	if err != nil {
		return nil, err
	}
	return json.Marshal(creditsJSON(cr))
}

// AddTopup buys a top-up of amount credits for a workspace. With expiresAt nil it lasts twelve
// months; with neverExpires it never does.
func (s *Server) AddTopup(workspaceID string, amount int, expiresAt *time.Time, neverExpires bool) (json.RawMessage, error) {
	id, err := parseID(workspaceID, "Workspace")
	if err != nil {
		return nil, err
	}
	cr, err := s.core.AddTopup(id, amount, expiresAt, neverExpires)
	if err != nil {
		return nil, err
	}
	return json.Marshal(creditsJSON(cr))
}

func (s *Server) handlePatchCredits(w http.ResponseWriter, r *http.Request) {
	var change CreditsChange
	if !decodeBody(w, r, &change) {
		return
	}
	body, err := s.SetCredits(r.PathValue("id"), change)
	respondRaw(w, http.StatusOK, body, err)
}

func (s *Server) handleAddTopup(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Amount    *int            `json:"amount"`
		ExpiresAt json.RawMessage `json:"expires_at"`
	}
	if !decodeBody(w, r, &body) {
		return
	}
	if body.Amount == nil {
		writeError(w, core.ErrValidation("amount is required."))
		return
	}
	var expires *time.Time
	never := string(body.ExpiresAt) == "null"
	if len(body.ExpiresAt) > 0 && !never {
		var at apitime.Time
		if err := json.Unmarshal(body.ExpiresAt, &at); err != nil {
			writeError(w, core.ErrValidation("expires_at must be a date-time or null."))
			return
		}
		expires = &at.Time
	}
	out, err := s.AddTopup(r.PathValue("id"), *body.Amount, expires, never)
	respondRaw(w, http.StatusCreated, out, err)
}

func respondRaw(w http.ResponseWriter, status int, body json.RawMessage, err error) {
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}
