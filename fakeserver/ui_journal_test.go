package fakeserver

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
)

// journalPage is the journal page at query as the admin's browser gets it.
func journalPage(t *testing.T, srv *Server, query string) string {
	t.Helper()
	w := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/requests" + query, header: browser(bearer(srv.AdminToken()))})
	if w.Code != http.StatusOK {
		t.Fatalf("journal page: %d %s", w.Code, w.Body)
	}
	return w.Body.String()
}

// TestJournalRowsFit: a long path and query are cut in the row and whole (the path, the query
// up to dashboard.MaxTitleQuery) in its title; a body shows at most dashboard.MaxBodyPreview bytes, the whole
// of it on the request's own page; durations are rounded.
func TestJournalRowsFit(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	long := strings.Repeat("a", 200)
	body := `{"name":"` + strings.Repeat("b", 2000) + `END"}`
	call(t, srv, "POST", "/api/rest/v1/reports?x="+long, jsonHeader(bearer(seed.APIKey)), body)
	page := journalPage(t, srv, "")
	row := regexp.MustCompile(`(?s)<tr class="entry".*?</tr>`).FindString(page)
	if row == "" {
		t.Fatalf("no row: %s", page)
	}
	shown := regexp.MustCompile(`<code title="([^"]*)">([^<]*)</code>`).FindStringSubmatch(row)
	if shown == nil {
		t.Fatalf("no path cell in %s", row)
	}
	whole, cut := html.UnescapeString(shown[1]), html.UnescapeString(shown[2])
	if whole != "/api/rest/v1/reports?x="+long || len([]rune(cut)) != dashboard.MaxPathShown+1 || !strings.HasSuffix(cut, "…") || !strings.HasPrefix(whole, strings.TrimSuffix(cut, "…")) {
		t.Fatalf("path shown %q, title %q", cut, whole)
	}
	pre := regexp.MustCompile(`(?s)<pre tabindex="0">(.*?)</pre>`).FindStringSubmatch(row)
	if pre == nil || len(html.UnescapeString(pre[1])) != dashboard.MaxBodyPreview || strings.Contains(row, "END") {
		t.Fatalf("the row's body preview: %d bytes, the end shown %v", len(strings.Join(pre, "")), strings.Contains(row, "END"))
	}
	// The duration is the wall time the fake took, so the row is checked for its shape only;
	// TestRoundDuration pins the rounding on fixed durations.
	if took := regexp.MustCompile(`<td>([0-9.]+(?:ns|µs|ms|s))</td>`).FindStringSubmatch(row); took == nil {
		t.Fatalf("no duration in the row: %s", row)
	}
	link := regexp.MustCompile(`<a href="(/_fake/ui/requests/[^"]+)">`).FindStringSubmatch(row)
	if link == nil {
		t.Fatalf("no link to the request's page in %s", row)
	}
	w := uiDo(t, srv, uiReq{method: "GET", target: html.UnescapeString(link[1]), header: browser(bearer(srv.AdminToken()))})
	if w.Code != http.StatusOK || !strings.Contains(html.UnescapeString(w.Body.String()), body) {
		t.Fatalf("request page: %d, whole body shown: %v", w.Code, strings.Contains(html.UnescapeString(w.Body.String()), body))
	}
	for target, want := range map[string]int{
		"/_fake/ui/requests/00000000-0000-4000-8000-000000000000": http.StatusNotFound,
		"/_fake/ui/requests/x?at=yesterday":                       http.StatusBadRequest,
	} {
		if w := uiDo(t, srv, uiReq{method: "GET", target: target, header: bearer(srv.AdminToken())}); w.Code != want {
			t.Errorf("%s: %d, want %d", target, w.Code, want)
		}
	}
}

