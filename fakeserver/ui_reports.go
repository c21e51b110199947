package fakeserver

import (
	"encoding/json"
	"net/http"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/reportview"
)

// uiReportPage is a report's page: its account, its name and verdict, its checks as people
// read them, and the plot of its loudness.
type uiReportPage struct {
	Account ReportAccount
	Row     dashboard.ReportRow
	Checks  []uiCheck
	Plot    dashboard.LoudnessPlot
	// Emails are the account's emails as shown; MoreDeliveries and MoreEmails count the older
	// ones the page does not list (GET /_fake/reports/{id} has them).
	Emails                     []dashboard.EmailShown
	MoreDeliveries, MoreEmails int
}

func (ui *dashboardUI) handleReport(w http.ResponseWriter, r *http.Request) {
	acc, err := ui.s.ReportAccount(httpmw.PathID(r, "id"))
	if err != nil {
		ui.renderError(w, r, err)
		return
	}
	v := uiReportPage{Row: dashboard.RowOf(summaryTwin(acc.Report))}
	v.Account, v.Emails, v.MoreDeliveries, v.MoreEmails = shownAccount(acc)
	var limits core.Limits
	if id, err := parseID(acc.Report.ID, "Report"); err == nil {
		if rep, ok := ui.s.core.ReportByID(id); ok {
			limits = rep.Standard.Limits
			v.Checks = uiChecks(rep.Results)
		}
	}
	v.Plot = dashboard.PlotLoudness(dashboard.LoudnessSeries(acc.Loudness), limits, (*dashboard.Measurement)(acc.Measured))
	title := "Report " + acc.Report.ID
	if v.Row.Named {
		title = v.Row.Shown + " · report"
	}
	ui.render(w, r, http.StatusOK, "report", dashboard.Page{Title: title, Data: v})
}

// eventKinds are the kinds the events page offers as a filter.
var eventKinds = []string{
	EventReportCreated, EventReportStatus, EventReportFinished, EventDeliveryFailed, EventDeliverySucceeded,
	EventEndpointDisabled, EventFeedCheckFailed, EventFaultFired, EventRequestRefused, EventURLRefused,
	EventClockAdvanced, EventWorkspaceCreated, EventReset,
}

// lastSeq is the Seq of the newest event raised, 0 before the first: a cheap sign that the
// fake changed, for the dashboard's poll.
func (r *eventRecord) lastSeq() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}

// uiCheck is one row of a report page's checks: the value rounded with its full precision in
// a title, an object value as labelled values.
type uiCheck struct {
	ID, Name, Severity, Limit, Why string
	Passed                         bool
	Value                          reportview.Value
}

func uiChecks(results []core.Result) []uiCheck {
	out := make([]uiCheck, 0, len(results))
	for _, res := range results {
		unit, warning, limit := "", "", ""
		if res.MeasurementUnit != nil {
			unit = *res.MeasurementUnit
		}
		if res.WarningMessage != nil {
			warning = *res.WarningMessage
		}
		if res.Limit != nil {
			limit = *res.Limit
		}
		c := uiCheck{ID: res.Name, Name: res.VerboseName, Severity: res.Severity, Limit: limit, Passed: res.Status == core.Pass,
			Value: reportview.FormatValue(json.RawMessage(res.Value), unit)}
		c.Why = reportview.Why(c.Value, limit, c.Passed, warning, res.Description)
		// The standard's texts: a check's row shows a bounded part of each.
		c.Name, _ = dashboard.CutRunes(c.Name, maxUICheckText)
		c.Limit, _ = dashboard.CutRunes(c.Limit, maxUICheckText)
		c.Why, _ = dashboard.CutRunes(c.Why, maxUICheckText)
		c.Value = shownValue(c.Value)
		out = append(out, c)
	}
	return out
}

// shownValue is a check's value as its row shows it: each text cut at maxUICheckText and at
// most maxUIValueFields labelled values (a value may hold what a tenant's audio says, as its
// tags).
func shownValue(v reportview.Value) reportview.Value {
	v.Text, _ = dashboard.CutRunes(v.Text, maxUICheckText)
	v.Full, _ = dashboard.CutRunes(v.Full, maxUICheckText)
	fields := v.Fields[:min(len(v.Fields), maxUIValueFields)]
	v.Fields = nil
	for _, f := range fields {
		f.Label, _ = dashboard.CutRunes(f.Label, dashboard.MaxName)
		f.Text, _ = dashboard.CutRunes(f.Text, maxUICheckText)
		f.Full, _ = dashboard.CutRunes(f.Full, maxUICheckText)
		v.Fields = append(v.Fields, f)
	}
	return v
}

// summaryTwin is a report's summary as the dashboard names it.
func summaryTwin(r ReportSummary) dashboard.Summary {
	return dashboard.Summary{ID: r.ID, Source: r.Source, Status: r.Status, SeriesID: r.SeriesID, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		Name: r.Name, Verdict: core.Verdict(r.Verdict)}
}
