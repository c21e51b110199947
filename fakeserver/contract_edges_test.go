package fakeserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/rest"
)

// TestOversizedBodiesAnswer400: a body over its call's limit is 400 validation_error on every
// surface, as the specification's error table has it (it lists no 413), each in its own shape,
// and creates nothing.
func TestOversizedBodiesAnswer400(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithoutRateLimits())
	big := func(limit int) string { return `{"url":"` + strings.Repeat("a", limit) + `"}` }
	tests := []struct {
		name, path string
		header     http.Header
		body       string
		// shape is "envelope" (REST and control), "flat" (subscribe) or "graphql".
		shape string
		limit string
	}{
		{"REST", "/api/rest/v1/uploads", jsonHeader(bearer(seed.APIKey)), big(httpmw.MaxAPIBody), "envelope", "1048576"},
		{"subscribe", "/webhook/subscribe", jsonHeader(bearer(seed.APIKey)), big(rest.MaxSubscribeBody), "flat", "65536"},
		{"GraphQL", "/api/graphql", jsonHeader(bearer(seed.APIKey)), big(httpmw.MaxAPIBody), "graphql", "1048576"},
		{"control", "/_fake/workspaces/" + seed.WorkspaceID + "/webhook-endpoints", jsonHeader(bearer(srv.AdminToken())), big(httpmw.MaxControlBody), "envelope", "1048576"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			status, header, body := call(t, srv, "POST", tc.path, tc.header, tc.body)
			if status != http.StatusBadRequest || !strings.HasPrefix(header.Get("Content-Type"), "application/json") {
				t.Fatalf("%d %s %.200s, want 400 JSON", status, header.Get("Content-Type"), body)
			}
			var message, code string
			switch tc.shape {
			case "envelope":
				var e envelope
				_ = json.Unmarshal(body, &e)
				message, code = e.Error.Message, e.Error.Code
			case "flat":
				var e map[string]string
				_ = json.Unmarshal(body, &e)
				message, code = e["error"], "validation_error" // the flat shape carries no code
				if len(e) != 1 {
					t.Errorf("flat answer has fields beside error: %s", body)
				}
			case "graphql":
				var e struct {
					Errors []struct {
						Message    string `json:"message"`
						Extensions struct {
							Code string `json:"code"`
						} `json:"extensions"`
					} `json:"errors"`
				}
				if json.Unmarshal(body, &e) == nil && len(e.Errors) == 1 {
					message, code = e.Errors[0].Message, e.Errors[0].Extensions.Code
				}
			}
			if code != "validation_error" || !strings.Contains(message, tc.limit) {
				t.Fatalf("answer %s: want validation_error naming the %s-byte limit", body, tc.limit)
			}
		})
	}
	t.Cleanup(func() {
		eps, err := srv.WebhookEndpoints(seed.WorkspaceID)
		if err != nil || len(eps) != 0 {
			t.Errorf("after the refused calls: endpoints %v (%v), want none", eps, err)
		}
	})
}

// TestEmptyIntegerParameters: ?limit= and ?offset= are malformed values like ?limit=abc (400
// validation_error naming the parameter), on REST and on the control API alike; an empty string
// parameter is left to its own schema.
func TestEmptyIntegerParameters(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithoutRateLimits())
	key, admin := bearer(seed.APIKey), bearer(srv.AdminToken())
	tests := []struct {
		path   string
		header http.Header
		want   int
		// param is the parameter the message must name, for a 400.
		param string
	}{
		{"/api/rest/v1/reports?limit=", key, 400, "limit"},
		{"/api/rest/v1/reports?offset=", key, 400, "offset"},
		{"/api/rest/v1/reports?limit=5&offset=", key, 400, "offset"},
		{"/api/rest/v1/series?limit=", key, 400, "limit"},
		{"/api/rest/v1/reports?limit=5&offset=0", key, 200, ""},
		{"/api/rest/v1/reports", key, 200, ""},
		{"/_fake/requests?limit=", admin, 400, "limit"},
		{"/_fake/requests?status=", admin, 400, "status"},
		{"/_fake/requests?limit=5", admin, 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			status, _, body := call(t, srv, "GET", tc.path, tc.header, "")
			if status != tc.want {
				t.Fatalf("%d %s, want %d", status, body, tc.want)
			}
			if tc.want == 400 {
				var e envelope
				if json.Unmarshal(body, &e) != nil || e.Error.Code != "validation_error" || !strings.Contains(e.Error.Message, tc.param) {
					t.Fatalf("answer %s: want validation_error naming %s", body, tc.param)
				}
			}
		})
	}
}
