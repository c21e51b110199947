package fakeserver

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
)

// uiReq is one request to the dashboard, served by the fake's handler in process.
type uiReq struct {
	method, target string
	header         http.Header
	form           url.Values
}

// uiDo serves req and returns the recorded answer. The target may be a full https:// URL, for
// a request that came over TLS.
func uiDo(t *testing.T, srv *Server, req uiReq) *httptest.ResponseRecorder {
	t.Helper()
	var body io.Reader
	if req.form != nil {
		body = strings.NewReader(req.form.Encode())
	}
	target := req.target
	if !strings.Contains(target, "://") {
		target = "http://fake.test" + target
	}
	r := httptest.NewRequest(req.method, target, body)
	if req.form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range req.header {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	srv.Handler().ServeHTTP(w, r)
	return w
}

// browser is the header of a browser navigating: it asks for HTML.
func browser(h http.Header) http.Header {
	h = h.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Accept", "text/html,application/xhtml+xml")
	return h
}

// sameOrigin is the header a browser sends with a form posted from the dashboard's own page.
func sameOrigin(h http.Header) http.Header {
	h = browser(h)
	h.Set("Origin", "http://fake.test")
	h.Set("Sec-Fetch-Site", "same-origin")
	return h
}

// login logs in through the form and returns the session cookie's header.
func login(t *testing.T, srv *Server) http.Header {
	t.Helper()
	w := uiDo(t, srv, uiReq{method: "POST", target: "/_fake/ui/login", header: sameOrigin(nil), form: url.Values{"token": {srv.AdminToken()}}})
	if w.Code != http.StatusSeeOther {
		t.Fatalf("login: %d %s", w.Code, w.Body)
	}
	cookies := w.Result().Cookies()
	if len(cookies) != 1 {
		t.Fatalf("login set %d cookies", len(cookies))
	}
	return http.Header{"Cookie": {cookies[0].Name + "=" + cookies[0].Value}}
}

// uiPages are GET pages of the dashboard that show the fake's data, with the ids of srv's demo
// workspace.
func uiPages(t *testing.T, srv *Server, seed DemoWorkspace) []string {
	t.Helper()
	eps, err := srv.WebhookEndpoints(seed.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{"/_fake/ui", "/_fake/ui/", "/_fake/ui/feeds", "/_fake/ui/requests", "/_fake/ui/faults",
		"/_fake/ui/workspaces/" + seed.WorkspaceID + "/webhooks", "/_fake/ui/workspaces/" + seed.WorkspaceID + "/emails"}
	for _, ep := range eps {
		pages = append(pages, "/_fake/ui/endpoints/"+ep.ID)
	}
	return pages
}

// demoEndpoint adds a webhook endpoint to the demo workspace, so that the endpoint pages exist.
func demoEndpoint(t *testing.T, srv *Server, seed DemoWorkspace, hookURL string) WebhookEndpoint {
	t.Helper()
	ep, err := srv.CreateWebhookEndpoint(t.Context(), seed.WorkspaceID, WebhookEndpointSpec{URL: hookURL, Events: []string{"report.completed"}})
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

func TestDashboardRefusesWithoutTheAdminToken(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	demoEndpoint(t, srv, seed, "http://127.0.0.1:1/hook")
	cookie := login(t, srv)
	for _, page := range uiPages(t, srv, seed) {
		for _, tc := range []struct {
			name   string
			header http.Header
		}{
			{"no credentials", nil},
			{"wrong bearer", bearer("wrong")},
			{"an API key", bearer(seed.APIKey)},
			{"a forged cookie", http.Header{"Cookie": {dashboard.Cookie + "=" + srv.AdminToken()}}},
			{"a good cookie and a wrong bearer", http.Header{"Cookie": cookie["Cookie"], "Authorization": {"Bearer wrong"}}},
		} {
			// A browser gets the login form and nothing of the fake.
			w := uiDo(t, srv, uiReq{method: "GET", target: page, header: browser(tc.header)})
			body := w.Body.String()
			if w.Code != http.StatusUnauthorized || !strings.Contains(body, `id="login-form"`) {
				t.Fatalf("%s, %s (browser): %d, want 401 and the login form: %s", page, tc.name, w.Code, body)
			}
			// The form carries the page asked for (the browser's own URL) back after the login;
			// past that, nothing of the fake.
			back := page
			if back == dashboard.Path {
				back = dashboard.Path + "/"
			}
			next := `<input type="hidden" name="next" value="` + back + `">`
			if !strings.Contains(body, next) {
				t.Fatalf("%s, %s: the login form does not return to the page asked for: %s", page, tc.name, body)
			}
			body = strings.Replace(body, next, "", 1)
			for _, data := range []string{seed.WorkspaceID, "Fake clock", "127.0.0.1:1", "podqa_api_", "dashboard.js"} {
				if strings.Contains(body, data) {
					t.Fatalf("%s, %s: the login page shows %q", page, tc.name, data)
				}
			}
			// Any other client gets the control API's 401.
			w = uiDo(t, srv, uiReq{method: "GET", target: page, header: tc.header})
			if w.Code != http.StatusUnauthorized || errorCode(t, w.Body.Bytes()) != "invalid_api_key" || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
				t.Fatalf("%s, %s: %d %s, want the control API's 401", page, tc.name, w.Code, w.Body)
			}
		}
		for _, h := range []http.Header{bearer(srv.AdminToken()), cookie} {
			if w := uiDo(t, srv, uiReq{method: "GET", target: page, header: browser(h)}); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "Fake clock") {
				t.Fatalf("%s with %v: %d %s", page, h, w.Code, w.Body)
			}
		}
	}
	// The poll endpoint too.
	if w := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/state"}); w.Code != http.StatusUnauthorized {
		t.Fatalf("state without a token: %d", w.Code)
	}
}

