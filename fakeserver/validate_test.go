package fakeserver

import (
	"net/http"
	"strings"
	"testing"
)

func TestRequestValidationFromTheContract(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	get := bearer(seed.APIKey)
	post := jsonHeader(get)
	const id = "0b0e3c4e-1111-4000-8000-000000000000"
	tests := []struct {
		name   string
		method string
		path   string
		body   string
		want   string // part of the message
	}{
		{"limit zero", "GET", "/api/rest/v1/reports?limit=0", "", "limit"},
		{"limit over 100", "GET", "/api/rest/v1/series?limit=101", "", "limit"},
		{"limit not a number", "GET", "/api/rest/v1/reports?limit=ten", "", "limit"},
		{"negative offset", "GET", "/api/rest/v1/reports?offset=-1", "", "offset"},
		{"offset past int32", "GET", "/api/rest/v1/reports?offset=2147483648", "", "offset"},
		{"lower-case status", "GET", "/api/rest/v1/reports?status=complete", "", "status"},
		{"unknown status", "GET", "/api/rest/v1/reports?status=DONE", "", "status"},
		{"series_id not a uuid", "GET", "/api/rest/v1/reports?series_id=42", "", "series_id"},
		{"bad created_since", "GET", "/api/rest/v1/reports?created_since=yesterday", "", "created_since"},
		{"unencoded plus", "GET", "/api/rest/v1/reports?updated_since=2026-01-01T00:00:00+00:00", "", "updated_since"},
		{"report id not a uuid", "GET", "/api/rest/v1/reports/42", "", "report_id"},
		{"series id not a uuid", "GET", "/api/rest/v1/series/abc/episodes", "", "series_id"},
		{"empty create body", "POST", "/api/rest/v1/reports", `{}`, "exactly one of"},
		{"two keys", "POST", "/api/rest/v1/reports", `{"feed_url":"http://x/f.rss","series_id":"` + id + `"}`, "exactly one of"},
		{"retired podcast_id", "POST", "/api/rest/v1/reports", `{"podcast_id":"` + id + `"}`, "exactly one of"},
		{"upload without duration", "POST", "/api/rest/v1/reports", `{"report_id":"` + id + `","original_filename":"a.mp3"}`, "exactly one of"},
		{"negative episode index", "POST", "/api/rest/v1/reports", `{"feed_url":"http://x/f.rss","episode_index":-1}`, "episode_index"},
		{"body not JSON", "POST", "/api/rest/v1/reports", `feed_url=1`, "body"},
		{"body an array", "POST", "/api/rest/v1/uploads", `[]`, "body"},
		{"upload missing file_type", "POST", "/api/rest/v1/uploads", `{"file_name":"a.mp3","duration_ms":1000}`, "file_type"},
		{"upload duration as string", "POST", "/api/rest/v1/uploads", `{"file_name":"a.mp3","file_type":"audio/mpeg","duration_ms":"1000"}`, "duration_ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := get
			if tt.method == "POST" {
				h = post
			}
			status, _, body := call(t, srv, tt.method, tt.path, h, tt.body)
			if status != http.StatusBadRequest || errorCode(t, body) != "validation_error" {
				t.Fatalf("%d %s", status, body)
			}
			if !strings.Contains(strings.ToLower(string(body)), strings.ToLower(tt.want)) {
				t.Fatalf("message does not name %q: %s", tt.want, body)
			}
		})
	}
	// Well-formed requests pass validation.
	for _, path := range []string{
		"/api/rest/v1/reports?limit=100&offset=0&status=AWAITING_REVIEW&series_id=" + id,
		"/api/rest/v1/reports?updated_since=2026-01-01T00:00:00%2B00:00&created_since=2026-01-01T00:00:00Z",
		"/api/rest/v1/reports?updated_since=2026-01-01T00:00:00",
	} {
		if status, _, body := call(t, srv, "GET", path, get, ""); status != http.StatusOK {
			t.Errorf("%s: %d %s", path, status, body)
		}
	}
}
