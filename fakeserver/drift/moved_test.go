package drift_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/fakeserver/drift"
)

// front is a test server in front of a fake: it passes every request on and lets a test
// rewrite an answer's body, or answer instead.
func front(t *testing.T, live *fakeserver.Server, rewrite func(r *http.Request, status int, body []byte) []byte, answer func(w http.ResponseWriter, r *http.Request) bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if answer != nil && answer(w, r) {
			return
		}
		body, _ := io.ReadAll(r.Body)
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, live.URL()+r.URL.RequestURI(), bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := live.Client().Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if rewrite != nil {
			out = rewrite(r, resp.StatusCode, out)
		}
		for k, v := range resp.Header {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// editJSON decodes b, lets edit change it and encodes it again.
func editJSON(t *testing.T, b []byte, edit func(v map[string]any)) []byte {
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Errorf("rewrite: %v", err)
		return b
	}
	edit(v)
	out, _ := json.Marshal(v)
	return out
}

func obj(v any, path ...string) map[string]any {
	for _, p := range path {
		v = v.(map[string]any)[p]
	}
	return v.(map[string]any)
}

// movedOn rewrites a fake's answers into a service that moved on: the full report gains a
// field (contract and answers), a new endpoint appears, GraphQL's ReportType gains a field
// (additive); OUT_OF_QUOTA leaves ReportStatus and stats.passes becomes a string (breaking).
func movedOn(t *testing.T) func(r *http.Request, status int, body []byte) []byte {
	passesAsText := func(stats any) any {
		text, ok := stats.(string)
		if !ok {
			return stats
		}
		var st map[string]any
		_ = json.Unmarshal([]byte(text), &st)
		st["passes"] = "3"
		b, _ := json.Marshal(st)
		return string(b)
	}
	return func(r *http.Request, status int, body []byte) []byte {
		switch {
		case r.URL.Path == "/api/rest/v1/openapi.json":
			return editJSON(t, body, func(doc map[string]any) {
				schemas := obj(doc, "components", "schemas")
				obj(schemas, "Report", "properties")["loudness_summary"] = map[string]any{"type": "object", "nullable": true}
				obj(schemas, "Stats", "properties", "passes")["type"] = "string"
				status := obj(schemas, "ReportStatus")
				var kept []any
				for _, v := range status["enum"].([]any) {
					if v != "OUT_OF_QUOTA" {
						kept = append(kept, v)
					}
				}
				status["enum"] = kept
				obj(doc, "paths")["/reports/{report_id}/waveform"] = map[string]any{"get": map[string]any{
					"operationId": "getReportWaveform", "responses": map[string]any{"200": map[string]any{"description": "The waveform."}}}}
			})
		case r.URL.Path == "/schema.graphql":
			return bytes.Replace(body, []byte("type ReportType {"), []byte("type ReportType {\n  waveformUrl: String"), 1)
		case strings.HasPrefix(r.URL.Path, "/api/rest/v1/reports/") && !strings.HasSuffix(r.URL.Path, "/transcript") && status == 200:
			return editJSON(t, body, func(rep map[string]any) {
				rep["loudness_summary"] = map[string]any{"integrated": -16}
				if st, ok := rep["stats"].(map[string]any); ok {
					st["passes"] = "3"
				}
			})
		case r.URL.Path == "/api/graphql" && status == 200:
			return editJSON(t, body, func(answer map[string]any) {
				data, _ := answer["data"].(map[string]any)
				if rep, ok := data["report"].(map[string]any); ok {
					rep["stats"] = passesAsText(rep["stats"])
				}
			})
		}
		return body
	}
}

// TestCheckFindsAServiceThatMovedOn is issue 42's second test: each change of a service that
// moved on is reported with its class and path.
func TestCheckFindsAServiceThatMovedOn(t *testing.T) {
	t.Parallel()
	live, seed := liveFake(t)
	moved := front(t, live, movedOn(t), nil)
	rep, err := drift.Check(context.Background(), moved.URL, drift.WithAPIKey(seed.APIKey), drift.WithClock(live.Clock()))
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	_ = rep.WriteTable(&table)
	want := []drift.Difference{
		{Class: drift.Additive, Surface: "rest", Source: "contract", Where: "GET /reports/{report_id}", Path: "200 body.loudness_summary", Change: "field added"},
		{Class: drift.Additive, Surface: "rest", Source: "contract", Where: "GET /reports/{report_id}/waveform", Change: "operation added", Detail: "getReportWaveform"},
		{Class: drift.Additive, Surface: "rest", Source: "answer", Where: "GET /reports/{report_id}", Path: "200 body.loudness_summary", Change: "field the contract lacks", Detail: "object"},
		{Class: drift.Additive, Surface: "graphql", Source: "contract", Where: "ReportType", Path: "waveformUrl", Change: "field added", Detail: "String"},
		{Class: drift.Breaking, Surface: "rest", Source: "contract", Where: "GET /reports/{report_id}", Path: "200 body.status", Change: "enum value removed", Detail: "OUT_OF_QUOTA"},
		{Class: drift.Breaking, Surface: "rest", Source: "contract", Where: "GET /reports/{report_id}", Path: "200 body.stats.passes", Change: "type changed", Detail: "fake integer, live string"},
		{Class: drift.Breaking, Surface: "rest", Source: "answer", Where: "GET /reports/{report_id}", Path: "200 body.stats.passes", Change: "type mismatch", Detail: "contract integer, live string"},
		{Class: drift.Breaking, Surface: "graphql", Source: "answer", Where: "query report", Path: "report.stats.passes", Change: "type mismatch", Detail: "contract integer, live string"},
	}
	for _, w := range want {
		found := false
		for _, d := range rep.Differences {
			found = found || d == w
		}
		if !found {
			t.Errorf("not reported: %+v", w)
		}
	}
	for _, d := range rep.Differences {
		if d.Class != drift.Additive && d.Class != drift.Breaking || d.Where == "" || d.Change == "" {
			t.Errorf("a difference without its class or place: %+v", d)
		}
	}
	if rep.Breaking == 0 || rep.Additive == 0 || rep.Breaking+rep.Additive != len(rep.Differences) {
		t.Errorf("counts %d breaking, %d additive of %d", rep.Breaking, rep.Additive, len(rep.Differences))
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("report:\n%s", table.String())
	}
}

// TestCheckWaitsOutLimitsAndRefusals is issue 42's third test: a 429 with Retry-After and a 503
// from the live side are waited out on the injected clock, not the wall's; an unreachable URL,
// a contract that is not JSON and a refused key are errors naming why.
func TestCheckWaitsOutLimitsAndRefusals(t *testing.T) {
	t.Parallel()
	live, seed := liveFake(t)
	var limited, unavailable atomic.Int32
	flaky := front(t, live, nil, func(w http.ResponseWriter, r *http.Request) bool {
		switch {
		case r.URL.Path == drift.OpenAPIPath && limited.Add(1) == 1:
			w.Header().Set("Retry-After", "30")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"error":{"code":"rate_limited","message":"Slow down."}}`)
			return true
		case r.URL.Path == "/api/rest/v1/me" && unavailable.Add(1) == 1:
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, "Service Unavailable")
			return true
		}
		return false
	})
	clock := client.NewManualClock(fakeserver.TestStart())
	rep, err := drift.Check(context.Background(), flaky.URL, drift.WithAPIKey(seed.APIKey), drift.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Drifted() {
		t.Errorf("%d differences", len(rep.Differences))
	}
	if waited := clock.Now().Sub(fakeserver.TestStart()); waited < 30*time.Second || limited.Load() < 2 || unavailable.Load() < 2 {
		t.Errorf("waited %s on the clock, %d openapi.json and %d /me requests", waited, limited.Load(), unavailable.Load())
	}

	// An address nothing answers at: the dialer refuses every connection, so the case does not
	// hang on a closed test server's port, which another process may have taken since.
	refusing := &http.Client{Transport: &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
		return nil, syscall.ECONNREFUSED
	}}}
	notJSON := front(t, live, func(r *http.Request, status int, body []byte) []byte {
		if r.URL.Path == drift.OpenAPIPath {
			return []byte("<html>maintenance</html>")
		}
		return body
	}, nil)
	sdlHTML := front(t, live, func(r *http.Request, status int, body []byte) []byte {
		if r.URL.Path == drift.SDLPath {
			return []byte(`{"not":"sdl"}`)
		}
		return body
	}, nil)
	var elsewhereHits atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhereHits.Add(1) }))
	t.Cleanup(elsewhere.Close)
	redirecting := front(t, live, nil, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == drift.OpenAPIPath || r.URL.Path == "/api/rest/v1/me" {
			http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusFound)
			return true
		}
		return false
	})
	fast := drift.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 2})
	for _, tt := range []struct {
		name, url string
		opts      []drift.Option
		want      error
		reason    string
	}{
		{"unreachable", "http://127.0.0.1:9", []drift.Option{drift.WithHTTPClient(refusing)}, drift.ErrUnreachable, "could not be reached"},
		{"openapi.json not JSON", notJSON.URL, nil, drift.ErrNotJSON, "openapi.json is not JSON"},
		{"schema.graphql not SDL", sdlHTML.URL, nil, drift.ErrNotJSON, "not GraphQL SDL"},
		{"a redirect elsewhere", redirecting.URL, nil, drift.ErrUnreachable, "a redirect to another origin is not followed"},
		{"refused key", live.URL(), []drift.Option{drift.WithAPIKey("podqa_api_not_a_key_of_this_service_0000"), drift.WithHTTPClient(live.Client())}, drift.ErrKeyRefused, "refused the API key"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := append([]drift.Option{drift.WithClock(client.NewManualClock(fakeserver.TestStart())), fast}, tt.opts...)
			_, err := drift.Check(context.Background(), tt.url, opts...)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("err = %v, want %v (%q)", err, tt.want, tt.reason)
			}
			if strings.Contains(err.Error(), "podqa_api_") {
				t.Fatalf("the key is in the error: %v", err)
			}
		})
	}
	if n := elsewhereHits.Load(); n != 0 {
		t.Errorf("another origin was reached %d times", n)
	}
}