func TestDashboardLoginCookieAndLogout(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t, WithAdminToken("the-admin-token-0123456789"))
	token := srv.AdminToken()

	// A wrong token: the form again, 401, no cookie.
	w := uiDo(t, srv, uiReq{method: "POST", target: "/_fake/ui/login", header: sameOrigin(nil), form: url.Values{"token": {"nope"}}})
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), `id="login-error"`) || len(w.Result().Cookies()) != 0 {
		t.Fatalf("wrong token: %d cookies %v %s", w.Code, w.Result().Cookies(), w.Body)
	}
	// The token in the URL is never read, with or without a body.
	for _, form := range []url.Values{{}, {"token": {"nope"}}} {
		w = uiDo(t, srv, uiReq{method: "POST", target: "/_fake/ui/login?token=" + token, header: sameOrigin(nil), form: form})
		if w.Code != http.StatusUnauthorized || len(w.Result().Cookies()) != 0 {
			t.Fatalf("token in the URL logged in: %d", w.Code)
		}
	}
	if w = uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/?token=" + token, header: browser(nil)}); w.Code != http.StatusUnauthorized {
		t.Fatalf("GET with the token in the URL: %d", w.Code)
	}

	for _, tc := range []struct {
		name   string
		target string
		secure bool
	}{{"plain http", "/_fake/ui/login", false}, {"TLS", "https://fake.test/_fake/ui/login", true}} {
		h := sameOrigin(nil)
		if tc.secure {
			h.Set("Origin", "https://fake.test")
		}
		w = uiDo(t, srv, uiReq{method: "POST", target: tc.target, header: h, form: url.Values{"token": {token}}})
		if w.Code != http.StatusSeeOther {
			t.Fatalf("%s: login %d %s", tc.name, w.Code, w.Body)
		}
		if loc := w.Header().Get("Location"); loc != "/_fake/ui/" {
			t.Fatalf("%s: login redirects to %q", tc.name, loc)
		}
		raw := w.Header().Get("Set-Cookie")
		cookies := w.Result().Cookies()
		if len(cookies) != 1 {
			t.Fatalf("%s: cookies %q", tc.name, raw)
		}
		c := cookies[0]
		if c.Name != dashboard.Cookie || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/_fake/ui" || c.Secure != tc.secure {
			t.Fatalf("%s: cookie %q", tc.name, raw)
		}
		if strings.Contains(raw, token) || strings.Contains(w.Header().Get("Location"), token) || strings.Contains(w.Body.String(), token) {
			t.Fatalf("%s: the admin token is in the answer: %q", tc.name, raw)
		}
		session := http.Header{"Cookie": {c.Name + "=" + c.Value}}
		if w := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/", header: browser(session)}); w.Code != http.StatusOK {
			t.Fatalf("%s: page with the cookie: %d", tc.name, w.Code)
		}
		// Logout ends this session on the server, not only in the browser.
		w = uiDo(t, srv, uiReq{method: "POST", target: "/_fake/ui/logout", header: sameOrigin(session), form: url.Values{}})
		if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/_fake/ui/login" {
			t.Fatalf("%s: logout %d %v", tc.name, w.Code, w.Header())
		}
		if cs := w.Result().Cookies(); len(cs) != 1 || cs[0].MaxAge >= 0 {
			t.Fatalf("%s: logout does not clear the cookie: %v", tc.name, cs)
		}
		if w := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/", header: browser(session)}); w.Code != http.StatusUnauthorized {
			t.Fatalf("%s: page after logout: %d", tc.name, w.Code)
		}
	}
}

