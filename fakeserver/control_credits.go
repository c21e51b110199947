package fakeserver

import (
	"encoding/json"
	"net/http"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/views"
	"github.com/podqa/podqa-go/internal/apitime"
)

func (s *Server) handlePatchCredits(w http.ResponseWriter, r *http.Request) {
	var change CreditsChange
	if !decodeBody(w, r, &change) {
		return
	}
	cr, err := s.setCredits(httpmw.PathID(r, "id"), change)
	respond(w, http.StatusOK, views.Credits(cr), err)
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
	spec := TopupSpec{Amount: *body.Amount, NeverExpires: string(body.ExpiresAt) == "null"}
	if len(body.ExpiresAt) > 0 && !spec.NeverExpires {
		var at apitime.Time
		if err := json.Unmarshal(body.ExpiresAt, &at); err != nil {
			writeError(w, core.ErrValidation("expires_at must be a date-time or null."))
			return
		}
		spec.ExpiresAt = at.Time
	}
	cr, err := s.addTopup(httpmw.PathID(r, "id"), spec)
	respond(w, http.StatusCreated, views.Credits(cr), err)
}
