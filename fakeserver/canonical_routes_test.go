package fakeserver

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/rest"
)

// unknownID is an id in canonical form that nothing in a test's fake holds.
const unknownID = "5d1c0b7a-9e8f-4a6b-8c2d-3e4f5a6b7c8d"

// otherSpellings are the spellings of id that the id rule refuses: upper-case, and in a path
// with a hyphen percent-encoded (either case of the escape).
func otherSpellings(t *testing.T, id string, inPath bool) map[string]string {
	t.Helper()
	if strings.ToUpper(id) == id {
		t.Fatalf("id %s has no letter to upper-case", id)
	}
	spellings := map[string]string{"upper-case": strings.ToUpper(id)}
	if inPath {
		spellings["percent-encoded"] = strings.Replace(id, "-", "%2D", 1)
		spellings["percent-encoded, lower-case escape"] = strings.Replace(id, "-", "%2d", 1)
	}
	return spellings
}

// idRoute is one route with an id in its path: how to call it with an id's spelling.
type idRoute struct {
	name string
	// id is the id the fake holds; do answers the route called with a spelling of it.
	id string
	do func(t *testing.T, spelling string) (int, string)
	// argument is an id given as an argument (GraphQL), not in a path: it has no escapes.
	argument bool
}

// checkIDRule holds a route to the id rule: each other spelling of its id is answered exactly
// as an id nothing holds, which is want; the canonical id is answered otherwise.
func checkIDRule(t *testing.T, rt idRoute, want int) {
	t.Helper()
	unknownStatus, unknownBody := rt.do(t, unknownID)
	if unknownStatus != want {
		t.Errorf("%s, an unknown id: %d %s, want %d", rt.name, unknownStatus, unknownBody, want)
	}
	for spelling, id := range otherSpellings(t, rt.id, !rt.argument) {
		status, body := rt.do(t, id)
		if status != unknownStatus || body != unknownBody {
			t.Errorf("%s, the %s id: %d %s; an unknown id: %d %s", rt.name, spelling, status, body, unknownStatus, unknownBody)
		}
	}
	if status, body := rt.do(t, rt.id); status == unknownStatus && body == unknownBody {
		t.Errorf("%s: the canonical id is answered as an unknown one: %d %s", rt.name, status, body)
	}
}

