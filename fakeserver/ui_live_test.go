package fakeserver

import (
	"net/http"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// The live-update script's contract with the pages (static/dashboard.js): <main> opts in with
// data-live, the pause switch is in the header (hidden until the script shows it, so that a
// page without the script offers no dead button), and every <details> has an identity the
// script keeps its open state by.
func TestDashboardPagesTakePartInLiveUpdates(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	demoEndpoint(t, srv, seed, "http://127.0.0.1:1/hook")
	lufs, peak := -16.0, -1.5
	report := hostedReport(t, srv, seed, HostedEpisode{Title: "Live", Duration: 4 * time.Second, LoudnessLUFS: &lufs, TruePeakDB: &peak, Format: "wav", Channels: 2})
	admin := browser(bearer(srv.AdminToken()))
	pages := append(uiPages(t, srv, seed), "/_fake/ui/reports/"+report, "/_fake/ui/workspaces/"+seed.WorkspaceID, "/_fake/ui/events")
	// The journal's and the webhook endpoint's pages give their rows an identity in their own
	// change (their <details> sit in rows that are to carry data-id); the rule on <details>
	// holds on the pages below.
	keyed := map[string]bool{"/_fake/ui/reports/" + report: true, "/_fake/ui/workspaces/" + seed.WorkspaceID: true,
		"/_fake/ui/events": true, "/_fake/ui/": true, "/_fake/ui/feeds": true, "/_fake/ui/faults": true}
	details := 0
	for _, p := range pages {
		w := uiDo(t, srv, uiReq{method: "GET", target: p, header: admin})
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d", p, w.Code)
		}
		doc := page(t, w.Body.String())
		if _, ok := attr(byID(t, doc, "main"), "data-live"); !ok {
			t.Errorf("%s: <main> does not opt in to live updates", p)
		}
		toggle := byID(t, doc, "live-toggle")
		if _, hidden := attr(toggle, "hidden"); !hidden || toggle.Data != "button" {
			t.Errorf("%s: the pause switch %v", p, toggle.Attr)
		}
		if !keyed[p] {
			continue
		}
		for _, d := range find(doc, func(n *html.Node) bool { return n.Data == "details" }) {
			details++
			id, _ := attr(d, "id")
			key, _ := attr(d, "data-live-key")
			if id == "" && key == "" {
				t.Errorf("%s: a <details> without id or data-live-key: %v", p, d.Attr)
			}
			if _, open := attr(d, "open"); open {
				t.Errorf("%s: <details id=%q> is rendered open: its state is the reader's", p, id)
			}
		}
	}
	if details == 0 {
		t.Error("no page has a <details>: the rule above checked nothing")
	}
	// The login form shows nothing live.
	doc := page(t, uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/login", header: browser(nil)}).Body.String())
	if _, ok := attr(byID(t, doc, "main"), "data-live"); ok {
		t.Error("the login form opts in to live updates")
	}
}
