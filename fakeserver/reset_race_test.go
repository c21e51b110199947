package fakeserver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/podqa/podqa-go/fakeserver"
)

// raceHeader marks the one request of a case whose admission a reset follows.
const raceHeader = "X-Test-Reset-After-Admission"

// raceServer is a fake whose requests marked with raceHeader are overtaken by a reset right
// after their admission (see fakeserver.SetAdmitted): deterministically, with no sleep.
type raceServer struct {
	*fakeserver.Server
	t      *testing.T
	demo   fakeserver.DemoWorkspace
	feed   string
	resets int
}

func newRaceServer(t *testing.T) *raceServer {
	t.Helper()
	// The feed is the test's own, so that it outlives the reset (and costs no rendering).
	feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Race Show</title><item><title>One</title><guid>1</guid><enclosure url="http://%s/one.mp3" type="audio/mpeg" length="1"/></item></channel></rss>`, r.Host)
	}))
	t.Cleanup(feed.Close)
	srv, demo := fakeserver.NewTest(t, fakeserver.WithoutRateLimits(), fakeserver.WithAnalysisPace(0))
	rs := &raceServer{Server: srv, t: t, demo: demo, feed: feed.URL + "/feed.xml"}
	fakeserver.SetAdmitted(srv, func(r *http.Request) {
		if r.Header.Get(raceHeader) == "" {
			return
		}
		if _, err := srv.Reset(); err != nil {
			t.Errorf("reset after admission: %v", err)
		}
		rs.resets++
	})
	return rs
}

// do sends a request (the admin token on /_fake paths, else key when not empty) and returns
// its status and body; race marks it for the reset after admission.
func (rs *raceServer) do(method, path, key, body string, race bool) (int, []byte) {
	rs.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	u := path
	if strings.HasPrefix(path, "/") {
		u = rs.URL() + path
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		rs.t.Fatal(err)
	}
	switch {
	case strings.HasPrefix(path, "/_fake/"):
		req.Header.Set("Authorization", "Bearer "+rs.AdminToken())
	case key != "":
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if race {
		req.Header.Set(raceHeader, "1")
	}
	resp, err := rs.Client().Do(req)
	if err != nil {
		rs.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		rs.t.Fatal(err)
	}
	return resp.StatusCode, b
}

// must sends a request of a case's setup, which must answer want.
func (rs *raceServer) must(want int, method, path, key, body string) map[string]any {
	rs.t.Helper()
	status, b := rs.do(method, path, key, body, false)
	if status != want {
		rs.t.Fatalf("setup %s %s: %d %s, want %d", method, path, status, b, want)
	}
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// reportedSeries asks for a report of the race feed's first episode with key, and returns the
// id of the one series that it makes in key's workspace.
func (rs *raceServer) reportedSeries(key string) string {
	rs.t.Helper()
	rs.must(201, "POST", "/api/rest/v1/reports", key, `{"feed_url":"`+rs.feed+`","episode_index":0}`)
	var page struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	status, b := rs.do("GET", "/api/rest/v1/series", key, "", false)
	if err := json.Unmarshal(b, &page); status != 200 || err != nil || len(page.Items) != 1 {
		rs.t.Fatalf("the series: %d %s", status, b)
	}
	return page.Items[0].ID
}

// oldStateKey is a workspace and key made in the state that the reset replaces: the new state
// refuses the key.
func (rs *raceServer) oldStateKey() (workspace, key string) {
	rs.t.Helper()
	ws, err := rs.CreateWorkspace(fakeserver.WorkspaceSpec{Type: "personal", Name: "Old State"})
	if err != nil {
		rs.t.Fatal(err)
	}
	k, err := rs.CreateAPIKey(ws.ID, "old")
	if err != nil {
		rs.t.Fatal(err)
	}
	return ws.ID, k.Key
}

const uploadBody = `{"file_name":"race.wav","file_type":"audio/wav","duration_ms":60000}`

// TestResetAfterAdmissionOnEveryWrite is must-have 4 of issue 41: on every route that writes
// (and the reads of the same principal), a reset placed exactly between a request's admission
// and its operation leaves the request an answer the new state would give: the old state's
// key is refused with 401, a key the new state holds (the Demo workspace's, made again by the
// reset) acts in the new state, and what the old state held (a reservation, an endpoint) is
// not found. Never a 500, never a change in the state the request was not answered against.
func TestResetAfterAdmissionOnEveryWrite(t *testing.T) {
	t.Parallel()
	type kind int
	const (
		oldKey  kind = iota // made in the old state: the new one refuses it
		demoKey             // the Demo workspace's: the new state holds it again
	)
	cases := []struct {
		name string
		// request returns the raced request (made after setup in the old state) and, for the
		// answers that succeed, check says whether the new state holds what it made.
		request func(rs *raceServer, ws, key string) (method, path, body string)
		want    map[kind]int
		check   func(rs *raceServer, body []byte) string
	}{
		{
			name: "POST /uploads",
			request: func(*raceServer, string, string) (string, string, string) {
				return "POST", "/api/rest/v1/uploads", uploadBody
			},
			want: map[kind]int{oldKey: 401, demoKey: 201},
			check: func(rs *raceServer, body []byte) string {
				// The reservation is the new state's: its URL takes the audio.
				var res struct {
					UploadURL string `json:"upload_url"`
				}
				if err := json.Unmarshal(body, &res); err != nil {
					return err.Error()
				}
				req, err := http.NewRequest(http.MethodPut, res.UploadURL, bytes.NewReader([]byte("RIFF")))
				if err != nil {
					return err.Error()
				}
				req.Header.Set("Content-Type", "audio/wav")
				resp, err := rs.Client().Do(req)
				if err != nil {
					return err.Error()
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					return "PUT to the new reservation answered " + resp.Status
				}
				return ""
			},
		},
		{
			name: "POST /reports from an upload of the old state",
			request: func(rs *raceServer, _, key string) (string, string, string) {
				res := rs.must(201, "POST", "/api/rest/v1/uploads", key, uploadBody)
				id, ok := res["report_id"].(string)
				if !ok {
					rs.t.Fatalf("the reservation: %v", res)
				}
				return "POST", "/api/rest/v1/reports", `{"report_id":"` + id + `","original_filename":"race.wav","duration_ms":60000}`
			},
			want: map[kind]int{oldKey: 401, demoKey: 404},
		},
		{
			name: "POST /reports from a feed",
			request: func(rs *raceServer, _, _ string) (string, string, string) {
				return "POST", "/api/rest/v1/reports", `{"feed_url":"` + rs.feed + `","episode_index":0}`
			},
			want: map[kind]int{oldKey: 401, demoKey: 201},
			check: func(rs *raceServer, body []byte) string {
				var r struct {
					ID string `json:"id"`
				}
				if err := json.Unmarshal(body, &r); err != nil {
					return err.Error()
				}
				if status, b := rs.do("GET", "/api/rest/v1/reports/"+r.ID, rs.demo.APIKey, "", false); status != 200 {
					return "the report is not the new state's: " + string(b)
				}
				return ""
			},
		},
		{
			name: "POST /webhook/subscribe",
			request: func(*raceServer, string, string) (string, string, string) {
				return "POST", "/webhook/subscribe", `{"url":"http://127.0.0.1:9/hook","events":["report.completed"]}`
			},
			want: map[kind]int{oldKey: 401, demoKey: 201},
			check: func(rs *raceServer, body []byte) string {
				var ep struct {
					ID string `json:"id"`
				}
				if err := json.Unmarshal(body, &ep); err != nil {
					return err.Error()
				}
				eps, err := rs.WebhookEndpoints(rs.demo.WorkspaceID)
				if err != nil {
					return err.Error()
				}
				if !slices.ContainsFunc(eps, func(e fakeserver.WebhookEndpoint) bool { return e.ID == ep.ID }) {
					return "the endpoint is not the new state's"
				}
				return ""
			},
		},
		{
			name: "DELETE /webhook/subscribe/{id} of the old state",
			request: func(rs *raceServer, _, key string) (string, string, string) {
				ep := rs.must(201, "POST", "/webhook/subscribe", key, `{"url":"http://127.0.0.1:9/hook","events":["report.completed"]}`)
				id, ok := ep["id"].(string)
				if !ok {
					rs.t.Fatalf("the subscription: %v", ep)
				}
				return "DELETE", "/webhook/subscribe/" + id, ""
			},
			want: map[kind]int{oldKey: 401, demoKey: 404},
		},
		{
			name:    "GET /credits",
			request: func(*raceServer, string, string) (string, string, string) { return "GET", "/api/rest/v1/credits", "" },
			want:    map[kind]int{oldKey: 401, demoKey: 200},
		},
		{
			name: "GET /reports/{id} of the old state",
			request: func(rs *raceServer, ws, key string) (string, string, string) {
				ids, err := rs.SeedReports(ws, []fakeserver.SeededReport{{}})
				if err != nil {
					rs.t.Fatal(err)
				}
				return "GET", "/api/rest/v1/reports/" + ids[0], ""
			},
			want: map[kind]int{oldKey: 401, demoKey: 404},
		},
		{
			name: "GET /series/{id}/episodes of the old state",
			request: func(rs *raceServer, _, key string) (string, string, string) {
				return "GET", "/api/rest/v1/series/" + rs.reportedSeries(key) + "/episodes", ""
			},
			want: map[kind]int{oldKey: 401, demoKey: 404},
		},
		{
			name:    "GET /reports",
			request: func(*raceServer, string, string) (string, string, string) { return "GET", "/api/rest/v1/reports", "" },
			want:    map[kind]int{oldKey: 401, demoKey: 200},
		},
		{
			name:    "GET /series",
			request: func(*raceServer, string, string) (string, string, string) { return "GET", "/api/rest/v1/series", "" },
			want:    map[kind]int{oldKey: 401, demoKey: 200},
		},
		{
			// GraphQL answers 200 either way; the old state's key gets the list refused.
			name: "POST /api/graphql seriesList",
			request: func(*raceServer, string, string) (string, string, string) {
				return "POST", "/api/graphql", `{"query":"{ seriesList { id } }"}`
			},
			want: map[kind]int{oldKey: 200, demoKey: 200},
			check: func(_ *raceServer, body []byte) string {
				var answer struct {
					Data struct {
						SeriesList []any `json:"seriesList"`
					} `json:"data"`
					Errors []struct {
						Message string `json:"message"`
					} `json:"errors"`
				}
				if err := json.Unmarshal(body, &answer); err != nil {
					return err.Error()
				}
				if len(answer.Errors) != 0 || answer.Data.SeriesList == nil {
					return "the Demo key's list across a reset: " + string(body)
				}
				return ""
			},
		},
		// The control API: its token outlives a reset, so a call admitted before one acts in
		// the new state, where the old state's workspaces are not found.
		{
			name: "POST /_fake/workspaces/{id}/api-keys",
			request: func(_ *raceServer, ws, _ string) (string, string, string) {
				return "POST", "/_fake/workspaces/" + ws + "/api-keys", `{"description":"raced"}`
			},
			want: map[kind]int{oldKey: 404, demoKey: 201},
			check: func(rs *raceServer, body []byte) string {
				var k struct {
					Key string `json:"key"`
				}
				if err := json.Unmarshal(body, &k); err != nil {
					return err.Error()
				}
				if status, b := rs.do("GET", "/api/rest/v1/me", k.Key, "", false); status != 200 {
					return "the new state refuses the key: " + string(b)
				}
				return ""
			},
		},
		{
			name: "POST /_fake/workspaces/{id}/webhook-endpoints",
			request: func(_ *raceServer, ws, _ string) (string, string, string) {
				return "POST", "/_fake/workspaces/" + ws + "/webhook-endpoints", `{"url":"http://127.0.0.1:9/hook","events":["report.completed"]}`
			},
			want: map[kind]int{oldKey: 404, demoKey: 201},
		},
		{
			name: "PATCH /_fake/workspaces/{id}/credits",
			request: func(_ *raceServer, ws, _ string) (string, string, string) {
				return "PATCH", "/_fake/workspaces/" + ws + "/credits", `{"plan_used":7}`
			},
			want: map[kind]int{oldKey: 404, demoKey: 200},
		},
		{
			name: "POST /_fake/workspaces/{id}/topups",
			request: func(_ *raceServer, ws, _ string) (string, string, string) {
				return "POST", "/_fake/workspaces/" + ws + "/topups", `{"amount":100}`
			},
			want: map[kind]int{oldKey: 404, demoKey: 201},
		},
		{
			name: "POST /_fake/workspaces/{id}/standards",
			request: func(_ *raceServer, ws, _ string) (string, string, string) {
				return "POST", "/_fake/workspaces/" + ws + "/standards", `{"name":"Raced","based_on":"EBU R128"}`
			},
			want: map[kind]int{oldKey: 404, demoKey: 201},
		},
		{
			name: "POST /_fake/workspaces/{id}/reports",
			request: func(_ *raceServer, ws, _ string) (string, string, string) {
				return "POST", "/_fake/workspaces/" + ws + "/reports", `{"reports":[{}]}`
			},
			want: map[kind]int{oldKey: 404, demoKey: 201},
		},
		{
			name: "POST /_fake/workspaces/{id}/sessions",
			request: func(_ *raceServer, ws, _ string) (string, string, string) {
				return "POST", "/_fake/workspaces/" + ws + "/sessions", ""
			},
			want: map[kind]int{oldKey: 404, demoKey: 201},
		},
	}
	for _, tc := range cases {
		for _, k := range []kind{oldKey, demoKey} {
			name := tc.name + map[kind]string{oldKey: " old-state key", demoKey: " demo key"}[k]
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				rs := newRaceServer(t)
				ws, key := rs.oldStateKey()
				if k == demoKey {
					ws, key = rs.demo.WorkspaceID, rs.demo.APIKey
				}
				method, path, body := tc.request(rs, ws, key)
				status, b := rs.do(method, path, key, body, true)
				if rs.resets != 1 {
					t.Fatalf("%d resets after the request's admission, want 1", rs.resets)
				}
				if want := tc.want[k]; status != want {
					t.Fatalf("%s %s across a reset: %d %s, want %d", method, path, status, b, want)
				}
				if tc.check != nil && status < 300 && k == demoKey {
					if msg := tc.check(rs, b); msg != "" {
						t.Error(msg)
					}
				}
				if k == oldKey && status == 200 && !bytes.Contains(b, []byte(`"errors"`)) {
					t.Errorf("the old state's key was answered across the reset: %s", b)
				}
			})
		}
	}
}

// resetReader resets the fake when the transport reaches it in the body being sent.
type resetReader struct {
	t   *testing.T
	srv *fakeserver.Server
}

func (r resetReader) Read([]byte) (int, error) {
	if _, err := r.srv.Reset(); err != nil {
		r.t.Error(err)
	}
	return 0, io.EOF
}

// TestUploadBodyAcrossAReset: the PUT to a signed upload URL has no admission of its own; a
// reset while its body is on the wire answers 404 (the reservation is the old state's), however
// far the fake had got with it, and leaves no byte held.
func TestUploadBodyAcrossAReset(t *testing.T) {
	t.Parallel()
	rs := newRaceServer(t)
	res := rs.must(201, "POST", "/api/rest/v1/uploads", rs.demo.APIKey, uploadBody)
	url, ok := res["upload_url"].(string)
	if !ok {
		t.Fatalf("the reservation: %v", res)
	}
	half := bytes.Repeat([]byte{'a'}, 32<<10)
	body := io.MultiReader(bytes.NewReader(half), resetReader{t: t, srv: rs.Server}, bytes.NewReader(half))
	req, err := http.NewRequest(http.MethodPut, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(2 * len(half))
	req.Header.Set("Content-Type", "audio/wav")
	resp, err := rs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a PUT across a reset: %s, want 404", resp.Status)
	}
	if n := fakeserver.HeldUploadBytes(rs.Server); n != 0 {
		t.Errorf("%d upload bytes held after the PUT across a reset", n)
	}
}
