package dashboard

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/reportview"
)

// Account is a report's account as its page shows it: fakeserver.ReportAccount's fields but
// its checks (the page reads them from the core), which the facade copies (see
// TestAccountTwinCopiesEveryField).
type Account struct {
	Report     Summary
	Timeline   []StatusChange
	Failure    string
	Deliveries []Delivery
	Emails     []Email
	Loudness   LoudnessSeries
	Measured   *Measurement
}

// StatusChange is one change of a report's status: fakeserver.StatusChange's fields.
type StatusChange struct {
	Status string
	At     time.Time
	Reason string
}

// uiReportPage is a report's page: its account, its name and verdict, its checks as people
// read them, and the plot of its loudness.
type uiReportPage struct {
	Account Account
	Row     ReportRow
	Checks  []uiCheck
	Plot    LoudnessPlot
	// Emails are the account's emails as shown; MoreDeliveries and MoreEmails count the older
	// ones the page does not list (GET /_fake/reports/{id} has them).
	Emails                     []EmailShown
	MoreDeliveries, MoreEmails int
}

// ServeReport is a report's page.
func (ui *UI) ServeReport(w http.ResponseWriter, r *http.Request) {
	acc, err := ui.deps.Account(httpmw.PathID(r, "id"))
	if err != nil {
		ui.RenderError(w, r, err)
		return
	}
	v := uiReportPage{Row: RowOf(acc.Report)}
	v.Account, v.Emails, v.MoreDeliveries, v.MoreEmails = shownAccount(acc)
	var limits core.Limits
	if id, err := core.ParseID(acc.Report.ID, "Report"); err == nil {
		if rep, ok := ui.deps.Core.ReportByID(id); ok {
			limits = rep.Standard.Limits
			v.Checks = uiChecks(rep.Results)
		}
	}
	v.Plot = PlotLoudness(acc.Loudness, limits, acc.Measured)
	title := "Report " + acc.Report.ID
	if v.Row.Named {
		title = v.Row.Shown + " · report"
	}
	ui.Render(w, r, http.StatusOK, "report", Page{Title: title, Data: v})
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
		c.Name, _ = CutRunes(c.Name, maxUICheckText)
		c.Limit, _ = CutRunes(c.Limit, maxUICheckText)
		c.Why, _ = CutRunes(c.Why, maxUICheckWhy)
		c.Value = shownValue(c.Value)
		out = append(out, c)
	}
	return out
}

// shownValue is a check's value as its row shows it: each text cut at maxUICheckText and at
// most maxUIValueFields labelled values (a value may hold what a tenant's audio says, as its
// tags).
func shownValue(v reportview.Value) reportview.Value {
	v.Text, _ = CutRunes(v.Text, maxUICheckText)
	v.Full, _ = CutRunes(v.Full, maxUICheckText)
	fields := v.Fields[:min(len(v.Fields), maxUIValueFields)]
	v.Fields = nil
	for _, f := range fields {
		f.Label, _ = CutRunes(f.Label, MaxName)
		f.Text, _ = CutRunes(f.Text, maxUICheckText)
		f.Full, _ = CutRunes(f.Full, maxUICheckText)
		v.Fields = append(v.Fields, f)
	}
	return v
}
