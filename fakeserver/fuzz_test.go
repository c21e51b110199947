package fakeserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// refuseOutbound keeps fuzzed feed and audio URLs off the network.
type refuseOutbound struct{}

func (refuseOutbound) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("outbound requests are refused while fuzzing")
}

// FuzzRequestBodies sends arbitrary bodies to every JSON-reading call of the REST and control
// APIs: each must answer a 2xx, or a 4xx in the documented error envelope, never a 5xx or a panic.
func FuzzRequestBodies(f *testing.F) {
	srv, seed := NewTest(f, func(o *options) { o.outbound = refuseOutbound{} }, WithoutRateLimits())
	targets := []struct{ method, path, bearer string }{
		{http.MethodPost, "/api/rest/v1/reports", seed.APIKey},
		{http.MethodPost, "/api/rest/v1/uploads", seed.APIKey},
		{http.MethodPost, "/_fake/workspaces", srv.AdminToken()},
		{http.MethodPost, "/_fake/workspaces/" + seed.WorkspaceID + "/api-keys", srv.AdminToken()},
		{http.MethodPatch, "/_fake/workspaces/" + seed.WorkspaceID + "/credits", srv.AdminToken()},
		{http.MethodPost, "/_fake/workspaces/" + seed.WorkspaceID + "/topups", srv.AdminToken()},
		{http.MethodPost, "/_fake/feeds", srv.AdminToken()},
	}
	seeds := []string{
		`{"feed_url":"http://127.0.0.1:1/feed.rss"}`,
		`{"series_id":"3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e","episode_index":2}`,
		`{"report_id":"3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e","original_filename":"a.wav","duration_ms":1000}`,
		`{"file_name":"a.mp3","file_type":"audio/mpeg","duration_ms":60000}`,
		`{"type":"organisation","name":"Acme","plan_allowance":10}`,
		`{"description":"ci"}`,
		`{"plan_used":1e308,"charging_enabled":true}`,
		`{"amount":5,"expires_at":"2026-02-01T00:00:00+00:00"}`,
		`{"title":"T","episodes":[{"title":"E","duration_s":1,"loudness_lufs":-16}]}`,
		`{"feed_url":null,"series_id":null}`, `[]`, `null`, `{"a":`, "\xff", ``,
		// Loose edges of issue #19: data after the object, a file_type that is no header value.
		`{"file_name":"a.mp3","file_type":"audio/mpeg","duration_ms":1}{"file_name":"b"}`,
		`{"description":"x"} trailing`,
		`{"file_name":"a.wav","file_type":"audio/wav\r\nX-Evil: 1","duration_ms":1000}`,
	}
	for i := range targets {
		for _, s := range seeds {
			f.Add(uint8(i), []byte(s))
		}
	}
	handler := srv.Handler()
	f.Fuzz(func(t *testing.T, target uint8, body []byte) {
		tg := targets[int(target)%len(targets)]
		req := httptest.NewRequest(tg.method, tg.path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tg.bearer)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s", tg.method, tg.path, body, rec.Code, rec.Body)
		}
		if rec.Code >= 400 {
			var envelope struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &envelope); err != nil || envelope.Error.Code == "" || strings.TrimSpace(envelope.Error.Message) == "" {
				t.Fatalf("%s %s %q: %d answered outside the error envelope: %s", tg.method, tg.path, body, rec.Code, rec.Body)
			}
		}
	})
}
