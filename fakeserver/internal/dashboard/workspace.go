package dashboard

import (
	"net/http"
	"net/url"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// A workspace's page: its credits and one page of its reports, each with its name and verdict.

const (
	// ReportPageSize is how many reports a page of the workspace page shows.
	ReportPageSize = 100
	// maxTopups bounds the top-up lots a workspace's credits line lists.
	maxTopups = 20
	// maxWorkspacePageBytes is the page's size whatever tenants send
	// (TestWorkspacePageBoundedWhateverTenantsSend).
	maxWorkspacePageBytes = 1 << 20
)

// workspaceView is a workspace's page: its credits and one page of its reports.
type workspaceView struct {
	Workspace Workspace
	Credits   *core.Credits
	Filter    core.ReportsQuery
	Statuses  []string
	Page      core.BrowsePage
	// Rows are the page's reports with their names and verdicts.
	Rows []ReportRow
	// NextURL is the link to the next page; "" on the last.
	NextURL string
	// Filtered says a filter is set, for the link back to every report.
	Filtered bool
	// MoreTopups counts the top-up lots the credits line does not list.
	MoreTopups int
}

// ServeWorkspace is a workspace's page.
func (ui *UI) ServeWorkspace(w http.ResponseWriter, r *http.Request) {
	ws, err := ui.WorkspaceID(r)
	if err != nil {
		ui.RenderError(w, r, err)
		return
	}
	cws, err := ui.deps.Core.Workspace(ws)
	if err != nil {
		ui.RenderError(w, r, err)
		return
	}
	q := r.URL.Query()
	f := core.ReportsQuery{Status: q.Get("status"), SeriesID: q.Get("series"), After: q.Get("after"), Limit: ReportPageSize}
	page, next, err := ui.deps.Core.ReportsOf(ws.String(), f)
	if err != nil {
		ui.RenderError(w, r, err)
		return
	}
	v := workspaceView{
		Workspace: WorkspaceRow(Workspace{ID: cws.ID.String(), Type: string(cws.Type), Name: cws.Name}),
		Filter:    f, Statuses: core.ReportStatuses(), Page: page, Filtered: f.Status != "" || f.SeriesID != "",
	}
	v.Filter.SeriesID, v.Filter.After = ShownFilter(f.SeriesID), ShownFilter(f.After)
	v.Rows = make([]ReportRow, len(page.Reports))
	for i, rep := range page.Reports {
		v.Rows[i] = RowOf(summaryOf(rep))
	}
	if cr, err := ui.deps.Core.Credits(ws); err == nil {
		cr, v.MoreTopups = shownCredits(cr)
		v.Credits = &cr
	}
	if next != "" {
		nextQuery := url.Values{"after": {next}}
		if f.Status != "" {
			nextQuery.Set("status", f.Status)
		}
		if f.SeriesID != "" {
			nextQuery.Set("series", f.SeriesID)
		}
		v.NextURL = Path + "/workspaces/" + ws.String() + "?" + nextQuery.Encode()
	}
	ui.Render(w, r, http.StatusOK, "workspace", Page{Title: v.Workspace.Name, Data: v})
}

// shownCredits is a workspace's credits with at most maxTopups lots, and the count of the rest.
func shownCredits(cr core.Credits) (core.Credits, int) {
	if n := len(cr.TopupLots); n > maxTopups {
		cr.TopupLots = cr.TopupLots[:maxTopups]
		return cr, n - maxTopups
	}
	return cr, 0
}
