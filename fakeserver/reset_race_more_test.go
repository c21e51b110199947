package fakeserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver"
)

// TestResetAfterAdmissionOnTheOtherWrites carries TestResetAfterAdmissionOnEveryWrite to the
// routes it did not reach: GraphQL's reads of the key's own user and key (each the door's
// admission and the key's last use), the dashboard's POSTs, and every other control call that
// writes. A reset falls exactly between the request's admission and its operation (the
// SetAdmitted seam, no sleep), so each case fails the same way on every run when a route acts
// on the state it was admitted against, or answers 500. For a control call "old" names what
// the replaced state held (its workspace, endpoint, series), "demo" what the new one holds
// again; either way the answer is the new state's.
func TestResetAfterAdmissionOnTheOtherWrites(t *testing.T) {
	t.Parallel()
	type side int
	const (
		old side = iota
		demo
	)
	graphqlData := func(field string) func(*raceServer, side, []byte) string {
		return func(_ *raceServer, s side, body []byte) string {
			var answer struct {
				Data   map[string]json.RawMessage `json:"data"`
				Errors []json.RawMessage          `json:"errors"`
			}
			if err := json.Unmarshal(body, &answer); err != nil {
				return err.Error()
			}
			got := answer.Data[field]
			held := len(got) > 0 && string(got) != "null"
			switch {
			case s == demo && (!held || len(answer.Errors) > 0):
				return "the Demo key across a reset: " + string(body)
			case s == old && held:
				return "the old state's key was answered across the reset: " + string(body)
			}
			return ""
		}
	}
	clockMoved := func(by time.Duration) func(*raceServer, side, []byte) string {
		return func(rs *raceServer, _ side, _ []byte) string {
			// The reset put the clock back at its start; the call moved the new state's clock.
			if want := fakeserver.TestStart().Add(by); !rs.Now().Equal(want) {
				return "the clock is at " + rs.Now().String() + ", want " + want.String()
			}
			return ""
		}
	}
	cases := []struct {
		name string
		// request makes the raced request after a setup in the old state; form sends the body
		// as a form rather than JSON.
		request func(rs *raceServer, ws, key string) (method, path, body string)
		form    bool
		want    map[side]int
		check   func(rs *raceServer, s side, body []byte) string
	}{
		{
			name: "POST /api/graphql user",
			request: func(*raceServer, string, string) (string, string, string) {
				return "POST", "/api/graphql", `{"query":"{ user { id } }"}`
			},
			want:  map[side]int{old: 200, demo: 200},
			check: graphqlData("user"),
		},
		{
			name: "POST /api/graphql currentApiKey",
			request: func(*raceServer, string, string) (string, string, string) {
				return "POST", "/api/graphql", `{"query":"{ currentApiKey { maskedKey } }"}`
			},
			want:  map[side]int{old: 200, demo: 200},
			check: graphqlData("currentApiKey"),
		},
		{
			name: "POST /_fake/ui/clock/advance",
			request: func(*raceServer, string, string) (string, string, string) {
				return "POST", "/_fake/ui/clock/advance", "by=1m&back=%2F_fake%2Fui"
			},
			form:  true,
			want:  map[side]int{old: 303, demo: 303},
			check: clockMoved(time.Minute),
		},
		{
			name: "POST /_fake/clock/advance",
			request: func(*raceServer, string, string) (string, string, string) {
				return "POST", "/_fake/clock/advance", `{"seconds":90}`
			},
			want:  map[side]int{old: 200, demo: 200},
			check: clockMoved(90 * time.Second),
		},
		{
			name: "POST /_fake/faults",
			request: func(*raceServer, string, string) (string, string, string) {
				return "POST", "/_fake/faults", `{"path_prefix":"/api/rest/v1/me","status":503,"count":1}`
			},
			want: map[side]int{old: 201, demo: 201},
			check: func(rs *raceServer, _ side, _ []byte) string {
				if n := len(rs.Faults()); n != 1 {
					return "the new state holds " + strings.Repeat("a fault ", n) + "(want exactly the one armed)"
				}
				return ""
			},
		},
		{
			name: "POST /_fake/feeds",
			request: func(*raceServer, string, string) (string, string, string) {
				return "POST", "/_fake/feeds", `{"title":"Raced","episodes":[{"title":"One","duration_s":1}]}`
			},
			want: map[side]int{old: 201, demo: 201},
			check: func(rs *raceServer, _ side, body []byte) string {
				var f struct {
					ID string `json:"id"`
				}
				_ = json.Unmarshal(body, &f)
				page, err := rs.FeedPage("", 0)
				if err != nil || !slices.ContainsFunc(page.Feeds, func(x fakeserver.FeedSummary) bool { return x.ID == f.ID }) {
					return "the new state does not host the feed: " + string(body)
				}
				return ""
			},
		},
		{
			name: "POST /_fake/workspaces",
			request: func(*raceServer, string, string) (string, string, string) {
				return "POST", "/_fake/workspaces", `{"type":"organisation","name":"Raced"}`
			},
			want: map[side]int{old: 201, demo: 201},
			check: func(rs *raceServer, _ side, body []byte) string {
				var ws struct {
					ID string `json:"id"`
				}
				_ = json.Unmarshal(body, &ws)
				if !slices.ContainsFunc(rs.Workspaces(), func(w fakeserver.Workspace) bool { return w.ID == ws.ID }) {
					return "the workspace is not the new state's: " + string(body)
				}
				return ""
			},
		},
		{
			name: "PATCH /_fake/api-keys/{id}",
			request: func(rs *raceServer, ws, key string) (string, string, string) {
				id := rs.demo.APIKeyID
				if ws != rs.demo.WorkspaceID {
					k, err := rs.CreateAPIKey(ws, "to disable")
					if err != nil {
						rs.t.Fatal(err)
					}
					id = k.ID
				}
				return "PATCH", "/_fake/api-keys/" + id, `{"disabled":true}`
			},
			want: map[side]int{old: 404, demo: 200},
			check: func(rs *raceServer, s side, _ []byte) string {
				if s == old {
					return ""
				}
				if status, b := rs.do("GET", "/api/rest/v1/me", rs.demo.APIKey, "", false); status != 401 {
					return "the new state's Demo key still works after it was disabled: " + string(b)
				}
				return ""
			},
		},
		{
			name: "POST /_fake/webhook-endpoints/{id}/test of the old state",
			request: func(rs *raceServer, ws, _ string) (string, string, string) {
				ep, err := rs.CreateWebhookEndpoint(rs.t.Context(), ws, fakeserver.WebhookEndpointSpec{URL: "http://127.0.0.1:9/hook", Events: []string{"report.completed"}})
				if err != nil {
					rs.t.Fatal(err)
				}
				return "POST", "/_fake/webhook-endpoints/" + ep.ID + "/test", ""
			},
			want: map[side]int{old: 404, demo: 404},
		},
		{
			name: "PUT /_fake/series/{id}/automated-reporting of the old state",
			request: func(rs *raceServer, _, key string) (string, string, string) {
				return "PUT", "/_fake/series/" + rs.reportedSeries(key) + "/automated-reporting", `{"enabled":true}`
			},
			want: map[side]int{old: 404, demo: 404},
		},
		{
			name: "DELETE /_fake/workspaces/{id}/owners",
			request: func(_ *raceServer, ws, _ string) (string, string, string) {
				return "DELETE", "/_fake/workspaces/" + ws + "/owners", ""
			},
			// A personal workspace keeps its one owner: 400 in the new state, 404 for the old.
			want: map[side]int{old: 404, demo: 400},
		},
		{
			name:    "DELETE /_fake/requests",
			request: func(*raceServer, string, string) (string, string, string) { return "DELETE", "/_fake/requests", "" },
			want:    map[side]int{old: 204, demo: 204},
		},
		{
			name:    "POST /_fake/reset",
			request: func(*raceServer, string, string) (string, string, string) { return "POST", "/_fake/reset", "" },
			want:    map[side]int{old: 200, demo: 200},
		},
		{
			name: "GET /_fake/reports of the old state's workspace",
			request: func(_ *raceServer, ws, _ string) (string, string, string) {
				return "GET", "/_fake/reports?workspace_id=" + ws, ""
			},
			want: map[side]int{old: 404, demo: 200},
		},
	}
	for _, tc := range cases {
		for _, s := range []side{old, demo} {
			name := tc.name + map[side]string{old: " old", demo: " demo"}[s]
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				rs := newRaceServer(t)
				ws, key := rs.oldStateKey()
				if s == demo {
					ws, key = rs.demo.WorkspaceID, rs.demo.APIKey
				}
				method, path, body := tc.request(rs, ws, key)
				var status int
				var b []byte
				if tc.form {
					status, b = rs.doForm(method, path, body)
				} else {
					status, b = rs.do(method, path, key, body, true)
				}
				if rs.resets != 1 {
					t.Fatalf("%d resets after the request's admission, want 1", rs.resets)
				}
				if want := tc.want[s]; status != want {
					t.Fatalf("%s %s across a reset: %d %s, want %d", method, path, status, b, want)
				}
				if tc.check != nil {
					if msg := tc.check(rs, s, b); msg != "" {
						t.Error(msg)
					}
				}
			})
		}
	}
}

// doForm posts a dashboard form with the admin token, marked for the reset after admission,
// and does not follow the redirect that answers it.
func (rs *raceServer) doForm(method, path, form string) (int, []byte) {
	rs.t.Helper()
	req, err := http.NewRequest(method, rs.URL()+path, strings.NewReader(form))
	if err != nil {
		rs.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+rs.AdminToken())
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", rs.URL())
	req.Header.Set(raceHeader, "1")
	client := *rs.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		rs.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if loc := resp.Header.Get("Location"); loc != "" {
		if u, err := url.Parse(loc); err != nil || !strings.HasPrefix(u.Path, "/_fake/ui") {
			rs.t.Errorf("redirected to %q", loc)
		}
	}
	return resp.StatusCode, b
}
