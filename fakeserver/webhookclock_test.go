package fakeserver

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/podqa/podqa-go/internal/apitime"
)

// lockedBuffer is a log destination the fake's goroutines share with the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestWebhookClockOnAMovedClock is must-have 2 of issue 39: a receiver verifying with the
// Standard Webhooks reference library on the wall clock, after the fake's manual clock advanced
// 3600 s. With WithWebhookClock(WebhookClockWall) verification passes and the body's timestamp
// is still the event's fake time; without it the receiver's 401 comes back explained, with the
// skew and the way out, in the delivery's last_error, its log line, the dashboard's endpoint
// page and the run report (JSON and page).
func TestWebhookClockOnAMovedClock(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		opts  []Option
		wall  bool // the receiver should accept
		stamp string
	}{
		{"wall", []Option{WithWebhookClock(WebhookClockWall)}, true, "wall"},
		{"default", nil, false, "fake"},
		{"fake", []Option{WithWebhookClock(WebhookClockFake)}, false, "fake"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			logs := &lockedBuffer{}
			dir := t.TempDir()
			opts := append([]Option{WithManualClock(time.Now()), WithWebhookTimeout(2 * time.Minute), WithReportDir(dir),
				WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))}, tt.opts...)
			srv, seed := NewTest(t, opts...)
			var mu sync.Mutex
			var secret string
			var bodies [][]byte
			var stamps []string
			receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				wh, err := standardwebhooks.NewWebhook(secret)
				bodies, stamps = append(bodies, body), append(stamps, r.Header.Get("webhook-timestamp"))
				mu.Unlock()
				if err == nil {
					err = wh.Verify(body, r.Header) // time.Now and the library's five minutes
				}
				if err != nil {
					http.Error(w, err.Error(), http.StatusUnauthorized)
					return
				}
				w.WriteHeader(http.StatusNoContent)
			}))
			t.Cleanup(receiver.Close)
			mu.Lock()
			ep := mustEndpoint(t, srv, seed.WorkspaceID, WebhookEndpointSpec{URL: receiver.URL + "/hook", Events: []string{"report.completed"}})
			secret = ep.Secret
			mu.Unlock()
			mustAdvance(t, srv, 3600*time.Second)

			d, err := srv.SendTestEvent(t.Context(), ep.ID)
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			if len(bodies) != 1 {
				t.Fatalf("%d requests", len(bodies))
			}
			var body struct{ Timestamp string }
			if err := json.Unmarshal(bodies[0], &body); err != nil || body.Timestamp != apitime.Format(srv.Now()) {
				t.Fatalf("body timestamp %q (%v), want the event's fake time %s", body.Timestamp, err, apitime.Format(srv.Now()))
			}
			fakeStamp := srv.Now().Unix()
			mu.Unlock()

			if tt.wall {
				if d.Status != "succeeded" || d.LastError != nil || stamps[0] == strconv.FormatInt(fakeStamp, 10) {
					t.Fatalf("delivery %s %v, stamped %s (the fake's %d): want it accepted on the wall clock", d.Status, d.LastError, stamps[0], fakeStamp)
				}
				if strings.Contains(logs.String(), "ahead of the wall clock") {
					t.Fatalf("a skew reported for a wall-stamped delivery:\n%s", logs)
				}
				return
			}
			if stamps[0] != strconv.FormatInt(fakeStamp, 10) {
				t.Fatalf("stamped %s, want the fake's %d", stamps[0], fakeStamp)
			}
			if d.Status != "retrying" || d.ResponseCode == nil || *d.ResponseCode != 401 || d.LastError == nil {
				t.Fatalf("delivery %+v", d)
			}
			lastErr := *d.LastError
			for _, want := range []string{"HTTP 401; ", " ahead of the wall clock", "-webhook-clock wall", "WithWebhookClock(fakeserver.WebhookClockWall)"} {
				if !strings.Contains(lastErr, want) {
					t.Errorf("last_error %q does not say %q", lastErr, want)
				}
			}
			if !strings.Contains(lastErr, "was 59m5") && !strings.Contains(lastErr, "was 1h0m0s") {
				t.Errorf("last_error %q does not give the hour's skew", lastErr)
			}
			// One phrase that html/template leaves as it is, for the pages.
			const said = "ahead of the wall clock, past the 5m0s a Standard Webhooks receiver allows; stamp with the wall clock (-webhook-clock wall;"

			line := ""
			for l := range strings.Lines(logs.String()) {
				if strings.Contains(l, "webhook attempt failed") {
					line = l
				}
			}
			if !strings.Contains(line, said) {
				t.Errorf("the attempt's log line does not explain the 401: %q", line)
			}
			w := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/endpoints/" + ep.ID, header: browser(bearer(srv.AdminToken()))})
			if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), said) {
				t.Errorf("the dashboard's endpoint page (%d) does not explain the 401", w.Code)
			}
			status, _, report := call(t, srv, "GET", "/_fake/report", admin(srv), "")
			if status != http.StatusOK || strings.Count(string(report), said) < 2 { // the delivery and its attempt
				t.Errorf("the run report (%d) explains the 401 %d times, want the delivery and its attempt", status, strings.Count(string(report), said))
			}
			files, err := srv.WriteRunReport()
			if err != nil {
				t.Fatal(err)
			}
			page, err := os.ReadFile(files.HTML)
			if err != nil || !strings.Contains(string(page), said) {
				t.Errorf("the run report's page (%v) does not explain the 401", err)
			}
		})
	}
}

// TestWebhookClockRefused: New refuses a webhook clock that is neither wall nor fake, naming
// the option and the two values, and starts nothing.
func TestWebhookClockRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []WebhookClock{"sideways", "Wall", " fake"} {
		srv, err := New(WithWebhookClock(c))
		if srv != nil || err == nil || !strings.Contains(err.Error(), "WithWebhookClock") || !strings.Contains(err.Error(), `"wall" or "fake"`) {
			t.Errorf("%q: %v", c, err)
		}
		if got, err := ParseWebhookClock(string(c)); err == nil || got != "" {
			t.Errorf("ParseWebhookClock(%q) = %q, %v", c, got, err)
		}
	}
	for _, c := range []WebhookClock{WebhookClockWall, WebhookClockFake} {
		if got, err := ParseWebhookClock(string(c)); err != nil || got != c {
			t.Errorf("ParseWebhookClock(%q) = %q, %v", c, got, err)
		}
	}
}
