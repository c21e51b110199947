package fakeserver

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// Workspaces returns every workspace of the fake, oldest first: what the fake's own pages and
// the report of a run list. An organisation's owner has a personal workspace of its own, which
// is listed too.
func (s *Server) Workspaces() []Workspace {
	wss := s.core.AllWorkspaces()
	out := make([]Workspace, len(wss))
	for i, ws := range wss {
		out[i] = Workspace{ID: ws.ID.String(), Type: string(ws.Type), Name: ws.Name}
	}
	return out
}

// Report listing bounds of Reports.
const (
	// DefaultReportPageSize is the page size of Reports when ReportFilter.Limit is 0.
	DefaultReportPageSize = 50
	// MaxReportPageSize is the largest page Reports returns.
	MaxReportPageSize = 500
)

// ReportFilter selects the reports Reports returns.
type ReportFilter struct {
	// Status keeps the reports of one status (PENDING, SCHEDULED, IN_PROGRESS, COMPLETE,
	// FAILED, OUT_OF_QUOTA); "" keeps all.
	Status string
	// SeriesID keeps the reports of one series; "" keeps all.
	SeriesID string
	// After is the Next of the previous page; "" starts at the newest report.
	After string
	// Limit is the page size: 0 means DefaultReportPageSize, at most MaxReportPageSize.
	Limit int
}

// ReportPage is one page of Reports.
type ReportPage struct {
	// Reports are newest first by creation.
	Reports []ReportSummary
	// Next is the After of the next page; "" on the last page.
	Next string
	// Total is how many reports of the workspace match the filter, on every page.
	Total int
}

// ReportSummary is a report as lists show it.
type ReportSummary struct {
	ID          string
	WorkspaceID string
	// SeriesID is "" for an upload.
	SeriesID string
	// Source is upload, feed, automated (by a series' automated reporting) or seeded (by
	// SeedReports).
	Source    string
	Status    string
	CreatedAt time.Time
	UpdatedAt time.Time
	// Name is the report's name: the name it was given, else its audio's title tag, else its
	// episode's title, else its file name; "" when none is known.
	Name string
	// Verdict is its judgement: passed or not, once COMPLETE.
	Verdict ReportVerdict
}

var reportStatuses = []string{core.StatusPending, core.StatusScheduled, core.StatusInProgress, core.StatusComplete, core.StatusFailed, core.StatusOutOfQuota}

// Reports returns one page of a workspace's reports, newest first. A page costs what it holds
// (plus the reports a filter skips), however many reports the workspace has. Bad input (an
// unknown status, a malformed series id or cursor, a limit out of range) is a 400 *Error; an
// unknown workspace a 404.
func (s *Server) Reports(workspaceID string, f ReportFilter) (_ ReportPage, err error) {
	defer apiError(&err)
	ws, err := parseID(workspaceID, "Workspace")
	if err != nil {
		return ReportPage{}, err
	}
	q := core.BrowseQuery{Workspace: ws, Status: f.Status, Limit: f.Limit}
	switch {
	case f.Limit < 0 || f.Limit > MaxReportPageSize:
		return ReportPage{}, core.ErrValidation("limit must be between 0 and %d.", MaxReportPageSize)
	case f.Limit == 0:
		q.Limit = DefaultReportPageSize
	}
	if f.Status != "" && !slices.Contains(reportStatuses, f.Status) {
		return ReportPage{}, core.ErrValidation("status must be one of %v.", reportStatuses)
	}
	if f.SeriesID != "" {
		id, err := uuid.Parse(f.SeriesID)
		if err != nil || len(f.SeriesID) != 36 {
			return ReportPage{}, core.ErrValidation("series_id must be a UUID.")
		}
		q.Series = &id
	}
	if f.After != "" {
		id, err := uuid.Parse(f.After)
		if err != nil || len(f.After) != 36 {
			return ReportPage{}, core.ErrValidation("after must be the next cursor of an earlier page.")
		}
		q.After = &id
	}
	page, err := s.core.BrowseReports(q)
	if err != nil {
		return ReportPage{}, err
	}
	out := ReportPage{Reports: make([]ReportSummary, len(page.Reports)), Total: page.Total}
	for i, r := range page.Reports {
		out.Reports[i] = ReportSummary{
			ID: r.ID.String(), WorkspaceID: r.Workspace.String(), Source: r.Source, Status: r.Status,
			CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Name: r.Name, Verdict: verdictView(r.Verdict),
		}
		if r.Series != nil {
			out.Reports[i].SeriesID = r.Series.String()
		}
	}
	if page.More && len(page.Reports) > 0 {
		out.Next = page.Reports[len(page.Reports)-1].ID.String()
	}
	return out, nil
}

func reportSummary(r core.Report) ReportSummary {
	out := ReportSummary{
		ID: r.ID.String(), WorkspaceID: r.Workspace.String(), Source: r.Source, Status: r.Status,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Verdict: verdictView(core.VerdictOf(&r)),
	}
	if r.Name != nil {
		out.Name = *r.Name
	}
	if r.Series != nil {
		out.SeriesID = r.Series.String()
	}
	return out
}
