package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// MaxList bounds every list a dashboard page shows that has no cursor of its own.
const MaxList = 200

// The journal page's cuts. A row shows at most MaxPathShown characters of its path and
// query (the whole path and up to MaxTitleQuery bytes of the query in its title attribute)
// and MaxBodyPreview bytes of its body; the request's own page shows the whole entry as the
// journal keeps it. With MaxList rows, every byte escaped at worst to 6, the page stays under
// MaxJournalPageBytes whatever tenants send (BEHAVIOUR.md, "The dashboard").
const (
	MaxPathShown   = 72
	MaxTitleQuery  = 256
	MaxBodyPreview = 256
)

// The journal's pages' sizes, in bytes, whatever tenants send: every text a page shows is
// cut, and TestJournalPagesBoundedWhateverTenantsSend renders each with every text at its cap
// in characters escaped to five bytes.
const (
	MaxJournalPageBytes = 2560 << 10
	MaxRequestPageBytes = 512 << 10
)

// JournalEntry is a request as the journal keeps it: journal.Entry's fields, which the facade
// converts (a conversion that stops compiling if the two drift). The dashboard reads the
// journal through Deps.Requests, never the journal's package, as no surface imports another.
type JournalEntry struct {
	ID                          string
	At                          time.Time
	Method                      string
	Path                        string
	PathTruncated               bool
	Query                       string
	QueryTruncated              bool
	Status                      int
	WorkspaceID                 string
	APIKeyID                    string
	MaskedKey                   string
	RequestContentType          string
	RequestContentTypeTruncated bool
	RequestBody                 string
	RequestBodyTruncated        bool
	ErrorCode                   string
	Duration                    time.Duration
	FaultID                     string
}

// RequestFilter selects journal entries: journal.Filter's fields.
type RequestFilter struct {
	WorkspaceID string
	Method      string
	PathPrefix  string
	Status      int
	Since       time.Time
	Limit       int
}

// Fault is an armed fault's rule: faults.Fault's fields.
type Fault struct {
	Method             string
	PathPrefix         string
	Status             int
	RetryAfter         time.Duration
	Count              int
	Latency            time.Duration
	Jitter             time.Duration
	Reset              string
	TruncateAfterBytes *int64
	ThrottleBytesPerS  int64
	Probability        *float64
	After              int
}

// ArmedFault is an armed fault with its counts: faults.Armed's fields.
type ArmedFault struct {
	ID string
	Fault
	Matches int
	Fired   int
}

// journalRow is one journal entry as the list shows it.
type journalRow struct {
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
	Fault *faultRef
}

// faultRef is a fault a journal entry names, linked to where the dashboard shows it: its row
// on the faults page while it is armed, else the record's fault.fired events.
type faultRef struct {
	ID, What, Link string
	Armed          bool
}

