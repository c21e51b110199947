package fakeserver

import (
	"net/http"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// FeedCheckPeriod is how often the fake re-reads every tracked feed (a feed some workspace holds
// as a series), counted from when the first workspace added it: new episodes, the explicit flag,
// and breakage are noticed at these checks.
const FeedCheckPeriod = core.FeedCheckPeriod

// SetAutomatedReporting turns a series' automated reporting on or off, as its workspace does in
// the dashboard: with it on, the feed checker reports on every new episode.
func (s *Server) SetAutomatedReporting(seriesID string, on bool) (err error) {
	defer apiError(&err)
	id, err := parseID(seriesID, "Series")
	if err != nil {
		return err
	}
	_, err = s.core.SetAutomatedReporting(id, on)
	return err
}

func (s *Server) handleAutomatedReporting(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Enabled *bool `json:"enabled"`
	}
	if !decodeBody(w, r, &body) {
		return
	}
	if body.Enabled == nil {
		writeError(w, core.ErrValidation("enabled is required."))
		return
	}
	err := s.SetAutomatedReporting(r.PathValue("id"), *body.Enabled)
	respond(w, http.StatusOK, map[string]any{"series_id": r.PathValue("id"), "automated_reporting": *body.Enabled}, err)
}
