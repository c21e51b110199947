package fakeserver

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
	"golang.org/x/net/html"
)

func TestLandingPage(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	// A browser gets a page linking what a newcomer opens first, under the dashboard's CSP.
	w := uiDo(t, srv, uiReq{method: "GET", target: "/", header: browser(nil)})
	if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") || w.Header().Get("Content-Security-Policy") != dashboard.CSP {
		t.Fatalf("GET / as a browser: %d %v", w.Code, w.Header())
	}
	doc := page(t, w.Body.String())
	links := map[string]string{}
	for _, a := range find(byID(t, doc, "links"), func(n *html.Node) bool { return n.Data == "a" }) {
		k, _ := attr(a, "data-link")
		links[k], _ = attr(a, "href")
	}
	want := map[string]string{
		"dashboard": "/_fake/ui/", "rest_explorer": "/api/rest/v1/docs", "graphql_explorer": "/api/graphql",
		"control_contract": "/_fake/openapi.json", "health": "/_fake/healthz",
	}
	for k, path := range want {
		if links[k] != path {
			t.Errorf("link %s is %q, want %q", k, links[k], path)
		}
		// Every link leads somewhere: none is a 404.
		if w := uiDo(t, srv, uiReq{method: "GET", target: path, header: browser(nil)}); w.Code == http.StatusNotFound {
			t.Errorf("%s (%s) is a 404", k, path)
		}
	}
	// Nothing of the fake's data (the page needs no token).
	if strings.Contains(w.Body.String(), srv.AdminToken()) || strings.Contains(w.Body.String(), "dashboard.js") {
		t.Error("the landing page shows the admin token or loads the dashboard's script")
	}
	// Any other client gets the same links as JSON, absolute.
	w = uiDo(t, srv, uiReq{method: "GET", target: "/"})
	var got struct { // the dashboard's landing answer
		Name  string            `json:"name"`
		Links map[string]string `json:"links"`
	}
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &got) != nil {
		t.Fatalf("GET / as JSON: %d %s", w.Code, w.Body)
	}
	for k, path := range want {
		if got.Links[k] != srv.URL()+path {
			t.Errorf("JSON link %s is %q, want %q", k, got.Links[k], srv.URL()+path)
		}
	}
	// Only GET / is the landing page: another path or method is what it was.
	if w := uiDo(t, srv, uiReq{method: "GET", target: "/nope", header: browser(nil)}); w.Code != http.StatusNotFound {
		t.Errorf("GET /nope: %d", w.Code)
	}
	if w := uiDo(t, srv, uiReq{method: "POST", target: "/"}); w.Code != http.StatusNotFound && w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", w.Code)
	}
}

