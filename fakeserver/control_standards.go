package fakeserver

import (
	"encoding/json"
	"net/http"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

func (s *Server) handleCreateStandard(w http.ResponseWriter, r *http.Request) {
	var spec StandardSpec
	if !decodeBody(w, r, &spec) {
		return
	}
	std, err := s.CreateStandard(r.PathValue("id"), spec)
	respond(w, http.StatusCreated, std, err)
}

func (s *Server) handleListStandards(w http.ResponseWriter, r *http.Request) {
	list, err := s.Standards(r.PathValue("id"))
	respond(w, http.StatusOK, map[string][]Standard{"items": list}, err)
}

// standardChoice is the body of the two assignment calls. standard_id is required; null (for a
// show only) removes the assignment.
type standardChoice struct {
	StandardID json.RawMessage `json:"standard_id"`
}

// id reads standard_id: ok false (after answering 400) when it is missing or not a string or
// null; null gives "".
func (c standardChoice) id(w http.ResponseWriter, nullAllowed bool) (string, bool) {
	var id *string
	if len(c.StandardID) == 0 || json.Unmarshal(c.StandardID, &id) != nil || (id == nil && !nullAllowed) {
		msg := "standard_id is required: the id of a built-in standard or of one of the workspace's own."
		if nullAllowed {
			msg = "standard_id is required: a standard's id, or null to remove the show's own standard."
		}
		writeError(w, core.ErrValidation("%s", msg))
		return "", false
	}
	if id == nil {
		return "", true
	}
	if *id == "" {
		writeError(w, core.ErrNotFound("Standard"))
		return "", false
	}
	return *id, true
}

func (s *Server) handleSetDefaultStandard(w http.ResponseWriter, r *http.Request) {
	var body standardChoice
	if !decodeBody(w, r, &body) {
		return
	}
	id, ok := body.id(w, false)
	if !ok {
		return
	}
	std, err := s.SetDefaultStandard(r.PathValue("id"), id)
	respond(w, http.StatusOK, std, err)
}

func (s *Server) handleSetSeriesStandard(w http.ResponseWriter, r *http.Request) {
	var body standardChoice
	if !decodeBody(w, r, &body) {
		return
	}
	id, ok := body.id(w, true)
	if !ok {
		return
	}
	std, err := s.SetSeriesStandard(r.PathValue("id"), id)
	respond(w, http.StatusOK, std, err)
}
