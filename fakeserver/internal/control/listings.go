package control

import (
	"cmp"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/internal/apitime"
)

// The control API's listings, for a suite in any language: GET /_fake/workspaces,
// /_fake/feeds, /_fake/reports and /_fake/events, each a thin adapter of the listing the Go API
// adapts too (core.WorkspaceListing, hosted.FeedListing, core.ReportListing, and the facade's
// event record through Deps.EventPage), paged by cursor as
// {"items": [...], "next_cursor": "..." or null}.

// Event is an event of the facade's record as GET /_fake/events lists it: fakeserver.Event's
// twin, converted field for field.
type Event struct {
	Seq                   uint64
	At                    time.Time
	Level                 slog.Level
	Kind                  string
	Message               string
	WorkspaceID, ReportID string
	Attrs                 []slog.Attr
}

// EventFilter is what GET /_fake/events asks of the record (fakeserver.EventPageFilter).
type EventFilter struct {
	Kind, ReportID, Cursor string
	Limit                  int
}

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
	if err != nil || n < 1 || n > core.MaxListLimit {
		return 0, core.ErrValidation("limit must be an integer from 1 to %d.", core.MaxListLimit)
	}
	return n, nil
}

// ServeListWorkspaces is GET /_fake/workspaces: Server.WorkspacePage over HTTP.
func (a *API) ServeListWorkspaces(w http.ResponseWriter, r *http.Request) {
	limit, err := queryLimit(r)
	if err != nil {
		httpmw.WriteError(w, err)
		return
	}
	wss, next, err := a.core.WorkspaceListing(r.URL.Query().Get("cursor"), limit)
	items := make([]workspaceJSON, len(wss))
	for i, ws := range wss {
		items[i] = workspaceJSONOf(ws)
	}
	httpmw.Respond(w, http.StatusOK, pageOf(items, next), err)
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

// ServeListFeeds is GET /_fake/feeds: Server.FeedPage over HTTP.
func (a *API) ServeListFeeds(w http.ResponseWriter, r *http.Request) {
	limit, err := queryLimit(r)
	if err != nil {
		httpmw.WriteError(w, err)
		return
	}
	heads, next, err := a.host.FeedListing(r.URL.Query().Get("cursor"), limit)
	items := make([]feedJSON, len(heads))
	for i, h := range heads {
		items[i] = feedJSON{ID: h.ID.String(), Title: h.Title, FeedURL: h.FeedURL, Explicit: h.Explicit, Broken: h.Broken, Episodes: h.Episodes}
	}
	httpmw.Respond(w, http.StatusOK, pageOf(items, next), err)
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

// ServeListReports is GET /_fake/reports: Server.ReportListing over HTTP.
func (a *API) ServeListReports(w http.ResponseWriter, r *http.Request) {
	limit, err := queryLimit(r)
	if err != nil {
		httpmw.WriteError(w, err)
		return
	}
	q := r.URL.Query()
	heads, next, err := a.core.ReportListing(core.ReportListQuery{WorkspaceID: q.Get("workspace_id"), Status: q.Get("status"), Cursor: q.Get("cursor"), Limit: limit})
	items := make([]reportItemJSON, len(heads))
	for i, h := range heads {
		it := reportItemJSON{ID: h.ID.String(), WorkspaceID: h.Workspace.String(), Source: h.Source, Status: h.Status, Name: h.Name,
			CreatedAt: apitime.Format(h.CreatedAt), UpdatedAt: apitime.Format(h.UpdatedAt)}
		if h.Series != nil {
			id := h.Series.String()
			it.SeriesID = &id
		}
		if v := h.Verdict; v.Judged {
			it.Verdict = &verdictJSON{Passed: v.Passed, RequiredFailures: v.RequiredFailures, RequiredTotal: v.RequiredTotal, Standard: v.Standard}
		}
		items[i] = it
	}
	httpmw.Respond(w, http.StatusOK, pageOf(items, next), err)
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

// ServeListEvents is GET /_fake/events: Server.EventPage over HTTP.
func (a *API) ServeListEvents(w http.ResponseWriter, r *http.Request) {
	limit, err := queryLimit(r)
	if err != nil {
		httpmw.WriteError(w, err)
		return
	}
	q := r.URL.Query()
	items := make([]eventJSON, 0, cmp.Or(limit, core.DefaultListLimit))
	next, err := a.eventPage(EventFilter{Kind: q.Get("kind"), ReportID: q.Get("report_id"), Cursor: q.Get("cursor"), Limit: limit}, func(e Event) {
		ej := eventJSON{Seq: e.Seq, At: apitime.Format(e.At), Level: e.Level.String(), Kind: e.Kind, Message: e.Message,
			WorkspaceID: e.WorkspaceID, ReportID: e.ReportID, Attrs: make([]attrJSON, 0, len(e.Attrs))}
		for _, at := range e.Attrs {
			ej.Attrs = append(ej.Attrs, attrJSON{Key: at.Key, Value: at.Value.Resolve().String()})
		}
		items = append(items, ej)
	})
	httpmw.Respond(w, http.StatusOK, pageOf(items, next), err)
}
