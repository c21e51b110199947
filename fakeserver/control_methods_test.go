package fakeserver

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestControlWrongMethod405: a known control path with another method answers 405 with Allow in
// the control error envelope; an unknown path stays 404; the admin token still comes first.
func TestControlWrongMethod405(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	const id = "00000000-0000-4000-8000-000000000000"
	tests := []struct {
		name, method, path string
		header             http.Header
		status             int
		code, allow        string
	}{
		{"PUT the clock", "PUT", "/_fake/clock", admin(srv), 405, "method_not_allowed", "GET, HEAD"},
		{"GET an advance", "GET", "/_fake/clock/advance", admin(srv), 405, "method_not_allowed", "POST"},
		{"PATCH the faults", "PATCH", "/_fake/faults", admin(srv), 405, "method_not_allowed", "POST, DELETE, GET, HEAD"},
		{"GET a reset", "GET", "/_fake/reset", admin(srv), 405, "method_not_allowed", "POST"},
		{"PUT a workspace's keys", "PUT", "/_fake/workspaces/" + id + "/api-keys", admin(srv), 405, "method_not_allowed", "POST"},
		{"POST an endpoint", "POST", "/_fake/webhook-endpoints/" + id, admin(srv), 405, "method_not_allowed", "PATCH, DELETE"},
		{"DELETE the emails", "DELETE", "/_fake/emails", admin(srv), 405, "method_not_allowed", "GET, HEAD"},
		{"POST the health check", "POST", "/_fake/healthz", admin(srv), 405, "method_not_allowed", "GET, HEAD"},
		{"unknown path", "GET", "/_fake/nothing", admin(srv), 404, "not_found", ""},
		{"unknown path, any method", "PUT", "/_fake/clock/rewind", admin(srv), 404, "not_found", ""},
		{"wrong method without the token", "PUT", "/_fake/clock", nil, 401, "invalid_api_key", ""},
		{"right method still served", "GET", "/_fake/clock", admin(srv), 200, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, header, body := call(t, srv, tt.method, tt.path, tt.header, "")
			if status != tt.status {
				t.Fatalf("%s %s: %d %s, want %d", tt.method, tt.path, status, body, tt.status)
			}
			if got := header.Get("Allow"); got != tt.allow {
				t.Fatalf("Allow = %q, want %q", got, tt.allow)
			}
			if tt.code == "" {
				return
			}
			var envelope struct {
				Error struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &envelope); err != nil || envelope.Error.Code != tt.code || envelope.Error.Message == "" {
				t.Fatalf("body %s (%v), want the control envelope with code %s", body, err, tt.code)
			}
		})
	}
}
