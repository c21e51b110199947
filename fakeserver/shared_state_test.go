package fakeserver

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
	"github.com/podqa/podqa-go/fakeserver/internal/rest"
)

// isolationSide is one of the two fakes of TestTwoFakesShareNoState and what it was asked to do.
type isolationSide struct {
	name string // the marker of everything this side makes: its workspace, its queries
	srv  *Server
	seed DemoWorkspace
	step time.Duration // each of its clock advances
	// faultPath is the path of its armed fault; the other side's is left alone.
	faultPath string
	cookie    *http.Cookie // its dashboard session, nil if the login failed
	requests  int          // the journaled requests it sent
}

// isolationDo sends one request to x over its listener and returns the status and the body.
func isolationDo(t *testing.T, x *isolationSide, method, path string, header http.Header, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, x.srv.URL()+path, rd)
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := x.srv.Client().Do(req)
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Error(err)
	}
	if strings.HasPrefix(path, rest.Base) {
		x.requests++
	}
	return resp.StatusCode, string(got)
}

// restGet is a GET of the REST API on x with key, its query marked with x's name, so that x's
// journal can tell its own requests.
func restGet(t *testing.T, x *isolationSide, path, key string) int {
	t.Helper()
	status, _ := isolationDo(t, x, "GET", rest.Base+path+"?probe="+x.name, http.Header{"Authorization": {"Bearer " + key}}, "")
	return status
}

// overview renders x's dashboard overview with its session cookie, through the listener or, with
// direct, through Handler as a caller serving it would.
func overview(t *testing.T, x *isolationSide, cookie *http.Cookie, direct bool) (int, string) {
	t.Helper()
	if direct {
		r := httptest.NewRequest("GET", "http://fake.test"+dashboard.Path+"/", nil)
		r.Header.Set("Accept", "text/html")
		r.AddCookie(cookie)
		w := httptest.NewRecorder()
		x.srv.Handler().ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	return isolationDo(t, x, "GET", dashboard.Path+"/", http.Header{"Accept": {"text/html"}, "Cookie": {cookie.String()}}, "")
}

// TestTwoFakesShareNoState: two fakes in one process, changed at the same time, never see each
// other's changes: seeded state and keys, the clock, armed faults, the journal, dashboard
// sessions and the pages the shared templates render, and a Reset of one leaves the other as it
// was. The shared parts (route tables, contracts, templates) are immutable; -race watches the
// rest.
func TestTwoFakesShareNoState(t *testing.T) {
	t.Parallel()
	sides := [2]*isolationSide{
		{name: "alpha", step: 3 * time.Hour, faultPath: rest.Base + "/series"},
		{name: "bravo", step: 5 * time.Hour, faultPath: rest.Base + "/credits"},
	}
	for _, x := range sides {
		x.srv, x.seed = NewTest(t)
	}
	const advances = 3
	// Each phase starts when both sides have finished the one before, so that what one side
	// checks was already changed on the other.
	var made, reset sync.WaitGroup
	made.Add(2)
	reset.Add(2)
	var wg sync.WaitGroup
	for i, x := range sides {
		other := sides[1-i]
		wg.Go(func() {
			// Phase 1: each side changes its own fake.
			if _, err := x.srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: x.name}); err != nil {
				t.Errorf("%s: create workspace: %v", x.name, err)
			}
			for range advances {
				if _, err := x.srv.Advance(x.step); err != nil {
					t.Errorf("%s: advance: %v", x.name, err)
				}
			}
			if _, err := x.srv.InjectFault(Fault{Method: "GET", PathPrefix: x.faultPath, Status: http.StatusServiceUnavailable}); err != nil {
				t.Errorf("%s: inject fault: %v", x.name, err)
			}
			x.cookie = x.sessionCookie(t)
			made.Done()
			made.Wait()

			// Phase 2: each side sees only what it made.
			x.checkOwn(t, other, advances)
			// The other's credentials and session are not this fake's.
			if got := restGet(t, x, "/me", other.seed.APIKey); got != http.StatusUnauthorized {
				t.Errorf("%s: the other fake's API key answers %d, want 401", x.name, got)
			}
			if status, _ := isolationDo(t, x, "GET", "/_fake/clock", http.Header{"Authorization": {"Bearer " + other.srv.AdminToken()}}, ""); status != http.StatusUnauthorized {
				t.Errorf("%s: the other fake's admin token answers %d, want 401", x.name, status)
			}
			// alpha resets while bravo goes on.
			if x.name == "alpha" {
				if _, err := x.srv.Reset(); err != nil {
					t.Errorf("alpha: reset: %v", err)
				}
			}
			reset.Done()
			reset.Wait()

			// Phase 3: bravo is as it was; alpha is at its start state.
			if x.name == "alpha" {
				x.checkReset(t)
			} else {
				x.checkOwn(t, other, advances)
			}
		})
	}
	wg.Wait()
	// Neither fake's session opens the other's dashboard.
	for i, x := range sides {
		if x.cookie == nil {
			continue
		}
		other := sides[1-i]
		for _, direct := range []bool{false, true} {
			if status, _ := overview(t, other, x.cookie, direct); status != http.StatusUnauthorized {
				t.Errorf("%s's session cookie opens %s's dashboard (direct %v): %d", x.name, other.name, direct, status)
			}
		}
	}
}

