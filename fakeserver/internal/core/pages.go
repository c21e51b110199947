package core

import (
	"slices"

	"github.com/google/uuid"
)

// The paged listings as the Go API (fakeserver's api_listings.go) and the control
// API (internal/control's listings.go) both take them: a cursor and a limit as sent, the filters'
// ids as sent; the hosted feeds' listing is hosted.FeedListing over the same rules.

// Bounds of the paged listings (the workspaces, the hosted feeds, the reports of every
// workspace, the event record): fakeserver's DefaultListLimit, MaxListLimit and
// MaxWorkspacesPerReportPage.
const (
	// DefaultListLimit is a listing's page size when the limit is 0.
	DefaultListLimit = 100
	// MaxListLimit is the largest page a listing returns.
	MaxListLimit = 500
	// MaxWorkspacesPerReportPage is how many workspaces one page of ReportListing over every
	// workspace passes at most: a page may then hold fewer reports than its limit, and still
	// have a next cursor.
	MaxWorkspacesPerReportPage = 1000
)

// Bounds of a page of one workspace's reports (ReportsOf): fakeserver's DefaultReportPageSize
// and MaxReportPageSize.
const (
	DefaultReportPageSize = 50
	MaxReportPageSize     = 500
)

// ReportStatuses is every status a report takes, in the order of its life: what a status
// filter accepts.
func ReportStatuses() []string {
	return []string{StatusPending, StatusScheduled, StatusInProgress, StatusComplete, StatusFailed, StatusOutOfQuota}
}

// ListLimit reads a listing's limit: 0 is DefaultListLimit, and past MaxListLimit is refused.
func ListLimit(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultListLimit, nil
	case n < 0 || n > MaxListLimit:
		return 0, ErrValidation("limit must be from 1 to %d.", MaxListLimit)
	}
	return n, nil
}

// ErrCursor is the answer to a cursor that is not the next cursor of an earlier page of what.
func ErrCursor(what string) error {
	return ErrValidation("cursor is not the next_cursor of an earlier page of %s.", what)
}

// CursorID reads a cursor that is an id; "" is nil (the first page).
func CursorID(cursor, what string) (*uuid.UUID, error) {
	if cursor == "" {
		return nil, nil
	}
	id, ok := CanonicalID(cursor)
	if !ok {
		return nil, ErrCursor(what)
	}
	return &id, nil
}

// WorkspaceListing is a page of every workspace, oldest first, from cursor ("" for the first
// page, else the next cursor of the page before), and the next page's cursor ("" on the last).
// A malformed cursor or a limit out of range is a validation error; a cursor naming no
// workspace of this state (a reset ends every cursor) not found.
func (c *Core) WorkspaceListing(cursor string, limit int) ([]Workspace, string, error) {
	limit, err := ListLimit(limit)
	if err != nil {
		return nil, "", err
	}
	after, err := CursorID(cursor, "workspaces")
	if err != nil {
		return nil, "", err
	}
	wss, more, err := c.WorkspacePage(after, limit)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if more && len(wss) > 0 {
		next = wss[len(wss)-1].ID.String()
	}
	return wss, next, nil
}

// ReportsQuery selects a page of one workspace's reports for ReportsOf, as sent.
type ReportsQuery struct {
	// Status keeps the reports of one status; "" keeps all.
	Status string
	// SeriesID keeps the reports of one series; "" keeps all.
	SeriesID string
	// After is the next cursor of the previous page; "" starts at the newest report.
	After string
	// Limit is the page size: 0 means DefaultReportPageSize, at most MaxReportPageSize.
	Limit int
}

// ReportsOf is a page of the reports of the workspace workspaceID names, newest first
// (BrowseReports), and the next page's cursor ("" on the last page). Bad input (an unknown
// status, a malformed series id or cursor, a limit out of range) is a validation error; an
// unknown workspace not found.
func (c *Core) ReportsOf(workspaceID string, f ReportsQuery) (BrowsePage, string, error) {
	ws, err := ParseID(workspaceID, "Workspace")
	if err != nil {
		return BrowsePage{}, "", err
	}
	q := BrowseQuery{Workspace: ws, Status: f.Status, Limit: f.Limit}
	switch {
	case f.Limit < 0 || f.Limit > MaxReportPageSize:
		return BrowsePage{}, "", ErrValidation("limit must be between 0 and %d.", MaxReportPageSize)
	case f.Limit == 0:
		q.Limit = DefaultReportPageSize
	}
	if f.Status != "" && !slices.Contains(ReportStatuses(), f.Status) {
		return BrowsePage{}, "", ErrValidation("status must be one of %v.", ReportStatuses())
	}
	if f.SeriesID != "" {
		id, err := uuid.Parse(f.SeriesID)
		if err != nil || len(f.SeriesID) != 36 {
			return BrowsePage{}, "", ErrValidation("series_id must be a UUID.")
		}
		q.Series = &id
	}
	if f.After != "" {
		id, err := uuid.Parse(f.After)
		if err != nil || len(f.After) != 36 {
			return BrowsePage{}, "", ErrValidation("after must be the next cursor of an earlier page.")
		}
		q.After = &id
	}
	page, err := c.BrowseReports(q)
	if err != nil {
		return BrowsePage{}, "", err
	}
	next := ""
	if page.More && len(page.Reports) > 0 {
		next = page.Reports[len(page.Reports)-1].ID.String()
	}
	return page, next, nil
}

