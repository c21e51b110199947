package fakeserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// received is one request a test receiver got.
type received struct {
	header http.Header
	body   []byte
}

// receiver is a local webhook receiver whose answer a test sets: 200, 500, a 302, a hang past the
// budget, and so on.
type receiver struct {
	srv *httptest.Server

	mu     sync.Mutex
	status int
	hang   bool
	got    []received
}

func newReceiver(t *testing.T, status int) *receiver {
	t.Helper()
	rc := &receiver{status: status}
	done := make(chan struct{})
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := make([]byte, 0, 1024)
		buf := make([]byte, 4096)
		for {
			n, err := r.Body.Read(buf)
			body = append(body, buf[:n]...)
			if err != nil {
				break
			}
		}
		rc.mu.Lock()
		if r.URL.Path == "/redirected" {
			rc.mu.Unlock()
			t.Errorf("a redirect was followed")
			return
		}
		rc.got = append(rc.got, received{header: r.Header.Clone(), body: body})
		status, hang := rc.status, rc.hang
		rc.mu.Unlock()
		if hang {
			// Past the budget: the sender gives up and closes the connection.
			select {
			case <-r.Context().Done():
			case <-done:
			}
			return
		}
		if status == http.StatusFound {
			w.Header().Set("Location", "/redirected")
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(func() { close(done); rc.srv.Close() })
	return rc
}

func (rc *receiver) set(status int, hang bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.status, rc.hang = status, hang
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.got)
}

// refusedURL is a loopback URL nothing listens on.
func refusedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/hook"
}

// newHookTest starts a fake that accepts local receivers and gives them two minutes to answer:
// the budget is wall time, and only the test of a hanging receiver is about it (it shortens
// it); no other outcome may depend on how fast a loaded machine answers.
func newHookTest(t *testing.T, opts ...Option) (*Server, DemoWorkspace) {
	t.Helper()
	return NewTest(t, append([]Option{WithWebhookTimeout(2 * time.Minute)}, opts...)...)
}

func mustEndpoint(t *testing.T, srv *Server, ws string, spec WebhookEndpointSpec) WebhookEndpoint {
	t.Helper()
	ep, err := srv.CreateWebhookEndpoint(context.Background(), ws, spec)
	if err != nil {
		t.Fatalf("create endpoint: %v", err)
	}
	return ep
}

func mustAdvance(t *testing.T, srv *Server, d time.Duration) {
	t.Helper()
	if _, err := srv.Advance(d); err != nil {
		t.Fatal(err)
	}
}

