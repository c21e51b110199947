package control

import (
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// The report calls of the control API: seeded reports and a series' automated reporting, thin
// adapters of the core's operations (core.SeedReportsIn, SwitchAutomatedReporting), which the Go
// API's methods (fakeserver's api_reports.go) adapt too.

// seedReportsRequest is the body of POST /_fake/workspaces/{id}/reports; times are seconds.
type seedReportsRequest struct {
	Reports []struct {
		FileName       string  `json:"file_name"`
		DurationS      float64 `json:"duration_s"`
		CompleteAfterS float64 `json:"complete_after_s"`
	} `json:"reports"`
}

// ServeSeedReports is POST /_fake/workspaces/{id}/reports: Server.SeedReports over HTTP, 201
// {ids} in the order given.
func (a *API) ServeSeedReports(w http.ResponseWriter, r *http.Request) {
	var req seedReportsRequest
	if !httpmw.DecodeBody(w, r, &req) {
		return
	}
	if len(req.Reports) == 0 {
		// The upper bound is the core's own (core.MaxBulkReports).
		httpmw.WriteError(w, core.ErrValidation("reports must list from 1 to %d reports.", core.MaxBulkReports))
		return
	}
	in := make([]core.BulkReport, len(req.Reports))
	for i, rr := range req.Reports {
		// control.openapi.json's checks and the core's bound each entry.
		in[i] = core.BulkReport{
			FileName:      rr.FileName,
			Duration:      time.Duration(rr.DurationS * float64(time.Second)),
			CompleteAfter: time.Duration(rr.CompleteAfterS * float64(time.Second)),
		}
	}
	reports, err := a.core.SeedReportsIn(httpmw.PathID(r, "id"), in)
	var ids []string
	if err == nil {
		ids = make([]string, len(reports))
		for i, rep := range reports {
			ids[i] = rep.ID.String()
		}
	}
	httpmw.Respond(w, http.StatusCreated, struct {
		IDs []string `json:"ids"`
	}{ids}, err)
}

// ServeAutomatedReporting is PUT /_fake/series/{id}/automated-reporting:
// Server.SetAutomatedReporting over HTTP.
func (a *API) ServeAutomatedReporting(w http.ResponseWriter, r *http.Request) {
	enabled, ok := httpmw.DecodeEnabled(w, r)
	if !ok {
		return
	}
	_, err := a.core.SwitchAutomatedReporting(httpmw.PathID(r, "id"), enabled)
	httpmw.Respond(w, http.StatusOK, map[string]any{"series_id": httpmw.PathID(r, "id"), "automated_reporting": enabled}, err)
}