// ReportListQuery selects the reports of ReportListing, as sent.
type ReportListQuery struct {
	// WorkspaceID keeps one workspace's reports; "" lists every workspace's, the oldest
	// workspace first.
	WorkspaceID string
	// Status keeps the reports of one status; "" keeps all.
	Status string
	// Cursor is the next cursor of the page before (an id: of the report the page before ended
	// on, or of the workspace the next page starts at); "" is the first page.
	Cursor string
	// Limit is the page size: 0 means DefaultListLimit, at most MaxListLimit.
	Limit int
}

// ReportListing is a page of reports, of one workspace or of all, each with its name by
// ShownName: each workspace's newest first, walking the workspaces oldest first, and the next
// page's cursor ("" on the last). A page costs what it holds (and at most
// MaxWorkspacesPerReportPage workspaces passed), however many reports and workspaces there are.
// A malformed filter or cursor (or a cursor of another workspace than the filter's), or a limit
// out of range, is a validation error; an unknown workspace, or a cursor naming nothing of this
// state (a reset ends every cursor), not found.
func (c *Core) ReportListing(f ReportListQuery) ([]ReportHead, string, error) {
	limit, err := ListLimit(f.Limit)
	if err != nil {
		return nil, "", err
	}
	if f.Status != "" && !slices.Contains(ReportStatuses(), f.Status) {
		return nil, "", ErrValidation("status must be one of %v.", ReportStatuses())
	}
	var only *uuid.UUID
	if f.WorkspaceID != "" {
		id, ok := CanonicalID(f.WorkspaceID)
		if !ok {
			return nil, "", ErrValidation("workspace_id must be a workspace's id (a lower-case uuid).")
		}
		if _, err := c.Workspace(id); err != nil {
			return nil, "", err
		}
		only = &id
	}
	// The cursor is an id: of the last report of the page before (the page goes on below it, in
	// its workspace), or of a workspace (the page starts at its top).
	var from *uuid.UUID
	after := ""
	if f.Cursor != "" {
		id, ok := CanonicalID(f.Cursor)
		if !ok {
			return nil, "", ErrCursor("reports")
		}
		if r, ok := c.ReportByID(id); ok {
			from, after = &r.Workspace, r.ID.String()
		} else if _, err := c.Workspace(id); err == nil {
			from = &id
		} else {
			return nil, "", ErrNotFound("The cursor's report or workspace")
		}
		if only != nil && *from != *only {
			return nil, "", ErrCursor("this workspace's reports")
		}
	}
	var wss []uuid.UUID
	switch {
	case only != nil:
		wss = []uuid.UUID{*only}
	case from != nil:
		wss = append([]uuid.UUID{*from}, c.WorkspacesAfter(from, MaxWorkspacesPerReportPage)...)
	default:
		wss = c.WorkspacesAfter(nil, MaxWorkspacesPerReportPage+1)
	}
	out, next := make([]ReportHead, 0, min(limit, 64)), ""
	for i, ws := range wss {
		if i == MaxWorkspacesPerReportPage || len(out) == limit {
			next = ws.String() // the top of the next workspace
			break
		}
		page, pageNext, err := c.ReportsOf(ws.String(), ReportsQuery{Status: f.Status, After: after, Limit: limit - len(out)})
		if err != nil {
			continue // the workspace (or the cursor's report) went with a reset meanwhile
		}
		after = ""
		for _, h := range page.Reports {
			out = append(out, c.listedHead(h))
		}
		if pageNext != "" {
			next = pageNext // the page's last report
			break
		}
	}
	return out, next, nil
}

// listedHead is h with its name by ShownName (the name rule, else the id), which a list without
// room for an empty cell shows.
func (c *Core) listedHead(h ReportHead) ReportHead {
	if h.Name != "" {
		return h
	}
	if r, ok := c.ReportByID(h.ID); ok {
		h.Name = c.ShownName(r)
	}
	return h
}