// TestIDRuleOnEveryRoute holds every route with an id in its path (REST, the subscription
// calls, uploads, the control API, the dashboard) and every id argument of GraphQL to the one id
// rule: an upper-case or percent-encoded id is answered as any id the fake does not hold.
func TestIDRuleOnEveryRoute(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	report := hostedReport(t, srv, seed, HostedEpisode{Title: "Ids", Duration: time.Second, Format: "wav"})
	_, _, body := call(t, srv, "GET", rest.Base+"/reports/"+report, bearer(seed.APIKey), "")
	var view struct {
		Series struct {
			ID string `json:"id"`
		} `json:"series"`
	}
	if err := json.Unmarshal(body, &view); err != nil || view.Series.ID == "" {
		t.Fatalf("report %s has no series: %s", report, body)
	}
	series := view.Series.ID
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Ids feed", Episodes: []HostedEpisode{{Title: "One", Duration: time.Second, Format: "wav"}}})
	if err != nil {
		t.Fatal(err)
	}
	endpoint, err := srv.CreateWebhookEndpoint(t.Context(), seed.WorkspaceID, WebhookEndpointSpec{URL: "http://127.0.0.1:9/hook", Events: []string{"report.completed"}})
	if err != nil {
		t.Fatal(err)
	}
	fault, err := srv.InjectFault(Fault{Method: "GET", PathPrefix: "/nowhere", Status: 500})
	if err != nil {
		t.Fatal(err)
	}
	std, err := srv.CreateStandard(seed.WorkspaceID, StandardSpec{Name: "Ids"})
	if err != nil {
		t.Fatal(err)
	}
	delivery, err := srv.SendTestEvent(t.Context(), endpoint.ID)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{
		"workspaces": seed.WorkspaceID, "api-keys": seed.APIKeyID, "faults": fault, "feeds": feed.ID,
		"webhook-endpoints": endpoint.ID, "series": series, "reports": report, "endpoints": endpoint.ID,
		"webhook-deliveries": delivery.ID, "deliveries": delivery.ID, "requests": srv.Requests(RequestFilter{Limit: 1})[0].ID,
	}
	// idOf is the id a route's {id} names: the one of the collection before it.
	idOf := func(pattern string) string {
		before, _, _ := strings.Cut(pattern, "/{")
		return ids[before[strings.LastIndexByte(before, '/')+1:]]
	}

	t.Run("REST", func(t *testing.T) {
		for _, path := range []string{"/reports/{}", "/reports/{}/transcript", "/series/{}", "/series/{}/episodes"} {
			id := map[bool]string{true: report, false: series}[strings.HasPrefix(path, "/reports")]
			rt := idRoute{name: "GET " + path, id: id, do: func(t *testing.T, spelling string) (int, string) {
				status, _, body := call(t, srv, "GET", rest.Base+strings.Replace(path, "{}", spelling, 1), bearer(seed.APIKey), "")
				return status, string(body)
			}}
			checkIDRule(t, rt, http.StatusNotFound)
			// The other forms the generated binding reads name nothing either.
			unknownStatus, unknownBody := rt.do(t, unknownID)
			for _, form := range []string{"%7B" + id + "%7D", "urn:uuid:" + id, strings.ReplaceAll(id, "-", "")} {
				if status, body := rt.do(t, form); status != unknownStatus || body != unknownBody {
					t.Errorf("%s, %s: %d %s; an unknown id: %d %s", rt.name, form, status, body, unknownStatus, unknownBody)
				}
			}
		}
	})

	t.Run("subscription", func(t *testing.T) {
		status, _, body := call(t, srv, "POST", "/webhook/subscribe", jsonHeader(bearer(seed.APIKey)), `{"url":"http://127.0.0.1:9/sub","events":["report.completed"]}`)
		var sub struct {
			ID string `json:"id"`
		}
		if status != http.StatusCreated || json.Unmarshal(body, &sub) != nil {
			t.Fatalf("subscribe: %d %s", status, body)
		}
		checkIDRule(t, idRoute{name: "DELETE /webhook/subscribe/{id}", id: sub.ID, do: func(t *testing.T, spelling string) (int, string) {
			status, _, body := call(t, srv, "DELETE", "/webhook/subscribe/"+spelling, bearer(seed.APIKey), "")
			return status, string(body)
		}}, http.StatusNotFound)
	})

	t.Run("uploads", func(t *testing.T) {
		status, _, body := call(t, srv, "POST", rest.Base+"/uploads", jsonHeader(bearer(seed.APIKey)), `{"file_name":"a.wav","file_type":"audio/wav","duration_ms":1000}`)
		var up struct {
			ID        string `json:"id"`
			UploadURL string `json:"upload_url"`
		}
		if status != http.StatusCreated && status != http.StatusOK || json.Unmarshal(body, &up) != nil || up.UploadURL == "" {
			t.Fatalf("reserve an upload: %d %s", status, body)
		}
		u, err := url.Parse(up.UploadURL)
		if err != nil {
			t.Fatal(err)
		}
		id := u.Path[strings.LastIndexByte(u.Path, '/')+1:]
		// The unknown id and every other spelling fail the signature; the canonical id passes
		// it and meets the Content-Type check.
		checkIDRule(t, idRoute{name: "PUT /_uploads/{id}", id: id, do: func(t *testing.T, spelling string) (int, string) {
			status, _, body := call(t, srv, "PUT", "/_uploads/"+spelling+"?"+u.RawQuery, http.Header{"Content-Type": {"text/plain"}}, "x")
			return status, string(body)
		}}, http.StatusForbidden)
	})

	t.Run("dashboard", func(t *testing.T) {
		seen := 0
		for _, row := range srv.uiRows(nil) {
			_, pattern, _ := strings.Cut(row.pattern, " ")
			if !strings.Contains(pattern, "{id}") {
				continue
			}
			seen++
			method, _, _ := strings.Cut(row.pattern, " ")
			checkIDRule(t, idRoute{name: row.pattern, id: idOf(pattern), do: func(t *testing.T, spelling string) (int, string) {
				req := uiReq{method: method, target: strings.Replace(pattern, "{id}", spelling, 1), header: bearer(srv.AdminToken())}
				if method == http.MethodPost { // a form of the dashboard's own page
					req.header, req.form = sameOrigin(bearer(srv.AdminToken())), url.Values{}
					req.header.Del("Accept")
				}
				w := uiDo(t, srv, req)
				return w.Code, w.Body.String()
			}}, http.StatusNotFound)
		}
		if seen < 5 {
			t.Errorf("%d dashboard routes with an id, want 5", seen)
		}
	})

	t.Run("control", func(t *testing.T) {
		// A body each write takes, so that the answer is the id's.
		bodies := map[string]string{
			"POST /_fake/workspaces/{id}/api-keys":          `{"description":"ids"}`,
			"PATCH /_fake/api-keys/{id}":                    `{"disabled":false}`,
			"POST /_fake/workspaces/{id}/topups":            `{"amount":1}`,
			"POST /_fake/feeds/{id}/episodes":               `{"title":"Two","duration_s":1}`,
			"POST /_fake/workspaces/{id}/webhook-endpoints": `{"url":"http://127.0.0.1:9/ids","events":["report.completed"]}`,
			"PATCH /_fake/webhook-endpoints/{id}":           `{"enabled":true}`,
			"PUT /_fake/series/{id}/automated-reporting":    `{"enabled":false}`,
			"POST /_fake/workspaces/{id}/standards":         `{"name":"Ids two"}`,
			"PUT /_fake/workspaces/{id}/default-standard":   `{"standard_id":"` + std.ID + `"}`,
			"PUT /_fake/series/{id}/standard":               `{"standard_id":"` + std.ID + `"}`,
			"POST /_fake/workspaces/{id}/reports":           `{"reports":[{}]}`,
		}
		rows := srv.controlRows()
		// The deletions last, so that each other route still finds its id.
		deletion := func(r route) int {
			if strings.HasPrefix(r.pattern, "DELETE ") {
				return 1
			}
			return 0
		}
		slices.SortStableFunc(rows, func(a, b route) int { return cmp.Compare(deletion(a), deletion(b)) })
		seen := 0
		for _, row := range rows {
			method, pattern, _ := strings.Cut(row.pattern, " ")
			if !strings.Contains(pattern, "{id}") {
				continue
			}
			seen++
			id := idOf(pattern)
			if id == "" {
				t.Errorf("%s: no id of its kind in the test", row.pattern)
				continue
			}
			body := bodies[row.pattern]
			header := admin(srv)
			if method != "GET" && method != "DELETE" {
				if body == "" {
					body = "{}"
				}
				header = jsonHeader(header)
			}
			checkIDRule(t, idRoute{name: row.pattern, id: id, do: func(t *testing.T, spelling string) (int, string) {
				status, _, got := call(t, srv, method, strings.Replace(pattern, "{id}", spelling, 1), header, body)
				return status, string(got)
			}}, http.StatusNotFound)
		}
		if seen < 20 {
			t.Errorf("%d control routes with an id, want the 20 or more of controlRows", seen)
		}
	})

	t.Run("GraphQL", func(t *testing.T) {
		queries := []struct{ name, query, id string }{
			{"report(id)", `query($id: UUID!) { report(id: $id) { id } }`, report},
			{"series(id)", `query($id: UUID!) { series(id: $id) { id } }`, series},
			{"reports(forSeriesId)", `query($id: UUID) { reports(forSeriesId: $id) { id } }`, series},
			{"reports(seriesId)", `query($id: UUID) { reports(seriesId: $id) { id } }`, series},
		}
		for _, q := range queries {
			checkIDRule(t, idRoute{name: q.name, id: q.id, argument: true, do: func(t *testing.T, spelling string) (int, string) {
				status, answer := gql(t, srv, seed.APIKey, q.query, map[string]any{"id": spelling})
				out, err := json.Marshal(answer)
				if err != nil {
					t.Fatal(err)
				}
				return status, string(out)
			}}, http.StatusOK)
		}
	})
}