func deliveriesOf(t *testing.T, srv *Server, endpointID string) []WebhookDelivery {
	t.Helper()
	ds, err := srv.WebhookDeliveries(endpointID)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// verify checks a received request against the endpoint's secret with the Standard Webhooks
// library (its timestamp is the fake clock's, checked by the caller) and the fixed headers.
func verify(t *testing.T, secret string, r received) time.Time {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.VerifyIgnoringTimestamp(r.body, r.header); err != nil {
		t.Fatalf("signature: %v", err)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("content-type %q", ct)
	}
	if ua := r.header.Get("User-Agent"); !strings.HasPrefix(ua, "Service/1.0") {
		t.Fatalf("user-agent %q", ua)
	}
	sec, err := strconv.ParseInt(r.header.Get("webhook-timestamp"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return time.Unix(sec, 0).UTC()
}

// TestDeliveryLadder: a receiver that always answers 500 gets ten attempts over about 28 hours of
// fake time, each on the first five-minute sweep at or after its due time; the webhook-id and
// body never change, the timestamp is each attempt's own; then the delivery is abandoned. The
// ladder runs on the fake clock (on the real one it would take 28 hours); its wall time is
// BenchmarkDeliveryLadder's.
func TestDeliveryLadder(t *testing.T) {
	t.Parallel()
	srv, seed := newHookTest(t)
	rc := newReceiver(t, http.StatusInternalServerError)
	ep := mustEndpoint(t, srv, seed.WorkspaceID, WebhookEndpointSpec{URL: rc.srv.URL + "/hook", Events: []string{"report.completed"}})
	mustAdvance(t, srv, time.Minute) // off the sweep grid, so that retries land late
	first := srv.Now()
	d, err := srv.SendTestEvent(context.Background(), ep.ID)
	if err != nil || d.Status != "retrying" || d.Attempts != 1 || *d.ResponseCode != 500 || *d.LastError != "HTTP 500" {
		t.Fatalf("first attempt: %+v %v", d, err)
	}
	mustAdvance(t, srv, 30*time.Hour)

	got := rc.requests()
	if len(got) != core.MaxDeliveryAttempts {
		t.Fatalf("%d attempts, want %d", len(got), core.MaxDeliveryAttempts)
	}
	want := first
	for i, r := range got {
		at := verify(t, ep.Secret, r)
		if i > 0 {
			want = core.NextRetrySweep(want.Add(core.RetryDelay(i)))
		}
		if !at.Equal(want.Truncate(time.Second)) {
			t.Errorf("attempt %d at %v, want %v", i+1, at, want)
		}
		if r.header.Get("webhook-id") != d.WebhookID || string(r.body) != string(got[0].body) {
			t.Errorf("attempt %d changed the id or the body", i+1)
		}
	}
	span := want.Sub(first)
	if span < 28*time.Hour || span > 29*time.Hour {
		t.Errorf("the ladder spans %v", span)
	}
	ds := deliveriesOf(t, srv, ep.ID)
	if len(ds) != 1 || ds[0].Status != "abandoned" || ds[0].Attempts != 10 || ds[0].FailedAttempts != 10 || !ds[0].NextAttemptAt.IsZero() {
		t.Fatalf("log: %+v", ds)
	}
}

// TestDeliveryOutcomes: what one attempt records for each kind of receiver, and that only a 2xx
// is a success.
func TestDeliveryOutcomes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		status    int
		hang      bool
		refused   bool
		want      string
		wantCode  int
		wantError string
	}{
		{"200", 200, false, false, "succeeded", 200, ""},
		{"204", 204, false, false, "succeeded", 204, ""},
		{"500", 500, false, false, "retrying", 500, "HTTP 500"},
		{"404", 404, false, false, "retrying", 404, "HTTP 404"},
		{"302 is not followed", 302, false, false, "retrying", 302, "HTTP 302: redirects are not followed"},
		{"hangs past the budget", 200, true, false, "retrying", 0, "timeout: no answer within 200ms"},
		{"refuses connections", 0, false, true, "retrying", 0, "connection error: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			budget := 2 * time.Minute // wall time: a watchdog for the receivers that answer
			if tt.hang {
				budget = 200 * time.Millisecond // the one case that waits out the budget
			}
			srv, seed := newHookTest(t, WithWebhookTimeout(budget))
			url := refusedURL(t)
			var rc *receiver
			if !tt.refused {
				rc = newReceiver(t, tt.status)
				rc.set(tt.status, tt.hang)
				url = rc.srv.URL + "/hook"
			}
			ep := mustEndpoint(t, srv, seed.WorkspaceID, WebhookEndpointSpec{URL: url, Events: []string{"report.completed"}})
			d, err := srv.SendTestEvent(context.Background(), ep.ID)
			if err != nil {
				t.Fatal(err)
			}
			code := 0
			if d.ResponseCode != nil {
				code = *d.ResponseCode
			}
			lastErr := ""
			if d.LastError != nil {
				lastErr = *d.LastError
			}
			if d.Status != tt.want || code != tt.wantCode || !strings.HasPrefix(lastErr, tt.wantError) || (tt.wantError == "") != (lastErr == "") {
				t.Fatalf("%s code %d error %q", d.Status, code, lastErr)
			}
			wantFailed := 1
			if tt.want == "succeeded" {
				wantFailed = 0
			}
			if d.Attempts != 1 || d.FailedAttempts != wantFailed {
				t.Fatalf("attempts %d failed %d", d.Attempts, d.FailedAttempts)
			}
			if rc != nil {
				got := rc.requests()
				if len(got) != 1 {
					t.Fatalf("%d requests", len(got))
				}
				if at := verify(t, ep.Secret, got[0]); !at.Equal(srv.Now()) {
					t.Fatalf("timestamp %v, want the fake's %v", at, srv.Now())
				}
				var body struct {
					Type string `json:"type"`
					Test *bool  `json:"test"`
				}
				if json.Unmarshal(got[0].body, &body) != nil || body.Type != "report.completed" || body.Test == nil || !*body.Test {
					t.Fatalf("test event body %s", got[0].body)
				}
			}
		})
	}
}