func TestDashboardRefusesCrossOriginPosts(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	session := login(t, srv)
	start := srv.Now()
	for _, tc := range []struct {
		name   string
		header http.Header
	}{
		{"another origin", http.Header{"Origin": {"http://evil.test"}}},
		{"a cross-site fetch", http.Header{"Sec-Fetch-Site": {"cross-site"}}},
		{"a same-site sibling", http.Header{"Sec-Fetch-Site": {"same-site"}, "Origin": {"http://sub.fake.test"}}},
	} {
		for _, target := range []string{"/_fake/ui/clock/advance", "/_fake/ui/login", "/_fake/ui/logout"} {
			h := browser(session)
			for k, v := range tc.header {
				h[k] = v
			}
			w := uiDo(t, srv, uiReq{method: "POST", target: target, header: h, form: url.Values{"by": {"1h"}, "token": {srv.AdminToken()}}})
			if w.Code != http.StatusForbidden || errorCode(t, w.Body.Bytes()) != "forbidden" || len(w.Result().Cookies()) != 0 {
				t.Fatalf("%s to %s: %d %s", tc.name, target, w.Code, w.Body)
			}
		}
	}
	if !srv.Now().Equal(start) {
		t.Fatalf("a refused advance moved the clock to %v", srv.Now())
	}
	// The session still works: a refused logout ended nothing.
	w := uiDo(t, srv, uiReq{method: "POST", target: "/_fake/ui/clock/advance", header: sameOrigin(session), form: url.Values{"by": {"90s"}, "back": {"/_fake/ui/feeds"}}})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/_fake/ui/feeds" || !srv.Now().Equal(start.Add(90*time.Second)) {
		t.Fatalf("same-origin advance: %d %v, clock %v", w.Code, w.Header(), srv.Now())
	}
}

func TestDashboardAdvanceForm(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	session := login(t, srv)
	for _, tc := range []struct {
		by, back string
		status   int
		location string
		moved    time.Duration
	}{
		{"1h30m", "/_fake/ui/requests?status=401", http.StatusSeeOther, "/_fake/ui/requests?status=401", 90 * time.Minute},
		{"1s", "https://evil.test/_fake/ui/", http.StatusSeeOther, "/_fake/ui/", time.Second},
		{"1s", "//evil.test/_fake/ui/", http.StatusSeeOther, "/_fake/ui/", time.Second},
		{"1s", "/api/rest/v1/me", http.StatusSeeOther, "/_fake/ui/", time.Second},
		{"", "", http.StatusBadRequest, "", 0},
		{"-5s", "", http.StatusBadRequest, "", 0},
		{"soon", "", http.StatusBadRequest, "", 0},
		{"1000000h", "", http.StatusBadRequest, "", 0},
	} {
		before := srv.Now()
		w := uiDo(t, srv, uiReq{method: "POST", target: "/_fake/ui/clock/advance", header: sameOrigin(session), form: url.Values{"by": {tc.by}, "back": {tc.back}}})
		if w.Code != tc.status || w.Header().Get("Location") != tc.location || srv.Now().Sub(before) != tc.moved {
			t.Fatalf("advance by %q back %q: %d %q moved %v: %s", tc.by, tc.back, w.Code, w.Header().Get("Location"), srv.Now().Sub(before), w.Body)
		}
	}
	// On the real clock the form is refused, as the control API refuses an advance.
	real, _ := NewTest(t, WithRealClock())
	w := uiDo(t, real, uiReq{method: "POST", target: "/_fake/ui/clock/advance", header: bearer(real.AdminToken()), form: url.Values{"by": {"1s"}}})
	if w.Code != http.StatusConflict || errorCode(t, w.Body.Bytes()) != "conflict" {
		t.Fatalf("advance on the real clock: %d %s", w.Code, w.Body)
	}
}

