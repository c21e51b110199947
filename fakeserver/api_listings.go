package fakeserver

import (
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// Bounds of the paged listings (WorkspacePage, FeedPage, ReportListing, EventPage) and of
// their control routes (GET /_fake/workspaces, /_fake/feeds, /_fake/reports, /_fake/events).
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

// listLimit reads a listing's limit: 0 is DefaultListLimit.
func listLimit(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultListLimit, nil
	case n < 0 || n > MaxListLimit:
		return 0, core.ErrValidation("limit must be from 1 to %d.", MaxListLimit)
	}
	return n, nil
}

// errCursor is the answer to a cursor that is not the next cursor of an earlier page.
func errCursor(what string) error {
	return core.ErrValidation("cursor is not the next_cursor of an earlier page of %s.", what)
}

// cursorID reads a cursor that is an id; "" is nil (the first page).
func cursorID(cursor, what string) (*uuid.UUID, error) {
	if cursor == "" {
		return nil, nil
	}
	id, ok := core.CanonicalID(cursor)
	if !ok {
		return nil, errCursor(what)
	}
	return &id, nil
}

// WorkspaceListPage is one page of WorkspacePage.
type WorkspaceListPage struct {
	// Workspaces are oldest first.
	Workspaces []Workspace
	// Next is the cursor of the next page; "" on the last.
	Next string
}

// WorkspacePage returns a page of every workspace of the fake, oldest first, from cursor (""
// for the first page, else the Next of the page before). A page costs what it holds, however
// many workspaces there are. A malformed cursor or a limit out of range is a 400 *Error; a
// cursor naming no workspace of this state (a reset ends every cursor) a 404.
func (s *Server) WorkspacePage(cursor string, limit int) (_ WorkspaceListPage, err error) {
	defer apiError(&err)
	if limit, err = listLimit(limit); err != nil {
		return WorkspaceListPage{}, err
	}
	after, err := cursorID(cursor, "workspaces")
	if err != nil {
		return WorkspaceListPage{}, err
	}
	wss, more, err := s.core.WorkspacePage(after, limit)
	if err != nil {
		return WorkspaceListPage{}, err
	}
	out := WorkspaceListPage{Workspaces: make([]Workspace, len(wss))}
	for i, ws := range wss {
		out.Workspaces[i] = Workspace{ID: ws.ID.String(), Type: string(ws.Type), Name: ws.Name}
	}
	if more && len(wss) > 0 {
		out.Next = wss[len(wss)-1].ID.String()
	}
	return out, nil
}

// FeedSummary is a hosted feed as FeedPage lists it.
type FeedSummary struct {
	ID, Title, FeedURL string
	Explicit, Broken   bool
	// Episodes is how many episodes it has.
	Episodes int
}

// FeedListPage is one page of FeedPage.
type FeedListPage struct {
	// Feeds are in the order they were hosted.
	Feeds []FeedSummary
	// Next is the cursor of the next page; "" on the last.
	Next string
}

// FeedPage returns a page of the hosted feeds in the order they were hosted, from cursor (""
// for the first page, else the Next of the page before), at a cost that follows the page. A
// malformed cursor or a limit out of range is a 400 *Error; a cursor naming no feed a 404.
func (s *Server) FeedPage(cursor string, limit int) (_ FeedListPage, err error) {
	defer apiError(&err)
	if limit, err = listLimit(limit); err != nil {
		return FeedListPage{}, err
	}
	after, err := cursorID(cursor, "feeds")
	if err != nil {
		return FeedListPage{}, err
	}
	heads, more, err := s.host.FeedPage(after, limit)
	if err != nil {
		return FeedListPage{}, err
	}
	out := FeedListPage{Feeds: make([]FeedSummary, len(heads))}
	for i, h := range heads {
		out.Feeds[i] = FeedSummary{ID: h.ID.String(), Title: h.Title, FeedURL: h.FeedURL, Explicit: h.Explicit, Broken: h.Broken, Episodes: h.Episodes}
	}
	if more && len(heads) > 0 {
		out.Next = heads[len(heads)-1].ID.String()
	}
	return out, nil
}

// ReportListFilter selects the reports of ReportListing.
type ReportListFilter struct {
	// WorkspaceID keeps one workspace's reports; "" lists every workspace's, the oldest
	// workspace first.
	WorkspaceID string
	// Status keeps the reports of one status; "" keeps all.
	Status string
	// Cursor is the Next of the page before (an id: of the report the page before ended on, or
	// of the workspace the next page starts at); "" is the first page.
	Cursor string
	// Limit is the page size: 0 means DefaultListLimit, at most MaxListLimit.
	Limit int
}

// ReportListPage is one page of ReportListing.
type ReportListPage struct {
	// Reports are each workspace's newest first, the workspaces oldest first.
	Reports []ReportSummary
	// Next is the cursor of the next page; "" on the last.
	Next string
}

