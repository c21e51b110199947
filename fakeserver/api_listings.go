package fakeserver

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// Bounds of the paged listings (WorkspacePage, FeedPage, ReportListing, EventPage) and of
// their control routes (GET /_fake/workspaces, /_fake/feeds, /_fake/reports, /_fake/events).
// The core enforces them (core.ListLimit, core.ReportsOf); TestListBoundsAreTheCores holds
// these figures to its.
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
	wss, next, err := s.core.WorkspaceListing(cursor, limit)
	if err != nil {
		return WorkspaceListPage{}, err
	}
	out := WorkspaceListPage{Workspaces: make([]Workspace, len(wss)), Next: next}
	for i, ws := range wss {
		out.Workspaces[i] = workspaceOf(ws)
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
	heads, next, err := s.host.FeedListing(cursor, limit)
	if err != nil {
		return FeedListPage{}, err
	}
	out := FeedListPage{Feeds: make([]FeedSummary, len(heads)), Next: next}
	for i, h := range heads {
		out.Feeds[i] = FeedSummary{ID: h.ID.String(), Title: h.Title, FeedURL: h.FeedURL, Explicit: h.Explicit, Broken: h.Broken, Episodes: h.Episodes}
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
	heads, next, err := s.core.ReportListing(core.ReportListQuery(f))
	if err != nil {
		return ReportListPage{}, err
	}
	out := ReportListPage{Reports: make([]ReportSummary, len(heads)), Next: next}
	for i, h := range heads {
		out.Reports[i] = reportHeadSummary(h)
	}
	return out, nil
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
	limit, err := core.ListLimit(f.Limit)
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
			return EventListPage{}, core.ErrCursor("events")
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

// Workspaces returns every workspace of the fake, oldest first: what the fake's own pages and
// the report of a run list. An organisation's owner has a personal workspace of its own, which
// is listed too.
func (s *Server) Workspaces() []Workspace {
	wss := s.core.AllWorkspaces()
	out := make([]Workspace, len(wss))
	for i, ws := range wss {
		out[i] = workspaceOf(ws)
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

// Reports returns one page of a workspace's reports, newest first. A page costs what it holds
// (plus the reports a filter skips), however many reports the workspace has. Bad input (an
// unknown status, a malformed series id or cursor, a limit out of range) is a 400 *Error; an
// unknown workspace a 404.
func (s *Server) Reports(workspaceID string, f ReportFilter) (_ ReportPage, err error) {
	defer apiError(&err)
	page, next, err := s.core.ReportsOf(workspaceID, core.ReportsQuery(f))
	if err != nil {
		return ReportPage{}, err
	}
	out := ReportPage{Reports: make([]ReportSummary, len(page.Reports)), Next: next, Total: page.Total}
	for i, h := range page.Reports {
		out.Reports[i] = reportHeadSummary(h)
	}
	return out, nil
}

// reportHeadSummary is a listed report as the Go API shows it.
func reportHeadSummary(h core.ReportHead) ReportSummary {
	out := ReportSummary{
		ID: h.ID.String(), WorkspaceID: h.Workspace.String(), Source: h.Source, Status: h.Status,
		CreatedAt: h.CreatedAt, UpdatedAt: h.UpdatedAt, Name: h.Name, Verdict: verdictView(h.Verdict),
	}
	if h.Series != nil {
		out.SeriesID = h.Series.String()
	}
	return out
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