func TestFavicon(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	for _, path := range []string{"/favicon.ico", "/_fake/ui/static/favicon.svg"} {
		w := uiDo(t, srv, uiReq{method: "GET", target: path})
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(w.Body.String(), "<svg") {
			t.Errorf("%s: %d %q %.40s", path, w.Code, w.Header().Get("Content-Type"), w.Body)
		}
	}
	// Every page links it.
	doc := page(t, uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/login", header: browser(nil)}).Body.String())
	icons := find(doc, func(n *html.Node) bool { rel, _ := attr(n, "rel"); return n.Data == "link" && rel == "icon" })
	if len(icons) != 1 {
		t.Fatalf("%d icon links", len(icons))
	}
	if href, _ := attr(icons[0], "href"); href != "/_fake/ui/static/favicon.svg" {
		t.Errorf("icon %q", href)
	}
}

func TestAppReportLinkLeadsToTheDashboard(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	ids, err := srv.SeedReports(seed.WorkspaceID, []SeededReport{{}})
	if err != nil {
		t.Fatal(err)
	}
	id := ids[0]
	// The link: a 303 to the dashboard's page of the report, whatever the caller.
	w := uiDo(t, srv, uiReq{method: "GET", target: "/app/reports/" + id, header: browser(nil)})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/_fake/ui/reports/"+id {
		t.Fatalf("GET /app/reports/{id}: %d %v", w.Code, w.Header())
	}
	// Not logged in: the login form, which returns to the report's page.
	w = uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/reports/" + id, header: browser(nil)})
	next := find(page(t, w.Body.String()), func(n *html.Node) bool { v, _ := attr(n, "name"); return n.Data == "input" && v == "next" })
	if w.Code != http.StatusUnauthorized || len(next) != 1 {
		t.Fatalf("report page without a login: %d, %d next fields", w.Code, len(next))
	}
	back, _ := attr(next[0], "value")
	w = uiDo(t, srv, uiReq{method: "POST", target: "/_fake/ui/login", header: sameOrigin(nil), form: url.Values{"token": {srv.AdminToken()}, "next": {back}}})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/_fake/ui/reports/"+id {
		t.Fatalf("login: %d, to %q", w.Code, w.Header().Get("Location"))
	}
	// A failed login keeps the way back.
	w = uiDo(t, srv, uiReq{method: "POST", target: "/_fake/ui/login", header: sameOrigin(nil), form: url.Values{"token": {"wrong"}, "next": {back}}})
	next = find(page(t, w.Body.String()), func(n *html.Node) bool { v, _ := attr(n, "name"); return n.Data == "input" && v == "next" })
	if len(next) != 1 {
		t.Fatal("the failed login's form has no next field")
	}
	if v, _ := attr(next[0], "value"); w.Code != http.StatusUnauthorized || v != back {
		t.Errorf("failed login: %d, next %q", w.Code, v)
	}
	// Bad ids are a 404, never a redirect.
	for _, bad := range []string{"not-an-id", "..%2f..%2f_fake%2freset", "%2f%2fevil.example"} {
		if w := uiDo(t, srv, uiReq{method: "GET", target: "/app/reports/" + bad}); w.Code != http.StatusNotFound || w.Header().Get("Location") != "" {
			t.Errorf("/app/reports/%s: %d %q", bad, w.Code, w.Header().Get("Location"))
		}
	}
}

// The login returns only to a page of the dashboard on this origin: no open redirect.
func TestLoginReturnsOnlyWithinTheDashboard(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	for _, tc := range []struct{ next, want string }{
		{"/_fake/ui/events?kind=fault.fired", "/_fake/ui/events?kind=fault.fired"},
		{"", "/_fake/ui/"},
		{"https://evil.example/_fake/ui/", "/_fake/ui/"},
		{"//evil.example/_fake/ui/", "/_fake/ui/"},
		{"/\\evil.example", "/_fake/ui/"},
		{"/_fake/ui/../reset", "/_fake/ui/"},
		{"/_fake/reset", "/_fake/ui/"},
		{"/_fake/ui/login", "/_fake/ui/"},
		{"javascript:alert(1)", "/_fake/ui/"},
	} {
		w := uiDo(t, srv, uiReq{method: "POST", target: "/_fake/ui/login", header: sameOrigin(nil), form: url.Values{"token": {srv.AdminToken()}, "next": {tc.next}}})
		if w.Code != http.StatusSeeOther || w.Header().Get("Location") != tc.want {
			t.Errorf("next %q: %d to %q, want %q", tc.next, w.Code, w.Header().Get("Location"), tc.want)
		}
	}
}

// The login form reached by the page's script after a session ended (?next=) returns to that
// page, and only to a page of the dashboard.
func TestLoginFormKeepsItsNext(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	for next, want := range map[string]string{
		"/_fake/ui/events?kind=fault.fired": "/_fake/ui/events?kind=fault.fired",
		"//evil.example/_fake/ui/":          "/_fake/ui/",
		"https://evil.example/":             "/_fake/ui/",
	} {
		w := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/login?next=" + url.QueryEscape(next), header: browser(nil)})
		fields := find(page(t, w.Body.String()), func(n *html.Node) bool { v, _ := attr(n, "name"); return n.Data == "input" && v == "next" })
		if len(fields) != 1 {
			t.Fatalf("next %q: %d next fields", next, len(fields))
		}
		if got, _ := attr(fields[0], "value"); w.Code != http.StatusOK || got != want {
			t.Errorf("next %q: %d, the form returns to %q, want %q", next, w.Code, got, want)
		}
	}
}