// ReportListing returns a page of reports, of one workspace or of all, with their names and
// verdicts: each workspace's newest first, walking the workspaces oldest first. A page costs
// what it holds (and at most MaxWorkspacesPerReportPage workspaces passed), however many
// reports and workspaces there are. A malformed filter or cursor (or a cursor of another
// workspace than the filter's), or a limit out of range, is a 400 *Error; an unknown workspace,
// or a cursor naming nothing of this state (a reset ends every cursor), a 404.
func (s *Server) ReportListing(f ReportListFilter) (_ ReportListPage, err error) {
	defer apiError(&err)
	limit, err := listLimit(f.Limit)
	if err != nil {
		return ReportListPage{}, err
	}
	if f.Status != "" && !slices.Contains(reportStatuses, f.Status) {
		return ReportListPage{}, core.ErrValidation("status must be one of %v.", reportStatuses)
	}
	var only *uuid.UUID
	if f.WorkspaceID != "" {
		id, ok := core.CanonicalID(f.WorkspaceID)
		if !ok {
			return ReportListPage{}, core.ErrValidation("workspace_id must be a workspace's id (a lower-case uuid).")
		}
		if _, err := s.core.Workspace(id); err != nil {
			return ReportListPage{}, err
		}
		only = &id
	}
	// The cursor is an id: of the last report of the page before (the page goes on below it, in
	// its workspace), or of a workspace (the page starts at its top).
	var from *uuid.UUID
	after := ""
	if f.Cursor != "" {
		id, ok := core.CanonicalID(f.Cursor)
		if !ok {
			return ReportListPage{}, errCursor("reports")
		}
		if r, ok := s.core.ReportByID(id); ok {
			from, after = &r.Workspace, r.ID.String()
		} else if _, err := s.core.Workspace(id); err == nil {
			from = &id
		} else {
			return ReportListPage{}, core.ErrNotFound("The cursor's report or workspace")
		}
		if only != nil && *from != *only {
			return ReportListPage{}, errCursor("this workspace's reports")
		}
	}
	var wss []uuid.UUID
	switch {
	case only != nil:
		wss = []uuid.UUID{*only}
	case from != nil:
		wss = append([]uuid.UUID{*from}, s.core.WorkspacesAfter(from, MaxWorkspacesPerReportPage)...)
	default:
		wss = s.core.WorkspacesAfter(nil, MaxWorkspacesPerReportPage+1)
	}
	out := ReportListPage{Reports: make([]ReportSummary, 0, min(limit, 64))}
	for i, ws := range wss {
		if i == MaxWorkspacesPerReportPage || len(out.Reports) == limit {
			out.Next = ws.String() // the top of the next workspace
			break
		}
		page, err := s.Reports(ws.String(), ReportFilter{Status: f.Status, After: after, Limit: limit - len(out.Reports)})
		if err != nil {
			continue // the workspace (or the cursor's report) went with a reset meanwhile
		}
		after = ""
		for _, sum := range page.Reports {
			out.Reports = append(out.Reports, s.reportListItem(sum))
		}
		if page.Next != "" {
			out.Next = page.Next // the page's last report
			break
		}
	}
	return out, nil
}

// reportListItem is sum with its name by the core's rule (Core.ShownName: the name rule, else the
// id), which a list without room for an empty cell shows.
func (s *Server) reportListItem(sum ReportSummary) ReportSummary {
	if sum.Name != "" {
		return sum
	}
	if id, ok := core.CanonicalID(sum.ID); ok {
		if r, ok := s.core.ReportByID(id); ok {
			sum.Name = s.core.ShownName(r)
		}
	}
	return sum
}

// EventPageFilter selects the events of EventPage.
type EventPageFilter struct {
	// Kind keeps the events of one kind (one of the Event… constants); "" keeps all.
	Kind string
	// ReportID keeps the events about one report; "" keeps all.
	ReportID string
	// Cursor is the Next of the page before, or the Seq of the last event seen as text; ""
	// starts at the oldest event the record keeps.
	Cursor string
	// Limit is the page size: 0 means DefaultListLimit, at most MaxListLimit.
	Limit int
}

// EventListPage is one page of EventPage.
type EventListPage struct {
	// Events are oldest first.
	Events []Event
	// Next is the cursor of the next page; "" when the record holds nothing after the page.
	// To follow new events, pass the Seq of the last event seen.
	Next string
}

// listedEventKinds are the kinds EventPageFilter.Kind takes: every kind the record keeps.
var listedEventKinds = []string{
	EventReportCreated, EventReportStatus, EventReportFinished, EventDeliveryFailed, EventDeliverySucceeded,
	EventEndpointDisabled, EventFeedCheckFailed, EventFaultFired, EventRequestRefused, EventURLRefused,
	EventClockAdvanced, EventWorkspaceCreated, EventReset, EventEndpointSubscribed,
}

// EventPage returns a page of the event record, oldest first, after cursor. A page reads at
// most MaxEventScan events of the record, so it costs the same however many the record holds
// (a page of a rare kind may hold fewer than its limit and still have a Next). An unknown kind,
// a report id that is no uuid, a malformed cursor or a limit out of range is a 400 *Error.
func (s *Server) EventPage(f EventPageFilter) (_ EventListPage, err error) {
	defer apiError(&err)
	limit, err := listLimit(f.Limit)
	if err != nil {
		return EventListPage{}, err
	}
	if f.Kind != "" && !slices.Contains(listedEventKinds, f.Kind) {
		return EventListPage{}, core.ErrValidation("kind must be one of %s.", strings.Join(listedEventKinds, ", "))
	}
	if f.ReportID != "" {
		if _, ok := core.CanonicalID(f.ReportID); !ok {
			return EventListPage{}, core.ErrValidation("report_id must be a report's id (a lower-case uuid).")
		}
	}
	var afterSeq uint64
	if f.Cursor != "" {
		n, err := strconv.ParseUint(f.Cursor, 10, 64)
		if err != nil {
			return EventListPage{}, errCursor("events")
		}
		afterSeq = n
	}
	s.core.FlushNotices()
	events, last, _, more := s.events.page(f.Kind, f.ReportID, afterSeq, limit)
	out := EventListPage{Events: events}
	if out.Events == nil {
		out.Events = []Event{}
	}
	if more {
		out.Next = strconv.FormatUint(last, 10)
	}
	return out, nil
}
