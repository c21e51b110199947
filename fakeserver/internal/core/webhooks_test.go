package core

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
	"github.com/podqa/podqa-go/fakeserver/internal/webhooks"
)

// hookedCore is a core whose deliveries go over HTTP to a local receiver counting 2xx answers.
func hookedCore(tb testing.TB) (*Core, Workspace, *atomic.Int64, string) {
	tb.Helper()
	var hits atomic.Int64
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		hits.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	tb.Cleanup(rc.Close)
	c := New(clock.NewManual(start), Deps{})
	sender := webhooks.NewSender(webhooks.Policy{AllowPrivate: true}, time.Second)
	tb.Cleanup(sender.Close)
	c.ConfigureWebhooks(WebhookConfig{AppURL: "https://app.example", Send: sender.SendAll})
	ws, err := c.CreateWorkspace(NewWorkspace{Type: Personal, Name: "Hooks"})
	if err != nil {
		tb.Fatal(err)
	}
	return c, ws, &hits, rc.URL
}

func raise(c *Core, ws Workspace, n int) {
	c.mu.Lock()
	now := c.clock.Now()
	for range n {
		c.deliverLocked(ws.ID, nil, EventReportFailed, func() []byte {
			return []byte(EventReportFailed)
		}, now)
	}
	c.mu.Unlock()
}

// TestEventsFanOut: an event reaches every enabled endpoint that takes it, once, when the clock
// runs the dispatch; endpoints that take other events, are scoped to a series, or are disabled
// get nothing.
func TestEventsFanOut(t *testing.T) {
	t.Parallel()
	c, ws, hits, url := hookedCore(t)
	mk := func(events ...string) Endpoint {
		ep, _, err := c.CreateEndpoint(ws.ID, NewEndpoint{URL: url + "/h", Events: events}, false)
		if err != nil {
			t.Fatal(err)
		}
		return ep
	}
	mk(EventReportFailed)
	mk(EventReportFailed, EventReportCompleted)
	mk(EventReportCompleted)
	off := mk(EventReportFailed)
	if _, err := c.SetEndpointEnabled(off.ID, false); err != nil {
		t.Fatal(err)
	}
	raise(c, ws, 3)
	if hits.Load() != 0 {
		t.Fatal("sent before the clock ran")
	}
	c.clock.RunDue()
	if hits.Load() != 6 {
		t.Fatalf("%d deliveries, want 6", hits.Load())
	}
	if ds, _ := c.Deliveries(&off.ID); len(ds) != 0 {
		t.Fatalf("a disabled endpoint got %d", len(ds))
	}
}

// BenchmarkDeliverEvents measures the event path a report or feed event takes: queued under the
// core's lock, dispatched from the clock, signed, POSTed to a local receiver that answers at
// once, and recorded. Each iteration is one batch of 100 events to one endpoint.
func BenchmarkDeliverEvents(b *testing.B) {
	c, ws, hits, url := hookedCore(b)
	if _, _, err := c.CreateEndpoint(ws.ID, NewEndpoint{URL: url + "/h", Events: []string{EventReportFailed}}, false); err != nil {
		b.Fatal(err)
	}
	const batch = 100
	b.ReportAllocs()
	began := time.Now()
	for b.Loop() {
		raise(c, ws, batch)
		c.clock.RunDue()
	}
	elapsed := time.Since(began)
	if hits.Load() != int64(b.N*batch) {
		b.Fatalf("%d deliveries for %d events", hits.Load(), b.N*batch)
	}
	b.ReportMetric(float64(hits.Load())/elapsed.Seconds(), "events/s")
}
