package fakeserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/internal/apitime"
)

func admin(srv *Server) http.Header {
	return jsonHeader(bearer(srv.AdminToken()))
}

func TestControlAPIAuth(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	for _, h := range []http.Header{nil, bearer("wrong"), bearer(seed.APIKey)} {
		status, _, body := call(t, srv, "GET", "/_fake/clock", h, "")
		if status != http.StatusUnauthorized || errorCode(t, body) != "invalid_api_key" {
			t.Fatalf("control call with %v: %d %s", h, status, body)
		}
	}
}

func TestControlWorkspacesAndKeys(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	status, _, body := call(t, srv, "POST", "/_fake/workspaces", admin(srv), `{"type":"organisation","name":"Acme Audio","plan_allowance":5000,"podcast_limit":2,"charging_enabled":false}`)
	if status != http.StatusCreated {
		t.Fatalf("%d %s", status, body)
	}
	var ws Workspace
	if err := json.Unmarshal(body, &ws); err != nil || ws.Type != "organisation" || ws.Name != "Acme Audio" || len(ws.ID) != 36 {
		t.Fatalf("workspace %s (%v)", body, err)
	}
	status, _, body = call(t, srv, "POST", "/_fake/workspaces/"+ws.ID+"/api-keys", admin(srv), `{"description":"ci"}`)
	var key APIKey
	if status != http.StatusCreated || json.Unmarshal(body, &key) != nil || !strings.HasPrefix(key.Key, "podqa_api_") || !strings.HasSuffix(key.MaskedKey, "…") {
		t.Fatalf("key %d %s", status, body)
	}
	if status, _, body := call(t, srv, "GET", "/api/rest/v1/me", bearer(key.Key), ""); status != http.StatusOK || !strings.Contains(string(body), ws.ID) {
		t.Fatalf("me with the new key: %d %s", status, body)
	}
	// Disable, then enable the key again.
	for _, tc := range []struct {
		body string
		want int
	}{{`{"disabled":true}`, http.StatusUnauthorized}, {`{"disabled":false}`, http.StatusOK}} {
		if status, _, body := call(t, srv, "PATCH", "/_fake/api-keys/"+key.ID, admin(srv), tc.body); status != http.StatusOK {
			t.Fatalf("patch %s: %d %s", tc.body, status, body)
		}
		if status, _, _ := call(t, srv, "GET", "/api/rest/v1/me", bearer(key.Key), ""); status != tc.want {
			t.Fatalf("after %s: %d, want %d", tc.body, status, tc.want)
		}
	}
	if status, _, body := call(t, srv, "DELETE", "/_fake/workspaces/"+ws.ID+"/owners", admin(srv), ""); status != http.StatusNoContent {
		t.Fatalf("delete owners: %d %s", status, body)
	}
	if status, _, _ := call(t, srv, "GET", "/api/rest/v1/me", bearer(key.Key), ""); status != http.StatusUnauthorized {
		t.Fatalf("owner-less organisation key: %d", status)
	}
}