// staticResolver maps names to addresses for the fake's URL checks and connections.
type staticResolver map[string]string

func (r staticResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	a, ok := r[host]
	if !ok {
		return nil, fmt.Errorf("lookup %s: no such host", host)
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

// TestResolverIsUsedForDelivery: with private URLs allowed, a name the injected resolver maps
// to loopback reaches the local receiver; without, the same name is refused at subscription.
func TestResolverIsUsedForDelivery(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, 200)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(rc.srv.URL, "http://"))
	res := staticResolver{"receiver.test": "127.0.0.1"}
	url := "http://receiver.test:" + port + "/hook"

	srv, seed := newHookTest(t, WithResolver(res))
	ep := mustEndpoint(t, srv, seed.WorkspaceID, WebhookEndpointSpec{URL: url, Events: []string{"report.completed"}})
	if d, err := srv.SendTestEvent(context.Background(), ep.ID); err != nil || d.Status != "succeeded" {
		t.Fatalf("%+v %v", d, err)
	}

	strict, seed2 := NewTest(t, WithPrivateURLs(false), WithResolver(res))
	if _, err := strict.CreateWebhookEndpoint(context.Background(), seed2.WorkspaceID, WebhookEndpointSpec{URL: url, Events: []string{"report.completed"}}); err == nil || !strings.Contains(err.Error(), "Invalid webhook URL") {
		t.Fatalf("a name resolving to loopback was accepted: %v", err)
	}
}

// TestRealClockDeliveryBlocksNothing: on the real clock a delivery runs apart from the clock
// and the API: while a receiver holds the first attempt open, the report it is about reads as
// COMPLETE and the control API answers.
func TestRealClockDeliveryBlocksNothing(t *testing.T) {
	t.Parallel()
	srv, err := New(WithAnalysisPace(0), WithPrivateURLs(true), WithWebhookTimeout(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	seed, err := srv.SeedDemo()
	if err != nil {
		t.Fatal(err)
	}
	arrived, release := make(chan []byte, 1), make(chan struct{})
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 1<<16)
		n, _ := r.Body.Read(b)
		arrived <- b[:n]
		<-release
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)
	t.Cleanup(func() { close(release) })
	mustEndpoint(t, srv, seed.WorkspaceID, WebhookEndpointSpec{URL: receiver.URL + "/hook", Events: []string{"report.completed"}})
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Real", Episodes: []HostedEpisode{{Title: "One", Duration: 1 * time.Second, Format: "wav"}}})
	if err != nil {
		t.Fatal(err)
	}
	id := reportOn(t, srv, seed.APIKey, feed.FeedURL, 0)
	select {
	case body := <-arrived:
		if !strings.Contains(string(body), id) {
			t.Fatalf("delivery %s", body)
		}
	case <-time.After(2 * time.Minute): // a watchdog that turns a hang into a failure, never a bound
		t.Fatal("no delivery on the real clock")
	}
	// The receiver is still holding the attempt.
	if r := getReport(t, srv, seed.APIKey, id); r.Status != "COMPLETE" {
		t.Fatalf("report %s", r.Status)
	}
	if ds := deliveriesOf(t, srv, ""); len(ds) != 1 || ds[0].Attempts != 0 {
		t.Fatalf("log while in flight: %+v", ds)
	}
}
