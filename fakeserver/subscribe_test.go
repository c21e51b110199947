package fakeserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// publicResolver resolves the test names without the network: two public, some internal.
var publicResolver = staticResolver{
	"hooks.example.com":  "93.184.216.34",
	"other.example.com":  "93.184.216.35",
	"intranet.example":   "10.0.0.7",
	"loopback.example":   "127.0.0.1",
	"metadata.example":   "169.254.169.254",
	"linklocal6.example": "fe80::1",
	"ula.example":        "fd00:ec2::254",
}

func flatError(t *testing.T, body []byte) string {
	t.Helper()
	var e map[string]any
	if err := json.Unmarshal(body, &e); err != nil || len(e) != 1 {
		t.Fatalf("not a flat error: %s", body)
	}
	msg, ok := e["error"].(string)
	if !ok {
		t.Fatalf("not a flat error: %s", body)
	}
	return msg
}

// TestSubscribeErrors: every error text of the two subscription calls, in their flat shape.
func TestSubscribeErrors(t *testing.T) {
	t.Parallel()
	// More calls than the hourly write limit: the limits have their own test.
	srv, seed := NewTest(t, WithPrivateURLs(false), WithResolver(publicResolver), WithoutRateLimits())
	auth := jsonHeader(bearer(seed.APIKey))
	other, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	otherKey, err := srv.CreateAPIKey(other.ID, "k")
	if err != nil {
		t.Fatal(err)
	}
	foreign := subscribe(t, srv, otherKey.Key, `{"url":"https://hooks.example.com/o","events":["report.completed"]}`)
	settings := mustEndpoint(t, srv, seed.WorkspaceID, WebhookEndpointSpec{URL: "https://hooks.example.com/s", Events: []string{"report.failed"}})
	session, err := srv.CreateSession(seed.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	const ok = `"events":["report.completed"]`
	tests := []struct {
		name      string
		method    string
		path      string
		header    http.Header
		body      string
		wantCode  int
		wantError string
		wantAllow string
	}{
		{"array body", "POST", "/webhook/subscribe", auth, `[]`, 400, "Invalid JSON", ""},
		{"not JSON", "POST", "/webhook/subscribe", auth, `url=x`, 400, "Invalid JSON", ""},
		{"empty body", "POST", "/webhook/subscribe", auth, ``, 400, "Invalid JSON", ""},
		{"null body", "POST", "/webhook/subscribe", auth, `null`, 400, "Invalid JSON", ""},
		{"two objects", "POST", "/webhook/subscribe", auth, `{} {}`, 400, "Invalid JSON", ""},
		{"no url", "POST", "/webhook/subscribe", auth, `{` + ok + `}`, 400, "A url is required", ""},
		{"empty url", "POST", "/webhook/subscribe", auth, `{"url":"",` + ok + `}`, 400, "A url is required", ""},
		{"null url", "POST", "/webhook/subscribe", auth, `{"url":null,` + ok + `}`, 400, "A url is required", ""},
		{"no events", "POST", "/webhook/subscribe", auth, `{"url":"https://hooks.example.com/p"}`, 400, "An events list is required", ""},
		{"empty events", "POST", "/webhook/subscribe", auth, `{"url":"https://hooks.example.com/p","events":[]}`, 400, "An events list is required", ""},
		{"events not a list", "POST", "/webhook/subscribe", auth, `{"url":"https://hooks.example.com/p","events":"report.completed"}`, 400, "An events list is required", ""},
		{"unknown event", "POST", "/webhook/subscribe", auth, `{"url":"https://hooks.example.com/p","events":["report.completed","report.exploded"]}`, 400, "Unknown webhook event: report.exploded", ""},
		{"upper-case event", "POST", "/webhook/subscribe", auth, `{"url":"https://hooks.example.com/p","events":["REPORT.COMPLETED"]}`, 400, "Unknown webhook event: REPORT.COMPLETED", ""},
		{"unknown series", "POST", "/webhook/subscribe", auth, `{"url":"https://hooks.example.com/p",` + ok + `,"series_id":"0b0e3c4e-0000-4000-8000-000000000000"}`, 400, "Series not found", ""},
		{"series not an id", "POST", "/webhook/subscribe", auth, `{"url":"https://hooks.example.com/p",` + ok + `,"series_id":"abc"}`, 400, "Series not found", ""},
		{"ftp URL", "POST", "/webhook/subscribe", auth, `{"url":"ftp://hooks.example.com/p",` + ok + `}`, 400, "Invalid webhook URL", ""},
		{"malformed URL", "POST", "/webhook/subscribe", auth, `{"url":"http://[::1",` + ok + `}`, 400, "Invalid webhook URL", ""},
		{"url not a string", "POST", "/webhook/subscribe", auth, `{"url":42,` + ok + `}`, 400, "Invalid webhook URL", ""},
		{"unresolvable", "POST", "/webhook/subscribe", auth, `{"url":"https://nowhere.example/p",` + ok + `}`, 400, "Invalid webhook URL", ""},
		{"private literal", "POST", "/webhook/subscribe", auth, `{"url":"http://192.168.1.1/p",` + ok + `}`, 400, "Invalid webhook URL: 192.168.1.1 is an internal address; " + privateHint, ""},
		{"loopback literal", "POST", "/webhook/subscribe", auth, `{"url":"http://127.0.0.1:8080/p",` + ok + `}`, 400, "Invalid webhook URL: 127.0.0.1 is an internal address; " + privateHint, ""},
		{"name resolving to private", "POST", "/webhook/subscribe", auth, `{"url":"https://intranet.example/p",` + ok + `}`, 400, "Invalid webhook URL: intranet.example resolves to 10.0.0.7, an internal address; " + privateHint, ""},
		{"name resolving to loopback", "POST", "/webhook/subscribe", auth, `{"url":"https://loopback.example/p",` + ok + `}`, 400, "Invalid webhook URL: loopback.example resolves to 127.0.0.1, an internal address; " + privateHint, ""},
		{"name resolving to metadata", "POST", "/webhook/subscribe", auth, `{"url":"http://metadata.example/latest",` + ok + `}`, 400, "Invalid webhook URL: metadata.example resolves to 169.254.169.254, an internal address; " + privateHint, ""},
		{"metadata literal", "POST", "/webhook/subscribe", auth, `{"url":"http://169.254.169.254/latest",` + ok + `}`, 400, "Invalid webhook URL: 169.254.169.254 is an internal address; " + privateHint, ""},
		{"name resolving to IPv6 link-local", "POST", "/webhook/subscribe", auth, `{"url":"http://linklocal6.example/",` + ok + `}`, 400, "Invalid webhook URL: linklocal6.example resolves to fe80::1, an internal address; " + privateHint, ""},
		{"name resolving to IPv6 unique-local", "POST", "/webhook/subscribe", auth, `{"url":"http://ula.example/",` + ok + `}`, 400, "Invalid webhook URL: ula.example resolves to fd00:ec2::254, an internal address; " + privateHint, ""},
		{"no key", "POST", "/webhook/subscribe", jsonHeader(nil), `{}`, 401, "Invalid or missing API key.", ""},
		{"unknown key", "POST", "/webhook/subscribe", jsonHeader(bearer("podqa_api_nope")), `{}`, 401, "Invalid or missing API key.", ""},
		{"browser session", "POST", "/webhook/subscribe", jsonHeader(http.Header{"Cookie": {"sessionid=" + session}}), `{}`, 401, "Invalid or missing API key.", ""},
		{"GET subscribe", "GET", "/webhook/subscribe", auth, "", 405, "Method not allowed", "POST"},
		{"POST to an id", "POST", "/webhook/subscribe/" + foreign, auth, "", 405, "Method not allowed", "DELETE"},
		{"delete unknown", "DELETE", "/webhook/subscribe/0b0e3c4e-0000-4000-8000-000000000000", auth, "", 404, "Not found", ""},
		{"delete not an id", "DELETE", "/webhook/subscribe/abc", auth, "", 404, "Not found", ""},
		{"delete another workspace's", "DELETE", "/webhook/subscribe/" + foreign, auth, "", 404, "Not found", ""},
		{"delete a Settings endpoint", "DELETE", "/webhook/subscribe/" + settings.ID, auth, "", 404, "Not found", ""},
		{"delete without an id", "DELETE", "/webhook/subscribe/", auth, "", 404, "Not found", ""},
		{"delete without a key", "DELETE", "/webhook/subscribe/" + foreign, nil, "", 401, "Invalid or missing API key.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, h, body := call(t, srv, tt.method, tt.path, tt.header, tt.body)
			if status != tt.wantCode || flatError(t, body) != tt.wantError {
				t.Fatalf("%d %s, want %d %q", status, body, tt.wantCode, tt.wantError)
			}
			if h.Get("Allow") != tt.wantAllow || h.Get("Content-Type") != "application/json" {
				t.Fatalf("Allow %q Content-Type %q", h.Get("Allow"), h.Get("Content-Type"))
			}
		})
	}
	// None of the refusals made an endpoint.
	eps, err := srv.WebhookEndpoints(seed.WorkspaceID)
	if err != nil || len(eps) != 1 {
		t.Fatalf("endpoints after refusals: %+v %v", eps, err)
	}
}