// checkOwn checks that x holds what it made in phase 1 and nothing other made.
func (x *isolationSide) checkOwn(t *testing.T, other *isolationSide, advances int) {
	t.Helper()
	var names []string
	for _, ws := range x.srv.Workspaces() {
		names = append(names, ws.Name)
	}
	if !slices.Contains(names, x.name) || slices.Contains(names, other.name) {
		t.Errorf("%s: workspaces %q", x.name, names)
	}
	if got, want := x.srv.Now(), TestStart().Add(time.Duration(advances)*x.step); !got.Equal(want) {
		t.Errorf("%s: clock %v, want %v", x.name, got, want)
	}
	if got := restGet(t, x, strings.TrimPrefix(x.faultPath, rest.Base), x.seed.APIKey); got != http.StatusServiceUnavailable {
		t.Errorf("%s: its own fault's path answers %d, want 503", x.name, got)
	}
	if got := restGet(t, x, strings.TrimPrefix(other.faultPath, rest.Base), x.seed.APIKey); got != http.StatusOK {
		t.Errorf("%s: the other fake's fault path answers %d, want 200", x.name, got)
	}
	x.checkJournal(t)
	if x.cookie == nil {
		return
	}
	for _, direct := range []bool{false, true} {
		status, page := overview(t, x, x.cookie, direct)
		if status != http.StatusOK || !strings.Contains(page, ">"+x.name+"<") || strings.Contains(page, ">"+other.name+"<") {
			t.Errorf("%s: overview (direct %v): %d, shows %s: %v, shows %s: %v", x.name, direct, status,
				x.name, strings.Contains(page, ">"+x.name+"<"), other.name, strings.Contains(page, ">"+other.name+"<"))
		}
	}
}

// checkJournal checks that x's journal holds exactly the REST requests x sent since its last
// reset, each marked with x's name.
func (x *isolationSide) checkJournal(t *testing.T) {
	t.Helper()
	entries := x.srv.Requests(RequestFilter{Limit: MaxJournalSize})
	for _, e := range entries {
		if e.Query != "probe="+x.name {
			t.Errorf("%s: the journal holds %s %s?%s", x.name, e.Method, e.Path, e.Query)
		}
	}
	if len(entries) != x.requests {
		t.Errorf("%s: the journal holds %d requests, want the %d sent", x.name, len(entries), x.requests)
	}
}

// sessionCookie logs in to x's dashboard and returns the session cookie.
func (x *isolationSide) sessionCookie(t *testing.T) *http.Cookie {
	t.Helper()
	req, err := http.NewRequest("POST", x.srv.URL()+dashboard.Path+"/login", strings.NewReader(url.Values{"token": {x.srv.AdminToken()}}.Encode()))
	if err != nil {
		t.Error(err)
		return nil
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	client := x.srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		t.Error(err)
		return nil
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == dashboard.Cookie {
			return c
		}
	}
	t.Errorf("%s: the login set no session cookie: %d", x.name, resp.StatusCode)
	return nil
}

// checkReset checks that x is at its start state: the demo workspace only, the clock at its
// start, no fault, an empty journal.
func (x *isolationSide) checkReset(t *testing.T) {
	t.Helper()
	var names []string
	for _, ws := range x.srv.Workspaces() {
		names = append(names, ws.Name)
	}
	if slices.Contains(names, x.name) {
		t.Errorf("%s after reset: workspaces %q", x.name, names)
	}
	if got := x.srv.Now(); !got.Equal(TestStart()) {
		t.Errorf("%s after reset: clock %v, want %v", x.name, got, TestStart())
	}
	if f := x.srv.Faults(); len(f) != 0 {
		t.Errorf("%s after reset: faults %+v", x.name, f)
	}
	x.requests = 0
	if got := restGet(t, x, strings.TrimPrefix(x.faultPath, rest.Base), x.seed.APIKey); got != http.StatusOK {
		t.Errorf("%s after reset: its fault's path answers %d, want 200", x.name, got)
	}
	x.checkJournal(t)
}

// TestSeededFakesMintTheirOwnSequences: two fakes on the same seed, minting at the same time,
// each mint the ids a lone fake on that seed mints, so no part of the random source is shared.
func TestSeededFakesMintTheirOwnSequences(t *testing.T) {
	t.Parallel()
	const seed, n = 43, 20
	mint := func(srv *Server) []string {
		var ids []string
		for i := range n {
			ws, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: fmt.Sprint("w", i)})
			if err != nil {
				t.Error(err)
				return nil
			}
			key, err := srv.CreateAPIKey(ws.ID, "k")
			if err != nil {
				t.Error(err)
				return nil
			}
			ids = append(ids, ws.ID, key.Key)
		}
		return ids
	}
	lone, _ := NewTest(t, WithSeed(seed))
	want := mint(lone)
	var got [2][]string
	var wg sync.WaitGroup
	for i := range got {
		srv, _ := NewTest(t, WithSeed(seed))
		wg.Go(func() { got[i] = mint(srv) })
	}
	wg.Wait()
	for i, ids := range got {
		if !slices.Equal(ids, want) {
			t.Errorf("fake %d minted %q, want the lone fake's %q", i, ids, want)
		}
	}
}