// uiHeadersHold checks the dashboard's security headers on one answer.
func uiHeadersHold(t *testing.T, what string, h http.Header) {
	t.Helper()
	csp := h.Get("Content-Security-Policy")
	directives := map[string]string{}
	for _, d := range strings.Split(csp, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
		directives[name] = value
	}
	for name, want := range map[string]string{
		"default-src": "'none'", "script-src": "'self'", "style-src": "'self'", "frame-ancestors": "'none'",
		"base-uri": "'none'", "form-action": "'self'", "media-src": "'self'", "connect-src": "'self'",
	} {
		if directives[name] != want {
			t.Errorf("%s: CSP %s is %q, want %q (policy %q)", what, name, directives[name], want, csp)
		}
	}
	if strings.Contains(csp, "unsafe") {
		t.Errorf("%s: CSP allows something unsafe: %q", what, csp)
	}
	for name, want := range map[string]string{
		"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store", "X-Frame-Options": "DENY",
	} {
		if got := h.Get(name); got != want {
			t.Errorf("%s: %s is %q, want %q", what, name, got, want)
		}
	}
}

func TestDashboardHeadersOnEveryAnswer(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	demoEndpoint(t, srv, seed, "http://127.0.0.1:1/hook")
	session := login(t, srv)
	pages := append(uiPages(t, srv, seed), "/_fake/ui/login", "/_fake/ui/state", "/_fake/ui/static/dashboard.js", "/_fake/ui/static/dashboard.css")
	for _, page := range pages {
		for _, h := range []http.Header{nil, browser(nil), browser(session)} {
			w := uiDo(t, srv, uiReq{method: "GET", target: page, header: h})
			uiHeadersHold(t, page, w.Header())
		}
	}
	// Errors too: unknown page, wrong method, unknown id, cross-origin refusal.
	for _, req := range []uiReq{
		{method: "GET", target: "/_fake/ui/nowhere", header: browser(session)},
		{method: "DELETE", target: "/_fake/ui/feeds", header: browser(session)},
		{method: "GET", target: "/_fake/ui/endpoints/00000000-0000-0000-0000-000000000000", header: browser(session)},
		{method: "POST", target: "/_fake/ui/clock/advance", header: http.Header{"Origin": {"http://evil.test"}}},
	} {
		w := uiDo(t, srv, req)
		if w.Code < 400 {
			t.Errorf("%s %s: %d, want an error", req.method, req.target, w.Code)
		}
		uiHeadersHold(t, req.method+" "+req.target, w.Header())
	}
	// The static files declare their real types, so nosniff leaves them working.
	for file, ctype := range map[string]string{"dashboard.js": "text/javascript; charset=utf-8", "dashboard.css": "text/css; charset=utf-8"} {
		w := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/static/" + file})
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != ctype || w.Body.Len() == 0 {
			t.Errorf("%s: %d %q", file, w.Code, w.Header().Get("Content-Type"))
		}
	}
}

func TestDashboardErrorsAndMethods(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	admin := bearer(srv.AdminToken())
	for _, tc := range []struct {
		method, target string
		status         int
		code, allow    string
	}{
		{"GET", "/_fake/ui/nowhere", 404, "not_found", ""},
		{"DELETE", "/_fake/ui/feeds", 405, "method_not_allowed", "GET, HEAD"},
		{"GET", "/_fake/ui/login/extra", 404, "not_found", ""},
		{"GET", "/_fake/ui/endpoints/not-a-uuid", 404, "not_found", ""},
		{"GET", "/_fake/ui/endpoints/00000000-0000-0000-0000-000000000000", 404, "not_found", ""},
		{"GET", "/_fake/ui/workspaces/00000000-0000-0000-0000-000000000000/emails", 404, "not_found", ""},
		{"GET", "/_fake/ui/workspaces/00000000-0000-0000-0000-000000000000/webhooks", 404, "not_found", ""},
		{"GET", "/_fake/ui/requests?status=abc", 400, "validation_error", ""},
		{"GET", "/_fake/ui/static/nothing.js", 404, "", ""},
	} {
		w := uiDo(t, srv, uiReq{method: tc.method, target: tc.target, header: admin})
		if w.Code != tc.status || w.Header().Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d Allow %q, want %d %q: %s", tc.method, tc.target, w.Code, w.Header().Get("Allow"), tc.status, tc.allow, w.Body)
			continue
		}
		if tc.code != "" && errorCode(t, w.Body.Bytes()) != tc.code {
			t.Errorf("%s %s: %s", tc.method, tc.target, w.Body)
		}
	}
}

