package fakeserver

import (
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// seedReportsRequest is the body of POST /_fake/workspaces/{id}/reports; times are seconds.
type seedReportsRequest struct {
	Reports []struct {
		FileName       string  `json:"file_name"`
		DurationS      float64 `json:"duration_s"`
		CompleteAfterS float64 `json:"complete_after_s"`
	} `json:"reports"`
}

// handleSeedReports is SeedReports over HTTP: 201 {ids} in the order given.
func (s *Server) handleSeedReports(w http.ResponseWriter, r *http.Request) {
	var req seedReportsRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if len(req.Reports) == 0 {
		// The upper bound is SeedReports' own (core.MaxBulkReports).
		writeError(w, core.ErrValidation("reports must list from 1 to %d reports.", core.MaxBulkReports))
		return
	}
	in := make([]SeededReport, len(req.Reports))
	for i, rr := range req.Reports {
		// control.openapi.json's checks and SeedReports' (the core's) bound each entry.
		in[i] = SeededReport{
			FileName:      rr.FileName,
			Duration:      time.Duration(rr.DurationS * float64(time.Second)),
			CompleteAfter: time.Duration(rr.CompleteAfterS * float64(time.Second)),
		}
	}
	ids, err := s.SeedReports(httpmw.PathID(r, "id"), in)
	respond(w, http.StatusCreated, struct {
		IDs []string `json:"ids"`
	}{ids}, err)
}

func (s *Server) handleAutomatedReporting(w http.ResponseWriter, r *http.Request) {
	enabled, ok := decodeEnabled(w, r)
	if !ok {
		return
	}
	err := s.SetAutomatedReporting(httpmw.PathID(r, "id"), enabled)
	respond(w, http.StatusOK, map[string]any{"series_id": httpmw.PathID(r, "id"), "automated_reporting": enabled}, err)
}
