package dashboard

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// A dashboard page's stamp is a fingerprint of what that page shows, so that its script
// refreshes it only when its own content changed, and never because of what it does not show.
// The page carries its stamp (body data-version) and the state URL that recomputes it (body
// data-state: /_fake/ui/state?page=<the page's path and query>); the script polls that URL at
// most once a second.
//
// The request journal's stamp leaves the journal out unless the page follows it (?follow=1):
// by default the page is a snapshot, so no tenant's requests re-render an open dashboard; a
// page that follows re-renders when a request it would list arrives (its method, path, status
// and key filters), at most once a second and within its bounded size. No other page shows
// the journal, so no other stamp reads it.

// pageStamp is the stamp of the page at target, a dashboard path and query (LocalPath's
// answer for anything else: the overview).
func (ui *UI) pageStamp(target string) string {
	u, err := url.Parse(LocalPath(target))
	if err != nil {
		u = &url.URL{Path: Path + "/"}
	}
	h := sha256.New()
	if ui.deps.Clock.Manual() {
		// Every page shows the manual clock's instant and what is due at it.
		fmt.Fprintln(h, ui.deps.Clock.Now().UnixNano())
	}
	p, q := u.Path, u.Query()
	switch {
	case p == Path+"/requests":
		ui.faultStamp(h, false)
		if q.Get("follow") == "1" {
			ui.journalStamp(h, q)
		}
	case strings.HasPrefix(p, Path+"/requests/"):
		// A journal entry never changes; only the clock above and the faults it links.
		ui.faultStamp(h, false)
	case strings.HasPrefix(p, Path+"/endpoints/"):
		if id, ok := uuidAfter(p, Path+"/endpoints/"); ok {
			ui.endpointStamp(h, id)
		}
	case strings.HasPrefix(p, Path+"/workspaces/") && strings.HasSuffix(p, "/webhooks"):
		if id, ok := uuidAfter(strings.TrimSuffix(p, "/webhooks"), Path+"/workspaces/"); ok {
			if eps, err := ui.deps.Core.Endpoints(id); err == nil {
				for _, ep := range eps {
					fmt.Fprintln(h, ep.ID, ep.Enabled)
					ui.endpointStamp(h, ep.ID)
				}
			}
		}
	case p == Path+"/feeds":
		for _, f := range ui.deps.Host.Feeds() {
			fmt.Fprintln(h, f.ID, f.Title, f.FeedURL, f.Explicit, f.Broken, len(f.Episodes))
			for _, e := range f.Episodes {
				fmt.Fprintln(h, e.GUID, e.Title, e.Length)
			}
		}
	case p == Path+"/faults":
		ui.faultStamp(h, true)
	default:
		// The other pages (overview, workspaces, reports, emails, events): what the fake
		// recorded, as uiVersion reads it.
		fmt.Fprintln(h, ui.version())
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func uuidAfter(p, prefix string) (uuid.UUID, bool) {
	return core.CanonicalID(strings.TrimPrefix(p, prefix))
}

// faultStamp writes the armed faults, and with counts how often each matched and fired
// (which any tenant's request moves: only the faults page shows them).
func (ui *UI) faultStamp(h hash.Hash, counts bool) {
	for _, f := range ui.deps.Faults() {
		if counts {
			fmt.Fprintln(h, f.ID, f.Matches, f.Fired)
		} else {
			fmt.Fprintln(h, f.ID)
		}
	}
}

// journalStamp writes the newest entry the journal page with query q would list: one journal
// read of at most MaxList entries.
func (ui *UI) journalStamp(h hash.Hash, q url.Values) {
	f := RequestFilter{Method: q.Get("method"), PathPrefix: q.Get("path"), Limit: 1}
	fmt.Sscan(q.Get("status"), &f.Status)
	key := q.Get("key")
	if key != "" {
		f.Limit = MaxList
	}
	for _, e := range ui.deps.Requests(f) {
		if strings.HasPrefix(e.MaskedKey, key) {
			fmt.Fprintln(h, e.ID)
			return
		}
	}
}

// endpointStamp writes an endpoint's state and its deliveries' (at most its log of 20).
func (ui *UI) endpointStamp(h hash.Hash, id uuid.UUID) {
	ep, err := ui.deps.Core.EndpointByID(id)
	if err != nil {
		return
	}
	fmt.Fprintln(h, ep.Enabled)
	if ds, err := ui.deps.Core.Deliveries(&id); err == nil {
		for _, d := range ds {
			fmt.Fprintln(h, d.ID, d.Status, d.Attempts)
		}
	}
}

// version is a fingerprint of what the dashboard shows but the journal: the manual clock,
// the newest event raised, and the deliveries and emails made. Its cost is that of one pass
// over the deliveries (at most 20 an endpoint), not of the reports. No page but the journal's
// shows requests, so a request changes it only through what it makes (see pageStamp).
func (ui *UI) version() string {
	h := sha256.New()
	if ui.deps.Clock.Manual() {
		fmt.Fprintln(h, ui.deps.Clock.Now().UnixNano())
	}
	fmt.Fprintln(h, ui.deps.LastEventSeq())
	if ds, err := ui.deps.Core.Deliveries(nil); err == nil {
		for _, d := range ds {
			fmt.Fprintln(h, d.ID, d.Status, d.Attempts)
		}
	}
	if es, err := ui.deps.Core.Emails(nil); err == nil {
		fmt.Fprintln(h, len(es))
	}
	fmt.Fprintln(h, len(ui.deps.Faults()))
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// fill sets what the layout shows on every page but the login form: the clock, where the
// advance returns, the page's stamp and its state URL.
func (ui *UI) fill(r *http.Request, page *Page) {
	page.Now = ui.deps.Clock.Now()
	page.ManualClock = ui.deps.Clock.Manual()
	if strings.HasPrefix(r.URL.Path, Path+"/") && r.Method == http.MethodGet {
		page.Back = r.URL.RequestURI()
	}
	page.Version, page.StateURL = ui.pageStamp(r.URL.RequestURI()), StateURL(r.URL.RequestURI())
}

// stateAnswer is GET /_fake/ui/state: what the page's script polls.
type stateAnswer struct {
	Version string `json:"version"`
	Now     string `json:"now"`
}

// ServeState is the state the page's script polls: the stamp of the page it names.
func (ui *UI) ServeState(w http.ResponseWriter, r *http.Request) {
	httpmw.WriteJSON(w, http.StatusOK, stateAnswer{Version: ui.pageStamp(r.URL.Query().Get("page")), Now: ui.deps.Clock.Now().UTC().Format("2006-01-02 15:04:05.000Z")})
}
