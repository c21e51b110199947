package fakeserver

import (
	"fmt"
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// SeededReport describes one report for SeedReports.
type SeededReport struct {
	// FileName is the report's original_filename (default "seeded-N.wav", N from 1).
	FileName string
	// Duration is the measured length of the report's audio (default 10 minutes); it sets the
	// credits charged at completion.
	Duration time.Duration
	// CompleteAfter is how long after now, on the fake's clock, the report completes; 0
	// completes it before SeedReports returns. On a manual clock the later ones complete as
	// Advance reaches them.
	CompleteAfter time.Duration
}

// SeedReports creates reports in a workspace without audio to fetch or measure: they start
// IN_PROGRESS, in the order given (the last one is the newest by created_at), and each
// completes CompleteAfter later through the ordinary completion (judged as passing audio at the
// target loudness, charged, updated_at moved). It returns their ids in the same order.
//
// It is for testing clients that watch many reports, such as pollers: thousands of reports that
// finish in any chosen order cost microseconds each. Nothing is created unless every entry is
// valid.
func (s *Server) SeedReports(workspaceID string, reports []SeededReport) (_ []string, err error) {
	defer apiError(&err)
	ws, err := parseID(workspaceID, "Workspace")
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	in := make([]core.BulkReport, len(reports))
	for i, r := range reports {
		if r.CompleteAfter < 0 {
			return nil, core.ErrValidation("reports[%d]: complete_after must not be negative.", i)
		}
		b := core.BulkReport{FileName: r.FileName, Duration: r.Duration, CompleteAt: now.Add(r.CompleteAfter)}
		if b.FileName == "" {
			b.FileName = fmt.Sprintf("seeded-%d.wav", i+1)
		}
		if b.Duration == 0 {
			b.Duration = 10 * time.Minute
		}
		in[i] = b
	}
	out, err := s.core.SeedReports(ws, in)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(out))
	for i, r := range out {
		ids[i] = r.ID.String()
	}
	return ids, nil
}

// maxSeededPerCall bounds one control call's batch, so that a typo cannot exhaust memory.
const maxSeededPerCall = 100_000

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
	if len(req.Reports) == 0 || len(req.Reports) > maxSeededPerCall {
		writeError(w, core.ErrValidation("reports must list from 1 to %d reports.", maxSeededPerCall))
		return
	}
	in := make([]SeededReport, len(req.Reports))
	for i, rr := range req.Reports {
		if rr.DurationS < 0 || rr.DurationS > 24*3600 || rr.CompleteAfterS < 0 || rr.CompleteAfterS > 366*24*3600 {
			writeError(w, core.ErrValidation("reports[%d]: duration_s must be 0 to 86400 and complete_after_s 0 to a year.", i))
			return
		}
		in[i] = SeededReport{
			FileName:      rr.FileName,
			Duration:      time.Duration(rr.DurationS * float64(time.Second)),
			CompleteAfter: time.Duration(rr.CompleteAfterS * float64(time.Second)),
		}
	}
	ids, err := s.SeedReports(r.PathValue("id"), in)
	respond(w, http.StatusCreated, struct {
		IDs []string `json:"ids"`
	}{ids}, err)
}
