package fakeserver

import (
	"net/http"
	"strconv"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/internal/apitime"
)

// The control API's listings, for a suite in any language: GET /_fake/workspaces,
// /_fake/feeds, /_fake/reports and /_fake/events, each a thin adapter of its Go API method
// (WorkspacePage, FeedPage, ReportListing, EventPage), paged by cursor as
// {"items": [...], "next_cursor": "..." or null}.

// listJSON is a page of a control listing.
type listJSON[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

func pageOf[T any](items []T, next string) listJSON[T] {
	out := listJSON[T]{Items: items}
	if out.Items == nil {
		out.Items = []T{}
	}
	if next != "" {
		out.NextCursor = &next
	}
	return out
}

// queryLimit reads the limit parameter (the contract's checks have held it to 1..MaxListLimit).
func queryLimit(r *http.Request) (int, error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxListLimit {
		return 0, core.ErrValidation("limit must be an integer from 1 to %d.", MaxListLimit)
	}
	return n, nil
}

func (s *Server) handleListWorkspaces(w http.ResponseWriter, r *http.Request) {
	limit, err := queryLimit(r)
	if err != nil {
		writeError(w, err)
		return
	}
	page, err := s.WorkspacePage(r.URL.Query().Get("cursor"), limit)
	respond(w, http.StatusOK, pageOf(page.Workspaces, page.Next), err)
}

// feedJSON is a hosted feed in GET /_fake/feeds.
type feedJSON struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	FeedURL  string `json:"feed_url"`
	Explicit bool   `json:"explicit"`
	Broken   bool   `json:"broken"`
	Episodes int    `json:"episodes"`
}

func (s *Server) handleListFeeds(w http.ResponseWriter, r *http.Request) {
	limit, err := queryLimit(r)
	if err != nil {
		writeError(w, err)
		return
	}
	page, err := s.FeedPage(r.URL.Query().Get("cursor"), limit)
	items := make([]feedJSON, len(page.Feeds))
	for i, f := range page.Feeds {
		items[i] = feedJSON(f)
	}
	respond(w, http.StatusOK, pageOf(items, page.Next), err)
}

// reportItemJSON is a report in GET /_fake/reports.
type reportItemJSON struct {
	ID          string       `json:"id"`
	WorkspaceID string       `json:"workspace_id"`
	SeriesID    *string      `json:"series_id"`
	Source      string       `json:"source"`
	Status      string       `json:"status"`
	Name        string       `json:"name"`
	Verdict     *verdictJSON `json:"verdict"`
	CreatedAt   string       `json:"created_at"`
	UpdatedAt   string       `json:"updated_at"`
}

type verdictJSON struct {
	Passed           bool   `json:"passed"`
	RequiredFailures int    `json:"required_failures"`
	RequiredTotal    int    `json:"required_total"`
	Standard         string `json:"standard"`
}

func (s *Server) handleListReports(w http.ResponseWriter, r *http.Request) {
	limit, err := queryLimit(r)
	if err != nil {
		writeError(w, err)
		return
	}
	q := r.URL.Query()
	page, err := s.ReportListing(ReportListFilter{WorkspaceID: q.Get("workspace_id"), Status: q.Get("status"), Cursor: q.Get("cursor"), Limit: limit})
	items := make([]reportItemJSON, len(page.Reports))
	for i, rep := range page.Reports {
		it := reportItemJSON{ID: rep.ID, WorkspaceID: rep.WorkspaceID, Source: rep.Source, Status: rep.Status, Name: rep.Name,
			CreatedAt: apitime.Format(rep.CreatedAt), UpdatedAt: apitime.Format(rep.UpdatedAt)}
		if rep.SeriesID != "" {
			id := rep.SeriesID
			it.SeriesID = &id
		}
		if v := rep.Verdict; v.Judged {
			it.Verdict = &verdictJSON{Passed: v.Passed, RequiredFailures: v.RequiredFailures, RequiredTotal: v.RequiredTotal, Standard: v.Standard}
		}
		items[i] = it
	}
	respond(w, http.StatusOK, pageOf(items, page.Next), err)
}

// eventJSON is an event in GET /_fake/events.
type eventJSON struct {
	Seq         uint64     `json:"seq"`
	At          string     `json:"at"`
	Level       string     `json:"level"`
	Kind        string     `json:"kind"`
	Message     string     `json:"message"`
	WorkspaceID string     `json:"workspace_id"`
	ReportID    string     `json:"report_id"`
	Attrs       []attrJSON `json:"attrs"`
}

type attrJSON struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

func (s *Server) handleListEvents(w http.ResponseWriter, r *http.Request) {
	limit, err := queryLimit(r)
	if err != nil {
		writeError(w, err)
		return
	}
	q := r.URL.Query()
	page, err := s.EventPage(EventPageFilter{Kind: q.Get("kind"), ReportID: q.Get("report_id"), Cursor: q.Get("cursor"), Limit: limit})
	items := make([]eventJSON, len(page.Events))
	for i, e := range page.Events {
		ej := eventJSON{Seq: e.Seq, At: apitime.Format(e.At), Level: e.Level.String(), Kind: e.Kind, Message: e.Message,
			WorkspaceID: e.WorkspaceID, ReportID: e.ReportID, Attrs: make([]attrJSON, 0, len(e.Attrs))}
		for _, a := range e.Attrs {
			ej.Attrs = append(ej.Attrs, attrJSON{Key: a.Key, Value: a.Value.Resolve().String()})
		}
		items[i] = ej
	}
	respond(w, http.StatusOK, pageOf(items, page.Next), err)
}
