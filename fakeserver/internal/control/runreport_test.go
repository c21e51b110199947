package control

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/runreport"
)

// TestRunReportCalls: GET answers the gathered run as the report's JSON; POST answers where
// the write went, or the write's error with its status (409 for a fake without a report dir).
func TestRunReportCalls(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	written := runreport.Written{RunID: "run-1", Files: runreport.Files{JSON: "/d/r.json", HTML: "/d/r.html"}, WrittenAt: at}
	for _, tc := range []struct {
		name, method string
		write        error
		status       int
		want         map[string]any
	}{
		{"get", http.MethodGet, nil, http.StatusOK, map[string]any{"format": runreport.Format, "run_id": "gathered", "base_url": "http://fake"}},
		{"write", http.MethodPost, nil, http.StatusOK, map[string]any{"run_id": "run-1", "json": "/d/r.json", "html": "/d/r.html", "written_at": "2026-11-26T09:00:00.000000+00:00"}},
		{"no report dir", http.MethodPost, &core.Error{Code: core.CodeConflict, Message: "no dir"}, http.StatusConflict,
			map[string]any{"error": map[string]any{"code": core.CodeConflict, "message": "no dir"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			calls := RunReport{
				Gather: func() *runreport.Run {
					r := &runreport.Run{Format: runreport.Format, RunID: "gathered", BaseURL: "http://fake", WrittenAt: at}
					runreport.Summarize(r)
					return r
				},
				Write: func() (runreport.Written, error) {
					if tc.write != nil {
						return runreport.Written{}, tc.write
					}
					return written, nil
				},
			}
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(tc.method, "/_fake/report", nil)
			if tc.method == http.MethodGet {
				calls.ServeGet(rec, req)
			} else {
				calls.ServeWrite(rec, req)
			}
			if rec.Code != tc.status || rec.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("%d %q, want %d JSON", rec.Code, rec.Header().Get("Content-Type"), tc.status)
			}
			var got map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.want {
				g, _ := json.Marshal(got[k])
				w, _ := json.Marshal(v)
				if string(g) != string(w) {
					t.Errorf("%s: %s, want %s", k, g, w)
				}
			}
		})
	}
}
