package fakeserver

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
	"github.com/podqa/podqa-go/fakeserver/internal/reportview"
)

// uiReportRow is a report as the dashboard's lists and its report page show it: its name, its
// status and, beside it, its verdict. A COMPLETE report that did not pass is not drawn as a
// success: its status carries the class not-passed.
type uiReportRow struct {
	// The summary's fields, copied rather than embedded: html/template looks a promoted field up
	// by a search that allocates, for every field of every row.
	ID, Source, Status, SeriesID string
	CreatedAt, UpdatedAt         time.Time
	// Shown is what names the report: its name, else "(no name)".
	Shown string
	// Named is false when the report has no name (Shown is then a placeholder).
	Named bool
	// StatusClass is the status cell's class list.
	StatusClass string
	// Verdict is the verdict in words; VerdictClass passed, not-passed or unjudged.
	Verdict, VerdictClass string
}

func uiRow(r ReportSummary) uiReportRow {
	row := uiReportRow{ID: r.ID, Source: r.Source, Status: r.Status, SeriesID: r.SeriesID, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		Shown: r.Name, Named: r.Name != "", StatusClass: "status " + r.Status}
	if !row.Named {
		row.Shown = "(no name)"
	}
	row.Shown, _ = dashboard.CutRunes(row.Shown, dashboard.MaxName)
	row.Verdict, row.VerdictClass = verdictWords(r.Status, r.Verdict)
	if r.Status == core.StatusComplete && row.VerdictClass != "passed" {
		row.StatusClass += " not-passed"
	}
	return row
}

// verdictWords says a verdict as the dashboard shows it beside the status.
func verdictWords(status string, v ReportVerdict) (words, class string) {
	std, _ := dashboard.CutRunes(v.Standard, dashboard.MaxName)
	if std == "" {
		std = "its standard"
	}
	switch {
	case v.Judged && v.Passed:
		return "passed " + std + " (" + failures(v) + ")", "passed"
	case v.Judged:
		return "did not pass " + std + ": " + failures(v), "not-passed"
	case status == core.StatusComplete:
		return "not judged against " + std, "unjudged"
	case status == core.StatusFailed || status == core.StatusOutOfQuota:
		return "not judged: the report was not analysed", "unjudged"
	default:
		return "to be judged against " + std, "unjudged"
	}
}

func failures(v ReportVerdict) string {
	n := strconv.Itoa(v.RequiredFailures) + " of " + strconv.Itoa(v.RequiredTotal) + " required checks failed"
	if v.RequiredTotal == 1 {
		n = strconv.Itoa(v.RequiredFailures) + " of 1 required check failed"
	}
	return n
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