// CutRunes is s cut to n characters with "…", and whether it was cut.
func CutRunes(s string, n int) (string, bool) {
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

// RoundDuration is d to three significant digits (999ns, 18.5µs, 1.98ms, 123ms, 1.23s).
func RoundDuration(d time.Duration) string {
	if d <= 0 {
		return d.String()
	}
	unit := time.Duration(1)
	for v := d; v >= 1000; v /= 10 {
		unit *= 10
	}
	return d.Round(unit).String()
}

// faultRefs names the armed faults by id, for the rows that name one.
func (ui *UI) faultRefs() map[string]*faultRef {
	out := map[string]*faultRef{}
	for _, f := range ui.deps.Faults() {
		out[f.ID] = &faultRef{ID: f.ID, What: faultAction(f.Fault), Link: Path + "/faults#fault-" + f.ID, Armed: true}
	}
	return out
}

// faultAction says in a few words what a fault does.
func faultAction(f Fault) string {
	var parts []string
	if f.Latency > 0 {
		parts = append(parts, "latency "+RoundDuration(f.Latency))
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

// rowOf builds a row of the journal's list; a fault no longer armed links the events of kind
// faultFired.
func rowOf(e JournalEntry, faults map[string]*faultRef, faultFired string) journalRow {
	row := journalRow{JournalEntry: e, Took: RoundDuration(e.Duration)}
	target := e.Path
	if e.Query != "" {
		target += "?" + e.Query
	}
	row.Shown, _ = CutRunes(target, MaxPathShown)
	query, cut := httpmw.CutText(e.Query, MaxTitleQuery)
	row.Whole = e.Path
	if e.Query != "" {
		row.Whole += "?" + query
	}
	if cut || e.PathTruncated || e.QueryTruncated {
		row.Whole += " … (cut: the request's page shows what the journal keeps)"
	}
	row.Preview, row.PreviewCut = httpmw.CutText(e.RequestBody, MaxBodyPreview)
	row.Link = Path + "/requests/" + e.ID + "?at=" + url.QueryEscape(e.At.UTC().Format(time.RFC3339Nano))
	if e.FaultID != "" {
		row.Fault = faults[e.FaultID]
		if row.Fault == nil {
			row.Fault = &faultRef{ID: e.FaultID, Link: Path + "/events?kind=" + faultFired}
		}
	}
	return row
}

// requestsView is the request journal's page.
type requestsView struct {
	Method, Path, Status, KeyPrefix string
	// Follow makes the page live: it refreshes when a request it would list arrives (see the
	// facade's pageStamp); otherwise it is a snapshot that no tenant's request re-renders.
	Follow  bool
	Entries []journalRow
	// Scanned counts the entries read to fill the page; Capped says the page stopped at its
	// size.
	Scanned int
	Capped  bool
}

// ServeRequests is the journal's page: its newest MaxList entries the filters select.
func (ui *UI) ServeRequests(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := requestsView{Method: q.Get("method"), Path: q.Get("path"), Status: q.Get("status"), KeyPrefix: q.Get("key"), Follow: q.Get("follow") == "1"}
	f := RequestFilter{Method: v.Method, PathPrefix: v.Path, Limit: ui.deps.MaxRequests}
	if v.Status != "" {
		n, err := strconv.Atoi(v.Status)
		if err != nil || n < 100 || n > 599 {
			ui.RenderError(w, r, core.ErrValidation("status must be an HTTP status from 100 to 599."))
			return
		}
		f.Status = n
	}
	if v.KeyPrefix == "" {
		f.Limit = MaxList
	}
	entries := ui.deps.Requests(f)
	v.Scanned = len(entries)
	faults := ui.faultRefs()
	for _, e := range entries {
		if v.KeyPrefix != "" && !strings.HasPrefix(e.MaskedKey, v.KeyPrefix) {
			continue
		}
		if len(v.Entries) == MaxList {
			v.Capped = true
			break
		}
		v.Entries = append(v.Entries, rowOf(e, faults, ui.deps.FaultFiredKind))
	}
	ui.Render(w, r, http.StatusOK, "requests", Page{Title: "Request journal", Data: v})
}

// requestView is one journal entry's own page: the whole entry as the journal keeps it.
type requestView struct {
	Row journalRow
}

// findRequest is the journal entry id names. at, the entry's fake-clock instant when the link
// gives it, bounds the search to the entries since then; without it every entry is searched.
func (ui *UI) findRequest(id string, at time.Time) (JournalEntry, bool) {
	size := max(ui.deps.JournalSize, 1)
	for _, e := range ui.deps.Requests(RequestFilter{Since: at, Limit: size}) {
		if e.ID == id {
			return e, true
		}
	}
	return JournalEntry{}, false
}

// ServeRequest is a journal entry's own page.
func (ui *UI) ServeRequest(w http.ResponseWriter, r *http.Request) {
	var at time.Time
	if raw := r.URL.Query().Get("at"); raw != "" {
		t, err := time.Parse(time.RFC3339Nano, raw)
		if err != nil {
			ui.RenderError(w, r, core.ErrValidation("at must be an RFC 3339 instant, as the journal's links give it."))
			return
		}
		at = t
	}
	e, ok := ui.findRequest(httpmw.PathID(r, "id"), at)
	if !ok {
		ui.RenderError(w, r, core.ErrNotFound("Journal entry"))
		return
	}
	title, _ := CutRunes(e.Method+" "+e.Path, MaxPathShown)
	ui.Render(w, r, http.StatusOK, "request", Page{Title: "Request " + title, Data: requestView{Row: rowOf(e, ui.faultRefs(), ui.deps.FaultFiredKind)}})
}

// ServeFaults is the armed faults' page.
func (ui *UI) ServeFaults(w http.ResponseWriter, r *http.Request) {
	ui.Render(w, r, http.StatusOK, "faults", Page{Title: "Armed faults", Data: ui.deps.Faults()})
}