func TestDashboardState(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	admin := bearer(srv.AdminToken())
	read := func() stateAnswer {
		t.Helper()
		w := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/state", header: admin})
		var s stateAnswer
		if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &s) != nil || s.Version == "" {
			t.Fatalf("state: %d %s", w.Code, w.Body)
		}
		return s
	}
	a, b := read(), read()
	if a != b {
		t.Fatalf("state changed with nothing happening: %v %v", a, b)
	}
	if _, err := srv.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	c := read()
	if c.Version == a.Version || c.Now == a.Now {
		t.Fatalf("state did not change with the clock: %v %v", a, c)
	}
	// Anything the fake records as an event changes the version too, the clock standing still.
	if _, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "New"}); err != nil {
		t.Fatal(err)
	}
	if d := read(); d.Version == c.Version || d.Now != c.Now {
		t.Fatalf("state after a new workspace: %v, before %v", d, c)
	}
}

// uiPayloads are strings that run script if a page let them through as markup.
var uiPayloads = []string{
	`<img src=x onerror=alert(1)>`,
	`<script>alert(2)</script>`,
	`"><svg onload=alert(3)>`,
	`'><iframe src=javascript:alert(4)>`,
}

// shownEscaped checks that body shows payload as text: never as markup, and present once
// the page's escaping is undone.
func shownEscaped(t *testing.T, where, body, payload string) {
	t.Helper()
	for _, markup := range []string{"<img", "<script>alert", "<svg", "<iframe"} {
		if strings.Contains(payload, markup) && strings.Contains(body, markup) {
			t.Errorf("%s: the page holds %q as markup", where, markup)
		}
	}
	if !strings.Contains(html.UnescapeString(body), payload) {
		t.Errorf("%s: the page does not show %q", where, payload)
	}
}

func TestDashboardEscapesWhatItShows(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	admin := browser(bearer(srv.AdminToken()))
	var episodes []HostedEpisode
	for i, p := range uiPayloads {
		episodes = append(episodes, HostedEpisode{
			Title: p, GUID: "guid-" + strconv.Itoa(i), Duration: time.Second, Format: "wav",
			Tags:       &HostedTags{Title: "tag " + p, Artist: "artist " + p, Album: "album " + p, Comment: "comment " + p, Chapters: []HostedChapter{{Start: 0, End: time.Second, Title: "chapter " + p}}},
			Transcript: []TranscriptLine{{Start: 0, End: time.Second, Text: "said " + p}},
		})
	}
	if _, err := srv.HostFeed(HostedFeedSpec{Title: "feed " + uiPayloads[0], Episodes: episodes}); err != nil {
		t.Fatal(err)
	}
	eps := make([]WebhookEndpoint, 0, len(uiPayloads))
	for _, p := range uiPayloads {
		eps = append(eps, demoEndpoint(t, srv, seed, "http://127.0.0.1:1/hook?q="+url.QueryEscape(p)+"&raw="+p))
	}
	// Requests whose paths and bodies carry the payloads, for the journal.
	for _, p := range uiPayloads {
		call(t, srv, "POST", "/api/rest/v1/reports?x="+url.QueryEscape(p), jsonHeader(bearer(seed.APIKey)), `{"name":"`+strings.ReplaceAll(p, `"`, `\"`)+`"}`)
	}
	feeds := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/feeds", header: admin}).Body.String()
	webhooks := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/workspaces/" + seed.WorkspaceID + "/webhooks", header: admin}).Body.String()
	journal := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/requests", header: admin}).Body.String()
	for _, p := range uiPayloads {
		for _, shown := range []string{p, "tag " + p, "artist " + p, "album " + p, "comment " + p, "chapter " + p, "said " + p} {
			shownEscaped(t, "feeds", feeds, shown)
		}
		shownEscaped(t, "webhooks", webhooks, "&raw="+p)
		shownEscaped(t, "journal", journal, `"name":"`+strings.ReplaceAll(p, `"`, `\"`)+`"`)
	}
	for _, ep := range eps {
		page := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/endpoints/" + ep.ID, header: admin}).Body.String()
		shownEscaped(t, "endpoint", page, ep.URL)
	}
	// The filters echo what was typed, escaped too.
	q := url.Values{"method": {uiPayloads[2]}, "path": {uiPayloads[0]}, "key": {uiPayloads[1]}}
	shownEscaped(t, "journal filter", uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/requests?" + q.Encode(), header: admin}).Body.String(), uiPayloads[0])
}

// stateAnswer is the answer of GET /_fake/ui/state, as the page's script reads it.
type stateAnswer struct {
	Version string `json:"version"`
	Now     string `json:"now"`
}
