package fakeserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// logCapture is a slog.Logger writing JSON lines to memory, for tests that read the log back.
type logCapture struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *logCapture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(p)
}

func (c *logCapture) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}

func newLogCapture(level slog.Level) (*logCapture, Option) {
	c := &logCapture{}
	return c, WithLogger(slog.New(slog.NewJSONHandler(c, &slog.HandlerOptions{Level: level})))
}

// lines returns the captured lines whose kind is kind (every line when kind is "").
func (c *logCapture) lines(t *testing.T, kind string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range bytes.Split(c.bytes(), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("log line %s: %v", l, err)
		}
		if kind == "" || m["kind"] == kind {
			out = append(out, m)
		}
	}
	return out
}

// wantAttrs checks that line has each attribute with the value given ("*" for any non-empty).
func wantAttrs(t *testing.T, what string, line map[string]any, want map[string]any) {
	t.Helper()
	for k, v := range want {
		got, ok := line[k]
		switch {
		case !ok:
			t.Errorf("%s: no %s in %v", what, k, line)
		case v == "*":
			if fmt.Sprint(got) == "" {
				t.Errorf("%s: empty %s in %v", what, k, line)
			}
		case fmt.Sprint(got) != fmt.Sprint(v):
			t.Errorf("%s: %s = %v, want %v", what, k, got, v)
		}
	}
}

func TestEventsOfAFailedUpload(t *testing.T) {
	t.Parallel()
	logs, withLog := newLogCapture(slog.LevelInfo)
	srv, seed := NewTest(t, WithAnalysisPace(0), withLog)
	id := uploadReport(t, srv, seed.APIKey, []byte("this is a text file, not audio at all"))
	mustAdvance(t, srv, 10*time.Second)

	created := logs.lines(t, EventReportCreated)
	if len(created) != 1 {
		t.Fatalf("report.created lines: %v", created)
	}
	wantAttrs(t, "created", created[0], map[string]any{"level": "INFO", "report_id": id, "workspace_id": seed.WorkspaceID, "source": "upload", "file_name": "up.wav"})
	var statuses []string
	for _, l := range logs.lines(t, EventReportStatus) {
		if l["report_id"] == id {
			statuses = append(statuses, fmt.Sprint(l["status"]))
			wantAttrs(t, "status", l, map[string]any{"at": "*", "workspace_id": seed.WorkspaceID})
		}
	}
	if got := strings.Join(statuses, " "); got != "SCHEDULED IN_PROGRESS" {
		t.Errorf("status lines %q", got)
	}
	finished := logs.lines(t, EventReportFinished)
	if len(finished) != 1 {
		t.Fatalf("report.finished lines: %v", finished)
	}
	wantAttrs(t, "finished", finished[0], map[string]any{"level": "WARN", "status": "FAILED", "report_id": id, "at": "*"})
	if reason := fmt.Sprint(finished[0]["reason"]); !strings.Contains(reason, "could not be analysed") {
		t.Errorf("reason %q", reason)
	}

	acc, err := srv.ReportAccount(id)
	if err != nil {
		t.Fatal(err)
	}
	if acc.Report.Status != "FAILED" || acc.Failure != finished[0]["reason"] || acc.Measured != nil || len(acc.Checks) != 0 {
		t.Errorf("account: %+v", acc)
	}
	if last := acc.Timeline[len(acc.Timeline)-1]; last.Status != "FAILED" || last.Reason != acc.Failure {
		t.Errorf("timeline ends %+v", last)
	}
	if len(acc.Emails) != 1 || acc.Emails[0].Kind != "report_failed" || !strings.Contains(acc.Emails[0].Text, acc.Failure) {
		t.Errorf("emails: %+v", acc.Emails)
	}
	// The record holds the same events, by report.
	var kinds []string
	for _, e := range srv.Events(EventFilter{ReportID: id}) {
		kinds = append(kinds, e.Kind)
	}
	if got := strings.Join(kinds, " "); got != "report.created report.status report.status report.finished" {
		t.Errorf("recorded: %s", got)
	}
}

