package fakeserver

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// The journal page's cuts. A row shows at most maxUIPathShown characters of its path and
// query (the whole path and up to maxUITitleQuery bytes of the query in its title attribute)
// and maxUIBodyPreview bytes of its body; the request's own page shows the whole entry as the
// journal keeps it. With maxUIList rows, every byte escaped at worst to 6, the page stays under
// maxJournalPageBytes whatever tenants send (docs/fakeserver.md, Limits).
const (
	maxUIPathShown   = 72
	maxUITitleQuery  = 256
	maxUIBodyPreview = 256
)

// uiJournalRow is one journal entry as the list shows it.
type uiJournalRow struct {
	JournalEntry
	// Shown is the path and query as the row shows them, cut with "…"; Whole is what the
	// row's title attribute holds.
	Shown, Whole string
	// Preview is the start of the body; PreviewCut says there is more on the request's page.
	Preview    string
	PreviewCut bool
	// Took is the duration rounded to three significant digits.
	Took string
	// Link is the request's own page.
	Link string
	// Fault names the armed fault that acted on the request, if one did.
	Fault *uiFaultRef
}

// uiFaultRef is a fault a journal entry names, linked to where the dashboard shows it: its row
// on the faults page while it is armed, else the record's fault.fired events.
type uiFaultRef struct {
	ID, What, Link string
	Armed          bool
}

// cutRunes is s cut to n characters with "…", and whether it was cut.
func cutRunes(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	i, count := 0, 0
	for i = range s {
		if count == n {
			break
		}
		count++
	}
	return s[:i] + "…", true
}

// faultRefs names the armed faults by id, for the rows that name one.
func (s *Server) faultRefs() map[string]*uiFaultRef {
	out := map[string]*uiFaultRef{}
	for _, f := range s.Faults() {
		out[f.ID] = &uiFaultRef{ID: f.ID, What: faultAction(f.Fault), Link: dashboard.Path + "/faults#fault-" + f.ID, Armed: true}
	}
	return out
}

// faultAction says in a few words what a fault does.
func faultAction(f Fault) string {
	var parts []string
	if f.Latency > 0 {
		parts = append(parts, "latency "+roundDuration(f.Latency))
	}
	switch {
	case f.Status != 0:
		parts = append(parts, fmt.Sprintf("status %d", f.Status))
	case f.Reset != "":
		parts = append(parts, "reset "+f.Reset)
	case f.TruncateAfterBytes != nil:
		parts = append(parts, fmt.Sprintf("truncate after %d B", *f.TruncateAfterBytes))
	}
	if f.ThrottleBytesPerS > 0 {
		parts = append(parts, fmt.Sprintf("throttle %d B/s", f.ThrottleBytesPerS))
	}
	return strings.Join(parts, ", ")
}

// journalRow builds a row of the journal's list.
func journalRow(e JournalEntry, faults map[string]*uiFaultRef) uiJournalRow {
	row := uiJournalRow{JournalEntry: e, Took: roundDuration(e.Duration)}
	target := e.Path
	if e.Query != "" {
		target += "?" + e.Query
	}
	row.Shown, _ = cutRunes(target, maxUIPathShown)
	query, cut := cutText(e.Query, maxUITitleQuery)
	row.Whole = e.Path
	if e.Query != "" {
		row.Whole += "?" + query
	}
	if cut || e.PathTruncated || e.QueryTruncated {
		row.Whole += " … (cut: the request's page shows what the journal keeps)"
	}
	row.Preview, row.PreviewCut = cutText(e.RequestBody, maxUIBodyPreview)
	row.Link = dashboard.Path + "/requests/" + e.ID + "?at=" + url.QueryEscape(e.At.UTC().Format(time.RFC3339Nano))
	if e.FaultID != "" {
		row.Fault = faults[e.FaultID]
		if row.Fault == nil {
			row.Fault = &uiFaultRef{ID: e.FaultID, Link: dashboard.Path + "/events?kind=" + EventFaultFired}
		}
	}
	return row
}

// requestView is one journal entry's own page: the whole entry as the journal keeps it.
type requestView struct {
	Row uiJournalRow
}

// findRequest is the journal entry id names. at, the entry's fake-clock instant when the link
// gives it, bounds the search to the entries since then; without it every entry is searched.
func (s *Server) findRequest(id string, at time.Time) (JournalEntry, bool) {
	size := max(s.opts.journalSize, 1)
	for _, e := range s.Requests(RequestFilter{Since: at, Limit: size}) {
		if e.ID == id {
			return e, true
		}
	}
	return JournalEntry{}, false
}

func (ui *dashboardUI) handleRequest(w http.ResponseWriter, r *http.Request) {
	var at time.Time
	if raw := r.URL.Query().Get("at"); raw != "" {
		t, err := time.Parse(time.RFC3339Nano, raw)
		if err != nil {
			ui.renderError(w, r, core.ErrValidation("at must be an RFC 3339 instant, as the journal's links give it."))
			return
		}
		at = t
	}
	e, ok := ui.s.findRequest(httpmw.PathID(r, "id"), at)
	if !ok {
		ui.renderError(w, r, core.ErrNotFound("Journal entry"))
		return
	}
	title, _ := cutRunes(e.Method+" "+e.Path, maxUIPathShown)
	ui.render(w, r, http.StatusOK, "request", dashboard.Page{Title: "Request " + title, Data: requestView{Row: journalRow(e, ui.s.faultRefs())}})
}

// The dashboard's page sizes, in bytes, whatever tenants send (docs/fakeserver.md, Limits):
// every text a page shows is cut, and TestPagesBoundedWhateverTenantsSend renders each with
// every text at its cap in characters escaped to five bytes.
const (
	maxJournalPageBytes  = 2560 << 10
	maxRequestPageBytes  = 512 << 10
	maxEndpointPageBytes = 2560 << 10
)