func subscribe(t *testing.T, srv *Server, key, body string) string {
	t.Helper()
	status, _, b := call(t, srv, "POST", "/webhook/subscribe", jsonHeader(bearer(key)), body)
	var out struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	if status != http.StatusCreated || json.Unmarshal(b, &out) != nil || len(out.ID) != 36 || !strings.HasPrefix(out.Secret, "whsec_") {
		t.Fatalf("subscribe: %d %s", status, b)
	}
	return out.ID
}

// TestSubscribeAndUnsubscribe: a REST endpoint is created scoped to a series, listed by the
// control API as made over REST, deleted with 204, and gone.
func TestSubscribeAndUnsubscribe(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithPrivateURLs(false), WithResolver(publicResolver))
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Show", Episodes: []HostedEpisode{{Title: "One", Duration: 1 * time.Second, Format: "wav"}}})
	if err != nil {
		t.Fatal(err)
	}
	if status, b := createFromFeed(t, srv, seed.APIKey, `{"feed_url":"`+feed.FeedURL+`"}`); status != 201 {
		t.Fatalf("%d %s", status, b)
	}
	_, _, b := call(t, srv, "GET", "/api/rest/v1/series", bearer(seed.APIKey), "")
	var series struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	if json.Unmarshal(b, &series) != nil || len(series.Items) != 1 {
		t.Fatalf("series: %s", b)
	}
	id := subscribe(t, srv, seed.APIKey, `{"url":"https://hooks.example.com/p","events":["episode.created","report.completed","episode.created"],"series_id":"`+series.Items[0].ID+`","extra":1}`)
	eps, err := srv.WebhookEndpoints(seed.WorkspaceID)
	if err != nil || len(eps) != 1 || eps[0].ID != id || eps[0].Source != "rest" || !eps[0].Enabled ||
		eps[0].SeriesID != series.Items[0].ID || strings.Join(eps[0].Events, ",") != "report.completed,episode.created" || eps[0].Secret != "" {
		t.Fatalf("endpoints: %+v %v", eps, err)
	}
	status, _, body := call(t, srv, "DELETE", "/webhook/subscribe/"+id, bearer(seed.APIKey), "")
	if status != http.StatusNoContent || len(body) != 0 {
		t.Fatalf("delete: %d %s", status, body)
	}
	status, _, body = call(t, srv, "DELETE", "/webhook/subscribe/"+id, bearer(seed.APIKey), "")
	if status != http.StatusNotFound || flatError(t, body) != "Not found" {
		t.Fatalf("second delete: %d %s", status, body)
	}
	if eps, _ := srv.WebhookEndpoints(seed.WorkspaceID); len(eps) != 0 {
		t.Fatalf("left: %+v", eps)
	}
}