func TestEventsOfAnUnreachableWebhook(t *testing.T) {
	t.Parallel()
	logs, withLog := newLogCapture(slog.LevelDebug)
	srv, seed := newHookTest(t, WithAnalysisPace(0), withLog)
	dead := mustEndpoint(t, srv, seed.WorkspaceID, WebhookEndpointSpec{URL: "http://127.0.0.1:1/hook", Events: []string{"report.completed"}})
	rc := newReceiver(t, 200)
	live := mustEndpoint(t, srv, seed.WorkspaceID, WebhookEndpointSpec{URL: rc.srv.URL + "/ok", Events: []string{"report.completed"}})
	id := uploadReport(t, srv, seed.APIKey, synthWAV(t, 2))
	mustAdvance(t, srv, 10*time.Second)

	failed := logs.lines(t, EventDeliveryFailed)
	if len(failed) != 1 {
		t.Fatalf("attempt_failed lines: %v", failed)
	}
	wantAttrs(t, "attempt failed", failed[0], map[string]any{
		"level": "WARN", "endpoint_id": dead.ID, "event": "report.completed", "attempt": 1, "report_id": id,
		"workspace_id": seed.WorkspaceID, "error": "*", "latency": "*", "latency_ms": "*",
	})
	ds, err := srv.WebhookDeliveries(dead.ID)
	if err != nil || len(ds) != 1 {
		t.Fatalf("deliveries %v %v", ds, err)
	}
	if failed[0]["delivery_id"] != ds[0].ID {
		t.Errorf("delivery_id %v, want %s", failed[0]["delivery_id"], ds[0].ID)
	}
	if want := fakeTime(ds[0].NextAttemptAt); failed[0]["next_attempt"] != want {
		t.Errorf("next_attempt %v, want %s (the delivery log's)", failed[0]["next_attempt"], want)
	}
	delivered := logs.lines(t, EventDeliverySucceeded)
	if len(delivered) != 1 {
		t.Fatalf("delivered lines: %v", delivered)
	}
	wantAttrs(t, "delivered", delivered[0], map[string]any{"level": "DEBUG", "endpoint_id": live.ID, "attempt": 1, "response_status": 200, "delivery_id": "*", "latency": "*"})
	acc, err := srv.ReportAccount(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(acc.Deliveries) != 2 {
		t.Fatalf("account deliveries: %+v", acc.Deliveries)
	}
	for _, d := range acc.Deliveries {
		if d.EventType != "report.completed" || !bytes.Contains(d.Body, []byte(id)) {
			t.Errorf("delivery %+v", d)
		}
	}
}

func TestEventsOfRefusedRequests(t *testing.T) {
	t.Parallel()
	logs, withLog := newLogCapture(slog.LevelInfo)
	srv, seed := NewTest(t, withLog)
	disabled, err := srv.CreateAPIKey(seed.WorkspaceID, "off")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.SetAPIKeyDisabled(disabled.ID, true); err != nil {
		t.Fatal(err)
	}
	unknown := "podqa_api_" + strings.Repeat("z", 32)
	tests := []struct {
		name   string
		header http.Header
		want   map[string]any
	}{
		{"unknown key", bearer(unknown), map[string]any{"credential": "unknown_key", "key_prefix": "podqa_api_zzzzzz…"}},
		{"disabled key", bearer(disabled.Key), map[string]any{"credential": "disabled_key", "key_prefix": disabled.MaskedKey, "key_id": disabled.ID}},
		{"malformed", http.Header{"Authorization": {"Basic abc"}}, map[string]any{"credential": "malformed"}},
		{"missing", nil, map[string]any{"credential": "missing"}},
	}
	for _, tt := range tests {
		before := len(logs.lines(t, EventRequestRefused))
		if status, _, _ := call(t, srv, "GET", "/api/rest/v1/reports", tt.header, ""); status != http.StatusUnauthorized {
			t.Fatalf("%s: %d", tt.name, status)
		}
		lines := logs.lines(t, EventRequestRefused)
		if len(lines) != before+1 {
			t.Fatalf("%s: %d refusal lines, want one more than %d", tt.name, len(lines), before)
		}
		tt.want["status"], tt.want["path"], tt.want["level"] = 401, "/api/rest/v1/reports", "WARN"
		wantAttrs(t, tt.name, lines[len(lines)-1], tt.want)
	}
	// The per-key minute window: the 101st request is refused until the minute ends.
	var status int
	for range 101 {
		status, _, _ = call(t, srv, "GET", "/api/rest/v1/reports", bearer(seed.APIKey), "")
	}
	if status != http.StatusTooManyRequests {
		t.Fatalf("101st request: %d", status)
	}
	lines := logs.lines(t, EventRequestRefused)
	limited := lines[len(lines)-1]
	wantAttrs(t, "429", limited, map[string]any{
		"status": 429, "bucket": "key_requests_per_minute", "subject": seed.APIKeyID, "limit": 100, "window": "1m0s",
		"refills_at": fakeTime(TestStart().Add(time.Minute)),
	})
	for _, secret := range []string{unknown, disabled.Key, seed.APIKey, "Basic abc"} {
		if bytes.Contains(logs.bytes(), []byte(secret)) {
			t.Errorf("the log holds %q", secret)
		}
	}
}

func TestPrivateURLRefusalsNameTheWayOut(t *testing.T) {
	t.Parallel()
	logs, withLog := newLogCapture(slog.LevelInfo)
	srv, seed := NewTest(t, WithPrivateURLs(false), withLog)
	wayOut := func(what, msg string) {
		t.Helper()
		if !strings.Contains(msg, "-allow-private-urls") || !strings.Contains(msg, "WithPrivateURLs(true)") {
			t.Errorf("%s: %q names no way out", what, msg)
		}
	}
	_, err := srv.CreateWebhookEndpoint(context.Background(), seed.WorkspaceID, WebhookEndpointSpec{URL: "http://127.0.0.1:9/hook", Events: []string{"report.completed"}})
	var refusal *Error
	if !errors.As(err, &refusal) || refusal.Status != 400 || !strings.HasPrefix(refusal.Message, "Invalid webhook URL: ") {
		t.Fatalf("a loopback endpoint: %v", err)
	}
	wayOut("Go API", err.Error())
	status, _, body := call(t, srv, "POST", "/webhook/subscribe", jsonHeader(bearer(seed.APIKey)), `{"url":"http://10.1.2.3/hook","events":["report.completed"]}`)
	if status != 400 || !strings.HasPrefix(flatError(t, body), "Invalid webhook URL: ") {
		t.Fatalf("subscribe: %d %s", status, body)
	}
	wayOut("REST", flatError(t, body))
	status, _, body = call(t, srv, "POST", "/api/rest/v1/reports", jsonHeader(bearer(seed.APIKey)), `{"feed_url":"http://127.0.0.1:9/feed.xml","episode_index":0}`)
	if status != 400 {
		t.Fatalf("feed: %d %s", status, body)
	}
	wayOut("feed", string(body))
	refused := logs.lines(t, EventURLRefused)
	if len(refused) != 3 {
		t.Fatalf("url.refused lines: %v", refused)
	}
	for _, l := range refused {
		wantAttrs(t, "refused", l, map[string]any{"level": "WARN", "url": "*"})
		wayOut("log", fmt.Sprint(l["reason"]))
	}
}

func TestRequestLinesAtDebug(t *testing.T) {
	t.Parallel()
	tests := []struct {
		level     slog.Level
		wantLines int
	}{{slog.LevelDebug, 1}, {slog.LevelInfo, 0}}
	for _, tt := range tests {
		logs, withLog := newLogCapture(tt.level)
		srv, seed := NewTest(t, withLog)
		call(t, srv, "GET", "/api/rest/v1/reports", bearer(seed.APIKey), "")
		var lines []map[string]any
		for _, l := range logs.lines(t, EventRequest) {
			if l["path"] == "/api/rest/v1/reports" {
				lines = append(lines, l)
			}
		}
		if len(lines) != tt.wantLines {
			t.Fatalf("%v: %d request lines", tt.level, len(lines))
		}
		for _, l := range lines {
			wantAttrs(t, "request", l, map[string]any{"level": "DEBUG", "method": "GET", "status": 200})
			d, err := time.ParseDuration(fmt.Sprint(l["duration"]))
			ms, ok := l["duration_ms"].(float64)
			if err != nil || !ok || d <= 0 || ms <= 0 || fmt.Sprintf("%.3f", ms) != fmt.Sprintf("%.3f", float64(d)/float64(time.Millisecond)) {
				t.Errorf("duration %v / duration_ms %v", l["duration"], l["duration_ms"])
			}
			if _, took := l["took"]; took {
				t.Errorf("the unit-less took is back: %v", l)
			}
		}
	}
}

func TestEventsOfClockAndFaults(t *testing.T) {
	t.Parallel()
	logs, withLog := newLogCapture(slog.LevelInfo)
	srv, seed := NewTest(t, withLog)
	mustAdvance(t, srv, 90*time.Second)
	clockLines := logs.lines(t, EventClockAdvanced)
	if len(clockLines) != 1 {
		t.Fatalf("clock lines %v", clockLines)
	}
	wantAttrs(t, "clock", clockLines[0], map[string]any{"by": "1m30s", "now": fakeTime(TestStart().Add(90 * time.Second))})
	id, err := srv.InjectFault(Fault{PathPrefix: "/api/rest/v1/series", Status: 503, Count: 1})
	if err != nil {
		t.Fatal(err)
	}
	if status, _, _ := call(t, srv, "GET", "/api/rest/v1/series", bearer(seed.APIKey), ""); status != 503 {
		t.Fatalf("fault did not fire: %d", status)
	}
	faults := logs.lines(t, EventFaultFired)
	if len(faults) != 1 {
		t.Fatalf("fault lines %v", faults)
	}
	wantAttrs(t, "fault", faults[0], map[string]any{"fault_id": id, "answer_status": 503, "path": "/api/rest/v1/series", "method": "GET"})
	if got := srv.Events(EventFilter{Kind: EventFaultFired}); len(got) != 1 || !got[0].At.Equal(TestStart().Add(90*time.Second)) {
		t.Errorf("recorded faults %+v", got)
	}
	before := srv.Events(EventFilter{})
	if _, err := srv.Reset(); err != nil {
		t.Fatal(err)
	}
	// What the reset rebuilt (the demo workspace) and the reset itself, nothing older.
	after := srv.Events(EventFilter{})
	if len(after) == 0 || after[0].Seq <= before[len(before)-1].Seq || after[len(after)-1].Kind != EventReset {
		t.Errorf("after reset the record holds %+v", after)
	}
	if got := srv.Events(EventFilter{Kind: EventFaultFired}); len(got) != 0 {
		t.Errorf("the reset kept %+v", got)
	}
}

// TestRequestLineCostsNothingWhenOff: at INFO (the program's default) and without a logger, a
// request's DEBUG line builds nothing: no allocation.
func TestRequestLineCostsNothingWhenOff(t *testing.T) { // not parallel: AllocsPerRun
	tests := []struct {
		name string
		opt  Option
	}{
		{"no logger", WithLogger(nil)},
		{"info", WithLogger(slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo})))},
	}
	for _, tt := range tests {
		srv, _ := NewTest(t, tt.opt)
		req := httptest.NewRequest("GET", "/api/rest/v1/reports", nil)
		if n := testing.AllocsPerRun(100, func() { srv.raiseRequest(req, slog.LevelDebug, 200, time.Millisecond) }); n != 0 {
			t.Errorf("%s: %v allocations a request line", tt.name, n)
		}
	}
	// And the check can fail: at DEBUG the line is built.
	srv, _ := NewTest(t, WithLogger(slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	req := httptest.NewRequest("GET", "/api/rest/v1/reports", nil)
	if n := testing.AllocsPerRun(100, func() { srv.raiseRequest(req, slog.LevelDebug, 200, time.Millisecond) }); n == 0 {
		t.Error("at DEBUG a request line allocates nothing: the measure sees nothing")
	}
}
