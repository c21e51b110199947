package core

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
	"github.com/podqa/podqa-go/fakeserver/internal/seeded"
	"github.com/podqa/podqa-go/fakeserver/internal/webhooks/wire"
)

// stallAnalysis makes deps' measurements wait: entered closes when one starts, and it goes on
// once release is closed (or its context ends).
func stallAnalysis(deps *Deps) (entered, release chan struct{}) {
	measureOne := deps.Analyze
	entered, release = make(chan struct{}), make(chan struct{})
	deps.Analyze = func(ctx context.Context, r io.Reader, name string) (Measurement, error) {
		close(entered)
		select {
		case <-release:
		case <-ctx.Done():
			return Measurement{}, ctx.Err()
		}
		return measureOne(ctx, r, name)
	}
	return entered, release
}

// stalledReport is a core on the real clock with one report from a feed whose measurement has
// started and waits until release is closed.
func stalledReport(t *testing.T) (clk *clock.Clock, c *Core, p Principal, r Report, release chan struct{}) {
	t.Helper()
	clk = clock.NewReal()
	t.Cleanup(clk.Close)
	w := newWorld()
	deps := w.deps(0)
	entered, release := stallAnalysis(&deps)
	c = New(clk, deps)
	ws := mustWorkspace(t, c, Personal, "Ada")
	_, key := mustKey(t, c, ws.ID, false)
	p, err := c.Authenticate(key)
	if err != nil {
		t.Fatal(err)
	}
	r, err = c.CreateReportFromFeed(t.Context(), p, FromFeed{FeedURL: "http://feeds.test/show.rss"})
	if err != nil {
		t.Fatal(err)
	}
	<-entered // the measurement has started
	return clk, c, p, r, release
}

// TestResetDropsAMeasurementInFlight: on the real clock a measurement runs off the clock; a
// reset while it runs keeps what it finds out of the new state (no measurement recorded, no
// completion scheduled), and a workspace made after the reset is untouched.
func TestResetDropsAMeasurementInFlight(t *testing.T) {
	t.Parallel()
	clk, c, _, r, release := stalledReport(t)

	c.Reset(time.Time{})
	after := mustWorkspace(t, c, Personal, "Grace")
	close(release)
	c.Close() // waits for the measurement to return and record (or not)

	if n := clk.Pending(); n != 0 {
		t.Fatalf("%d tasks scheduled after the reset: the old measurement scheduled its completion", n)
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if len(c.reports) != 0 || len(c.workspaces) != 1 || c.workspaces[after.ID] == nil {
		t.Fatalf("after reset: %d reports, %d workspaces", len(c.reports), len(c.workspaces))
	}
	if r.Measurement != nil {
		t.Fatal("the copy returned before the reset changed")
	}
}

// TestResetDropsADeliveryInFlight: a webhook attempt on the wire when the fake resets records
// nothing on return, even into an endpoint of the new state with the same id (as a seeded
// fake makes again).
func TestResetDropsADeliveryInFlight(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(start)
	t.Cleanup(clk.Close)
	w := newWorld()
	deps := w.deps(0)
	deps.Rand = seeded.New(1)
	c := New(clk, deps)
	t.Cleanup(c.Close)
	sent, release := make(chan struct{}), make(chan struct{})
	c.ConfigureWebhooks(WebhookConfig{AppURL: "http://app.test", Send: func(ctx context.Context, attempts []wire.Attempt) []wire.Outcome {
		close(sent)
		<-release
		return []wire.Outcome{{StatusCode: 500, Err: "HTTP 500"}}
	}})
	state := deps.Rand.Save()
	makeEndpoint := func() Endpoint {
		ws := mustWorkspace(t, c, Personal, "Ada")
		ep, _, err := c.CreateEndpoint(ws.ID, NewEndpoint{URL: "http://hooks.test/", Events: []string{EventReportCompleted}}, false)
		if err != nil {
			t.Fatal(err)
		}
		return ep
	}
	old := makeEndpoint()
	done := make(chan error, 1)
	go func() { _, err := c.SendTestEvent(t.Context(), old.ID); done <- err }()
	<-sent

	c.Reset(start)
	if err := deps.Rand.Restore(state); err != nil {
		t.Fatal(err)
	}
	if again := makeEndpoint(); again.ID != old.ID {
		t.Fatalf("the seeded source made %s, not %s again", again.ID, old.ID)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, err := c.Deliveries(&old.ID); err != nil || len(got) != 0 {
		t.Fatalf("the new endpoint's deliveries: %+v %v", got, err)
	}
	if n := clk.Pending(); n != 0 {
		t.Fatalf("%d tasks scheduled: the old attempt scheduled a retry sweep", n)
	}
}