// TestFiveEndpointLimit: five endpoints per workspace however made; the sixth is 409 over REST
// and through the control API alike; deleting one makes room.
func TestFiveEndpointLimit(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithPrivateURLs(false), WithResolver(publicResolver))
	var restIDs []string
	for range 2 {
		restIDs = append(restIDs, subscribe(t, srv, seed.APIKey, `{"url":"https://hooks.example.com/r","events":["report.failed"]}`))
	}
	for range 3 {
		mustEndpoint(t, srv, seed.WorkspaceID, WebhookEndpointSpec{URL: "https://other.example.com/s", Events: []string{"report.failed"}})
	}
	status, _, body := call(t, srv, "POST", "/webhook/subscribe", jsonHeader(bearer(seed.APIKey)), `{"url":"https://hooks.example.com/r","events":["report.failed"]}`)
	if status != http.StatusConflict || flatError(t, body) != "Webhook limit reached (5 per workspace)" {
		t.Fatalf("sixth over REST: %d %s", status, body)
	}
	_, err := srv.CreateWebhookEndpoint(context.Background(), seed.WorkspaceID, WebhookEndpointSpec{URL: "https://hooks.example.com/s", Events: []string{"report.failed"}})
	var e *Error
	if !errors.As(err, &e) || e.Status != http.StatusConflict || e.Message != "Webhook limit reached (5 per workspace)" {
		t.Fatalf("sixth in Settings: %v", err)
	}
	status, _, body = call(t, srv, "POST", "/_fake/workspaces/"+seed.WorkspaceID+"/webhook-endpoints", jsonHeader(admin(srv)), `{"url":"https://hooks.example.com/s","events":["report.failed"]}`)
	if status != http.StatusConflict || errorCode(t, body) != "conflict" {
		t.Fatalf("sixth through the control API: %d %s", status, body)
	}
	if status, _, _ := call(t, srv, "DELETE", "/webhook/subscribe/"+restIDs[0], bearer(seed.APIKey), ""); status != http.StatusNoContent {
		t.Fatalf("delete: %d", status)
	}
	subscribe(t, srv, seed.APIKey, `{"url":"https://hooks.example.com/r","events":["report.failed"]}`)
}