func TestControlBadRequests(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	tests := []struct {
		name     string
		method   string
		path     string
		header   http.Header
		body     string
		wantCode int
		wantErr  string
	}{
		{"unknown field", "POST", "/_fake/workspaces", admin(srv), `{"type":"personal","name":"x","plan":"gold"}`, 400, "validation_error"},
		{"not JSON", "POST", "/_fake/workspaces", admin(srv), `type=personal`, 400, "validation_error"},
		{"no content type", "POST", "/_fake/workspaces", bearer(srv.AdminToken()), `{"type":"personal","name":"x"}`, 400, "validation_error"},
		{"two objects", "POST", "/_fake/workspaces", admin(srv), `{"type":"personal","name":"x"}{}`, 400, "validation_error"},
		{"bad type", "POST", "/_fake/workspaces", admin(srv), `{"type":"team","name":"x"}`, 400, "validation_error"},
		{"wrong field type", "POST", "/_fake/workspaces", admin(srv), `{"type":"personal","name":7}`, 400, "validation_error"},
		{"key for unknown workspace", "POST", "/_fake/workspaces/00000000-0000-4000-8000-000000000000/api-keys", admin(srv), `{"description":"x"}`, 404, "not_found"},
		{"key for malformed id", "POST", "/_fake/workspaces/nope/api-keys", admin(srv), `{"description":"x"}`, 404, "not_found"},
		{"patch without disabled", "PATCH", "/_fake/api-keys/" + seed.APIKeyID, admin(srv), `{}`, 400, "validation_error"},
		{"owners of a personal workspace", "DELETE", "/_fake/workspaces/" + seed.WorkspaceID + "/owners", admin(srv), "", 400, "validation_error"},
		{"negative advance", "POST", "/_fake/clock/advance", admin(srv), `{"seconds":-1}`, 400, "validation_error"},
		{"advance without seconds", "POST", "/_fake/clock/advance", admin(srv), `{}`, 400, "validation_error"},
		{"bad fault", "POST", "/_fake/faults", admin(srv), `{"path_prefix":"/api","status":418,"count":1}`, 400, "validation_error"},
		{"deliveries of an unknown endpoint", "GET", "/_fake/webhook-deliveries?endpoint_id=x", admin(srv), "", 404, "not_found"},
		{"unknown control call", "GET", "/_fake/nothing", admin(srv), "", 404, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := srv.core.Clock().Now()
			status, _, body := call(t, srv, tt.method, tt.path, tt.header, tt.body)
			if status != tt.wantCode || errorCode(t, body) != tt.wantErr {
				t.Fatalf("%d %s, want %d %s", status, body, tt.wantCode, tt.wantErr)
			}
			if !srv.Now().Equal(before) {
				t.Fatal("a refused call moved the clock")
			}
		})
	}
}

func TestControlClock(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	srv, _ := NewTest(t, WithManualClock(start))
	status, _, body := call(t, srv, "GET", "/_fake/clock", admin(srv), "")
	if status != http.StatusOK || string(body) != `{"now":"2026-07-01T00:00:00.000000+00:00"}`+"\n" {
		t.Fatalf("clock: %d %s", status, body)
	}
	ran := time.Time{}
	srv.clock.After(90*time.Minute, func(now time.Time) { ran = now })
	status, _, body = call(t, srv, "POST", "/_fake/clock/advance", admin(srv), `{"seconds":7200.5}`)
	if status != http.StatusOK || string(body) != `{"now":"2026-07-01T02:00:00.500000+00:00"}`+"\n" {
		t.Fatalf("advance: %d %s", status, body)
	}
	if !ran.Equal(start.Add(90 * time.Minute)) {
		t.Fatalf("a task due in the span ran at %v", ran)
	}
	if got := apitime.Format(srv.Now()); got != "2026-07-01T02:00:00.500000+00:00" {
		t.Fatalf("Now = %s", got)
	}
}

func TestAdvanceOnRealClock(t *testing.T) {
	t.Parallel()
	srv, err := New(WithRealClock())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	status, _, body := call(t, srv, "POST", "/_fake/clock/advance", admin(srv), `{"seconds":1}`)
	if status != http.StatusConflict || errorCode(t, body) != "conflict" {
		t.Fatalf("%d %s", status, body)
	}
}

func TestControlFaults(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	status, _, body := call(t, srv, "POST", "/_fake/faults", admin(srv), `{"method":"GET","path_prefix":"/api/rest/v1/me","status":503,"count":1}`)
	if status != http.StatusCreated || !strings.Contains(string(body), `"id"`) {
		t.Fatalf("fault: %d %s", status, body)
	}
	if status, _, _ := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), ""); status != 503 {
		t.Fatalf("faulted request: %d", status)
	}
	// Control calls are never faulted.
	call(t, srv, "POST", "/_fake/faults", admin(srv), `{"path_prefix":"/","status":500,"count":5}`)
	if status, _, _ := call(t, srv, "GET", "/_fake/clock", admin(srv), ""); status != 200 {
		t.Fatalf("control call faulted: %d", status)
	}
	if status, _, _ := call(t, srv, "DELETE", "/_fake/faults", admin(srv), ""); status != http.StatusNoContent {
		t.Fatalf("clear faults: %d", status)
	}
	if status, _, _ := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), ""); status != 200 {
		t.Fatalf("after clearing: %d", status)
	}
}

func TestWebhookDeliveriesListIsEmptyWithoutEndpoints(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	status, _, body := call(t, srv, "GET", "/_fake/webhook-deliveries", admin(srv), "")
	if status != http.StatusOK || string(body) != `{"items":[]}`+"\n" {
		t.Fatalf("%d %s", status, body)
	}
}
