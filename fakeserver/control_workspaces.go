package fakeserver

import (
	"math"
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/internal/apitime"
)

// requireAdmin lets in the control calls that carry the admin token.
func (s *Server) requireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, _ := s.admin.Admits(r); !ok {
			writeError(w, &Error{Status: http.StatusUnauthorized, Code: core.CodeInvalidAPIKey, Message: "The control API needs Authorization: Bearer <admin_token>."})
			return
		}
		if s.admitted != nil {
			s.admitted(r)
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
	key, err := s.createAPIKey(httpmw.PathID(r, "id"), body.Description, body.Legacy)
	respond(w, http.StatusCreated, key, err)
}

func (s *Server) handleCreateSession(w http.ResponseWriter, r *http.Request) {
	token, err := s.CreateSession(httpmw.PathID(r, "id"))
	respond(w, http.StatusCreated, map[string]string{"sessionid": token}, err)
}

func (s *Server) handleRemoveOwners(w http.ResponseWriter, r *http.Request) {
	if err := s.RemoveOwners(httpmw.PathID(r, "id")); err != nil {
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
	err := s.SetAPIKeyDisabled(httpmw.PathID(r, "id"), *body.Disabled)
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
