package clienttest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/fakeserver/clienttest"
)

// WaitForReport on the fake's clock: the pauses move the fake's time, so the report the fake
// analyses on that clock completes while nothing sleeps (on the wall clock it would stay
// pending, the fake's time standing still).
func TestWaitForReportMovesTheFakesClock(t *testing.T) {
	t.Parallel()
	srv, c := clienttest.New(t, fakeserver.WithAnalysisPace(time.Hour))
	feed, err := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "Show", Episodes: []fakeserver.HostedEpisode{{Title: "One", Duration: 60 * time.Second, Channels: 1, SampleRate: 8000}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	created, err := c.CreateReportFromFeed(ctx, feed.FeedURL, client.CreateReportParams{})
	if err != nil {
		t.Fatal(err)
	}
	start := srv.Now()
	var polls int
	r, err := c.WaitForReport(ctx, created.ID, client.WaitProgress(func(*client.Report) { polls++ }))
	if err != nil || r.Status != client.StatusComplete {
		t.Fatalf("WaitForReport = %+v, %v", r, err)
	}
	if moved := srv.Now().Sub(start); moved < time.Minute || polls < 2 {
		t.Errorf("the fake moved %v over %d polls; an hour-paced analysis of 60 s needs at least a minute", moved, polls)
	}
}

func TestNewClientOptions(t *testing.T) {
	t.Parallel()
	srv, seed := fakeserver.NewTest(t)
	clk := client.NewManualClock(fakeserver.TestStart())
	tests := []struct {
		name      string
		opts      []client.Option
		wantClock client.Clock
	}{
		{"the fake's clock by default", nil, srv.Clock()},
		{"an option overrides it", []client.Option{client.WithClock(clk)}, clk},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := clienttest.NewClient(t, srv, seed.APIKey, tt.opts...)
			if c.Clock() != tt.wantClock || c.BaseURL() != srv.URL() {
				t.Errorf("clock %v base %s, want %v %s", c.Clock(), c.BaseURL(), tt.wantClock, srv.URL())
			}
			if _, err := c.Me(context.Background()); err != nil {
				t.Errorf("Me: %v", err)
			}
		})
	}
}

func TestManualClock(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	clk := client.NewManualClock(start)
	if err := clk.Sleep(context.Background(), 90*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := clk.Sleep(context.Background(), -time.Hour); err != nil || !clk.Now().Equal(start.Add(90*time.Second)) {
		t.Errorf("a negative sleep: %v, clock at %v", err, clk.Now())
	}
	if got := clk.Advance(-time.Hour); !got.Equal(start.Add(90*time.Second - time.Hour)) {
		t.Errorf("stepping back an hour: %v", got)
	}
	clk.Advance(time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := clk.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) || !clk.Now().Equal(start.Add(90*time.Second)) {
		t.Errorf("sleep on an ended context: %v, clock at %v", err, clk.Now())
	}
}

// A test of code that submits a feed and waits for its report: the wait moves the fake's clock,
// so the test takes no wall time.
func ExampleNew() {
	testReleaseGate := func(t *testing.T) {
		srv, c := clienttest.New(t)
		feed, err := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "Show", Episodes: []fakeserver.HostedEpisode{{Title: "One", Duration: 30 * time.Second}}})
		if err != nil {
			t.Fatal(err)
		}
		created, err := c.CreateReportFromFeed(context.Background(), feed.FeedURL, client.CreateReportParams{})
		if err != nil {
			t.Fatal(err)
		}
		report, err := c.WaitForReport(context.Background(), created.ID) // returns at once
		if err != nil || !report.Passed() {
			t.Fatalf("report %+v, %v", report, err)
		}
	}
	_ = testReleaseGate // run by go test as func TestReleaseGate(t *testing.T)
}

// A clock for tests without a fake, such as a webhook verifier checking a recorded delivery at
// the time it was sent: it moves only when told.
func ExampleNewManualClock() {
	sent := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	clk := client.NewManualClock(sent)
	clk.Advance(90 * time.Second)
	_ = clk.Sleep(context.Background(), 30*time.Second) // moves the clock, sleeps nothing
	fmt.Println(clk.Now().Sub(sent))
	// Output: 2m0s
}