// TestSubscribeRateLimits: subscription calls count against the 30 writes an hour of the key,
// and the 429 is flat with Retry-After.
func TestSubscribeRateLimits(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithPrivateURLs(false), WithResolver(publicResolver))
	for i := range 30 {
		status, _, body := call(t, srv, "DELETE", "/webhook/subscribe/0b0e3c4e-0000-4000-8000-000000000000", bearer(seed.APIKey), "")
		if status != http.StatusNotFound {
			t.Fatalf("call %d: %d %s", i, status, body)
		}
	}
	status, h, body := call(t, srv, "POST", "/webhook/subscribe", jsonHeader(bearer(seed.APIKey)), `{}`)
	if status != http.StatusTooManyRequests || !strings.HasPrefix(flatError(t, body), "Rate limit exceeded: ") || h.Get("Retry-After") == "" {
		t.Fatalf("31st write: %d %s %q", status, body, h.Get("Retry-After"))
	}
	mustAdvance(t, srv, time.Hour)
	subscribe(t, srv, seed.APIKey, `{"url":"https://hooks.example.com/r","events":["report.failed"]}`)
}

// privateHint ends the refusal of an internal address: the way out.
const privateHint = "the fake accepts loopback and private addresses when started with -allow-private-urls (in Go: fakeserver.WithPrivateURLs(true))"
