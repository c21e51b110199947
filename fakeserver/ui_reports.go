package fakeserver

import (
	"net/http"
	"net/url"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// workspaceView is a workspace's page: its credits and one page of its reports.
type workspaceView struct {
	Workspace Workspace
	Credits   *core.Credits
	Filter    ReportFilter
	Statuses  []string
	Page      ReportPage
	// Rows are the page's reports with their names and verdicts.
	Rows []uiReportRow
	// NextURL is the link to the next page; "" on the last.
	NextURL string
	// Filtered says a filter is set, for the link back to every report.
	Filtered bool
	// MoreTopups counts the top-up lots the credits line does not list.
	MoreTopups int
}

// uiReportPageSize is how many reports a page of the workspace page shows.
const uiReportPageSize = 100

func (ui *dashboardUI) handleWorkspace(w http.ResponseWriter, r *http.Request) {
	ws, err := ui.front.WorkspaceID(r)
	if err != nil {
		ui.renderError(w, r, err)
		return
	}
	cws, err := ui.s.core.Workspace(ws)
	if err != nil {
		ui.renderError(w, r, err)
		return
	}
	q := r.URL.Query()
	f := ReportFilter{Status: q.Get("status"), SeriesID: q.Get("series"), After: q.Get("after"), Limit: uiReportPageSize}
	page, err := ui.s.Reports(ws.String(), f)
	if err != nil {
		ui.renderError(w, r, err)
		return
	}
	v := workspaceView{
		Workspace: workspaceRow(Workspace{ID: cws.ID.String(), Type: string(cws.Type), Name: cws.Name}),
		Filter:    f, Statuses: reportStatuses, Page: page, Filtered: f.Status != "" || f.SeriesID != "",
	}
	v.Filter.SeriesID, v.Filter.After = dashboard.ShownFilter(f.SeriesID), dashboard.ShownFilter(f.After)
	v.Rows = make([]uiReportRow, len(page.Reports))
	for i, rep := range page.Reports {
		v.Rows[i] = uiRow(rep)
	}
	if cr, err := ui.s.core.Credits(ws); err == nil {
		cr, v.MoreTopups = shownCredits(cr)
		v.Credits = &cr
	}
	if page.Next != "" {
		next := url.Values{"after": {page.Next}}
		if f.Status != "" {
			next.Set("status", f.Status)
		}
		if f.SeriesID != "" {
			next.Set("series", f.SeriesID)
		}
		v.NextURL = dashboard.Path + "/workspaces/" + ws.String() + "?" + next.Encode()
	}
	ui.render(w, r, http.StatusOK, "workspace", dashboard.Page{Title: v.Workspace.Name, Data: v})
}

// uiReportPage is a report's page: its account, its name and verdict, its checks as people
// read them, and the plot of its loudness.
type uiReportPage struct {
	Account ReportAccount
	Row     uiReportRow
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
	v := uiReportPage{Row: uiRow(acc.Report)}
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