// TestJournalLinksTheFault: a request a fault failed names the fault and links it: its row on
// the faults page while it is armed, the record's fault.fired events once it has disarmed.
func TestJournalLinksTheFault(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	once, err := srv.InjectFault(Fault{PathPrefix: "/api/rest/v1/me", Status: http.StatusServiceUnavailable, Count: 1})
	if err != nil {
		t.Fatal(err)
	}
	armed, err := srv.InjectFault(Fault{PathPrefix: "/api/rest/v1/series", Status: http.StatusInternalServerError})
	if err != nil {
		t.Fatal(err)
	}
	call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), "")
	call(t, srv, "GET", "/api/rest/v1/series", bearer(seed.APIKey), "")
	call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), "") // the first fault is gone: no link
	entries := srv.Requests(RequestFilter{})
	if len(entries) != 3 || entries[0].FaultID != "" || entries[1].FaultID != armed || entries[2].FaultID != once {
		t.Fatalf("fault ids %q %q %q, want \"\" %q %q", entries[0].FaultID, entries[1].FaultID, entries[2].FaultID, armed, once)
	}
	page := journalPage(t, srv, "")
	for _, want := range []string{
		`<a href="/_fake/ui/faults#fault-` + armed + `" class="fault-link" title="fault ` + armed + `">fault: status 500</a>`,
		`<a href="/_fake/ui/events?kind=fault.fired" class="fault-link" title="fault ` + once + `">fault (no longer armed)</a>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the journal lacks %s", want)
		}
	}
	if n := strings.Count(page, `class="fault-link"`); n != 2 {
		t.Errorf("%d fault links, want 2", n)
	}
	faults := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/faults", header: browser(bearer(srv.AdminToken()))}).Body.String()
	if !strings.Contains(faults, `id="fault-`+armed+`"`) {
		t.Error("the faults page has no anchor for the fault the journal links")
	}
	// The control API's journal names it too.
	_, _, raw := call(t, srv, "GET", "/_fake/requests?limit=3", admin(srv), "")
	if !strings.Contains(string(raw), `"fault_id":"`+armed+`"`) || !strings.Contains(string(raw), `"fault_id":null`) {
		t.Errorf("GET /_fake/requests: %s", raw)
	}
}

// stampOf is the version the state URL of the page at target answers.
func stampOf(t *testing.T, srv *Server, target string) string {
	t.Helper()
	w := uiDo(t, srv, uiReq{method: "GET", target: dashboard.StateURL(target), header: bearer(srv.AdminToken())})
	var s stateAnswer
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &s) != nil {
		t.Fatalf("state of %s: %d %s", target, w.Code, w.Body)
	}
	return s.Version
}

// TestTenantRequestsDoNotRerender: another tenant's requests change no open page's stamp (so
// no page's script re-renders it): not the journal's snapshot, not a workspace's webhook
// pages; a journal page that follows changes when a request it would list arrives, and only
// then. The stamp a page carries is the one its state URL answers.
func TestTenantRequestsDoNotRerender(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	other, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "Other tenant"})
	if err != nil {
		t.Fatal(err)
	}
	otherKey, err := srv.CreateAPIKey(other.ID, "other")
	if err != nil {
		t.Fatal(err)
	}
	ep := demoEndpoint(t, srv, seed, "http://127.0.0.1:1/hook")
	call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), "")
	mine := srv.Requests(RequestFilter{Limit: 1})[0].MaskedKey
	pages := []string{
		"/_fake/ui/requests",
		"/_fake/ui/requests?key=" + url.QueryEscape(mine) + "&follow=1",
		"/_fake/ui/endpoints/" + ep.ID,
		"/_fake/ui/workspaces/" + seed.WorkspaceID + "/webhooks",
		"/_fake/ui/feeds",
	}
	before := map[string]string{}
	for _, p := range pages {
		before[p] = stampOf(t, srv, p)
		w := uiDo(t, srv, uiReq{method: "GET", target: p, header: browser(bearer(srv.AdminToken()))})
		carried := regexp.MustCompile(`data-version="([0-9a-f]+)"`).FindStringSubmatch(w.Body.String())
		if carried == nil || carried[1] != before[p] {
			t.Fatalf("%s carries stamp %v, its state URL answers %s", p, carried, before[p])
		}
	}
	for range 20 {
		call(t, srv, "GET", "/api/rest/v1/me", bearer(otherKey.Key), "")
		call(t, srv, "GET", "/api/rest/v1/reports", bearer(otherKey.Key), "")
	}
	for _, p := range pages {
		if got := stampOf(t, srv, p); got != before[p] {
			t.Errorf("another tenant's requests changed the stamp of %s", p)
		}
	}
	// The demo key's own request moves the page that follows it, and the plain journal stays.
	call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), "")
	if stampOf(t, srv, pages[1]) == before[pages[1]] {
		t.Error("a followed journal page did not change with a request it lists")
	}
	if stampOf(t, srv, pages[0]) != before[pages[0]] {
		t.Error("the journal snapshot changed with a request")
	}
	// The clock still moves every page.
	if _, err := srv.Advance(time.Second); err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if stampOf(t, srv, p) == before[p] {
			t.Errorf("%s did not change with the manual clock", p)
		}
	}
}
