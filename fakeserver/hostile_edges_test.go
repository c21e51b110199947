package fakeserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestLooseEdges: each loose edge of issue #19 answers a clear 400 in the documented
// envelope and changes nothing.
func TestLooseEdges(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithoutRateLimits())
	res := reserve(t, srv, seed.APIKey, 60_000)
	big := `{"description":"` + strings.Repeat("a", 10<<20) + `"}`
	tests := []struct {
		name, method, path string
		header             http.Header
		body               string
		want               int
		// message holds a fragment the message must contain.
		message string
	}{
		{"REST bytes after the JSON body", "POST", "/api/rest/v1/uploads", jsonHeader(bearer(seed.APIKey)),
			`{"file_name":"a.wav","file_type":"audio/wav","duration_ms":1000}{"file_name":"b.wav"}`, 400, "after the JSON"},
		{"REST garbage after the JSON body", "POST", "/api/rest/v1/reports", jsonHeader(bearer(seed.APIKey)),
			`{"feed_url":"http://127.0.0.1:1/f.rss"} x`, 400, "after the JSON"},
		{"REST oversized body", "POST", "/api/rest/v1/uploads", jsonHeader(bearer(seed.APIKey)), big, 400, "1048576"},
		{"CRLF in file_type", "POST", "/api/rest/v1/uploads", jsonHeader(bearer(seed.APIKey)),
			`{"file_name":"a.wav","file_type":"audio/wav\r\nX-Evil: 1","duration_ms":1000}`, 400, "file_type"},
		{"control character in file_type", "POST", "/api/rest/v1/uploads", jsonHeader(bearer(seed.APIKey)),
			`{"file_name":"a.wav","file_type":"audio/wav\u0000","duration_ms":1000}`, 400, "file_type"},
		{"zero-byte PUT", "PUT", strings.TrimPrefix(res.UploadURL, srv.URL()), http.Header{"Content-Type": {"audio/wav"}}, "", 400, "empty"},
		{"10 MB control body", "POST", "/_fake/workspaces/" + seed.WorkspaceID + "/api-keys", jsonHeader(bearer(srv.AdminToken())), big, 400, "1048576"},
		{"limit=1e3", "GET", "/api/rest/v1/reports?limit=1e3", bearer(seed.APIKey), "", 400, `"1e3"`},
		{"limit=abc", "GET", "/api/rest/v1/reports?limit=abc", bearer(seed.APIKey), "", 400, `"abc"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, _, body := call(t, srv, tt.method, tt.path, tt.header, tt.body)
			var e envelope
			if err := json.Unmarshal(body, &e); err != nil || e.Error.Code != "validation_error" {
				t.Fatalf("%d %s: not a validation_error envelope", status, body)
			}
			if status != tt.want || !strings.Contains(e.Error.Message, tt.message) {
				t.Fatalf("%d %q, want %d and a message containing %q", status, e.Error.Message, tt.want, tt.message)
			}
		})
	}
	// Nothing was reserved by the refused POST /uploads calls: only the one reservation exists.
	status, _, body := call(t, srv, "PUT", strings.TrimPrefix(res.UploadURL, srv.URL()), http.Header{"Content-Type": {"audio/wav"}}, "RIFF")
	if status != http.StatusOK {
		t.Fatalf("a PUT with bytes after the refused empty one: %d %s", status, body)
	}
}

// TestGraphQLOversizedBody400: an oversized GraphQL body is a 400 with an errors entry, not a 200.
func TestGraphQLOversizedBody400(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t, WithoutRateLimits())
	q := `{"query":"{ __typename }","variables":{"pad":"` + strings.Repeat("a", 2<<20) + `"}}`
	status, _, body := call(t, srv, "POST", "/api/graphql", http.Header{"Content-Type": {"application/json"}}, q)
	var answer struct {
		Errors []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	if status != http.StatusBadRequest || json.Unmarshal(body, &answer) != nil || len(answer.Errors) != 1 ||
		!strings.Contains(answer.Errors[0].Message, "1048576") {
		t.Fatalf("%d %s, want 400 with one errors entry naming the limit", status, body)
	}
}
