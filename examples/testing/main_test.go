package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/fakeserver/clienttest"
	"github.com/podqa/podqa-go/webhook"
)

// newGate starts a fake of the service on a manual clock, with a seeded workspace and key, and a
// gate whose client talks to it on the fake's clock (clienttest). The fake is closed when the
// test ends.
func newGate(t *testing.T) (*fakeserver.Server, gate) {
	t.Helper()
	srv, c := clienttest.New(t)
	return srv, gate{c: c}
}

func TestGateJudgesHostedEpisodes(t *testing.T) {
	t.Parallel()
	loud, quiet := -16.0, -30.0
	tests := []struct {
		name     string
		loudness *float64
		passes   bool
		printed  string
	}{
		{name: "on target", loudness: &loud, passes: true, printed: "Episode 1: PASSED"},
		{name: "far too quiet", loudness: &quiet, passes: false, printed: "loudness_lufs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, g := newGate(t)
			// The fake hosts the feed and synthesises audio that measures at the loudness asked for.
			feed, err := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "My Show", Episodes: []fakeserver.HostedEpisode{
				{Title: "Episode 1", Duration: 3 * time.Second, LoudnessLUFS: tt.loudness},
			}})
			if err != nil {
				t.Fatal(err)
			}
			// The gate waits for the report on the fake's clock: its pauses move the fake's
			// time, so the analysis finishes while nothing sleeps.
			start := srv.Now()
			var out bytes.Buffer
			got, err := g.run(context.Background(), &out, feed.FeedURL)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.passes {
				t.Errorf("run = %v, want %v; printed:\n%s", got, tt.passes, out.String())
			}
			if !srv.Now().After(start) {
				t.Error("the wait did not move the fake's clock")
			}
			if !strings.Contains(out.String(), tt.printed) {
				t.Errorf("printed %q, want it to mention %q", out.String(), tt.printed)
			}
		})
	}
}

// The service's front sometimes answers 503 before the API sees a request; nothing was created,
// so the client retries on its own. Fault injection shows the gate survives it.
func TestGateSurvivesA503FromTheFront(t *testing.T) {
	t.Parallel()
	srv, g := newGate(t)
	feed, err := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "My Show", Episodes: []fakeserver.HostedEpisode{
		{Title: "Episode 1", Duration: 3 * time.Second},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.InjectFault(fakeserver.Fault{Method: "POST", PathPrefix: "/api/rest/v1/reports", Status: 503, Count: 1}); err != nil {
		t.Fatal(err)
	}
	passed, err := g.run(context.Background(), &bytes.Buffer{}, feed.FeedURL)
	if err != nil || !passed {
		t.Fatalf("run after one 503: %v, %v", passed, err)
	}
}

// A 500 from the API itself may have created the report, so the client returns it instead of
// repeating the POST; the gate reports the failure.
func TestGateReportsA500(t *testing.T) {
	t.Parallel()
	srv, g := newGate(t)
	if _, err := srv.InjectFault(fakeserver.Fault{Method: "POST", PathPrefix: "/api/rest/v1/reports", Status: 500, Count: 1}); err != nil {
		t.Fatal(err)
	}
	_, err := g.submit(context.Background(), srv.URL()+"/_feeds/none/feed.rss")
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 || apiErr.Code != client.CodeInternalError {
		t.Fatalf("submit = %v, want the 500 internal_error", err)
	}
}

// The fake delivers signed webhooks on its clock. A receiver built with webhook.NewHandler verifies
// them against the fake's clock (its deliveries are stamped with fake time), and the fake's
// delivery log shows what was sent, retried and answered.
func TestReportCompletionIsDeliveredByWebhook(t *testing.T) {
	t.Parallel()
	// Loopback receivers need private webhook URLs allowed, as in CI.
	srv, seed := fakeserver.NewTest(t, fakeserver.WithPrivateURLs(true))
	g := gate{c: clienttest.NewClient(t, srv, seed.APIKey)}

	var mu sync.Mutex
	var received []webhook.Event
	failFirst := true // the receiver answers 500 once, so the fake retries
	var verified http.Handler
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fail, h := failFirst, verified
		failFirst = false
		mu.Unlock()
		if fail {
			http.Error(w, "not now", http.StatusInternalServerError)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer receiver.Close()

	// An endpoint as a person would add it in Settings; its secret is shown once.
	ep, err := srv.CreateWebhookEndpoint(context.Background(), seed.WorkspaceID, fakeserver.WebhookEndpointSpec{
		URL: receiver.URL, Events: []string{"report.completed"},
	})
	if err != nil {
		t.Fatal(err)
	}
	h, err := webhook.NewHandler(ep.Secret, func(ctx context.Context, e webhook.Event) error {
		mu.Lock()
		defer mu.Unlock()
		received = append(received, e)
		return nil
	}, webhook.WithVerifierOptions(webhook.WithClock(srv.Clock()))) // the fake's time, not the wall's
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	verified = h
	mu.Unlock()

	feed, err := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "My Show", Episodes: []fakeserver.HostedEpisode{{Title: "Episode 1", Duration: 3 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	id, err := g.submit(context.Background(), feed.FeedURL)
	if err != nil {
		t.Fatal(err)
	}
	// The report completes within a minute of fake time; the first delivery gets the 500.
	if _, err := srv.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := len(received)
	mu.Unlock()
	if got != 0 {
		t.Fatalf("%d events received before the retry", got)
	}
	// The retry comes about 10 minutes later, sent by the five-minute sweep.
	if _, err := srv.Advance(20 * time.Minute); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(received) != 1 || received[0].Type != "report.completed" || received[0].Report.ID != id ||
		received[0].Report.Passed == nil || !*received[0].Report.Passed {
		t.Fatalf("received %+v, want one report.completed for %s that passed", received, id)
	}
	log, err := srv.WebhookDeliveries(ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 || log[0].Status != "succeeded" || log[0].Attempts != 2 || log[0].FailedAttempts != 1 {
		t.Fatalf("delivery log %+v, want one delivery that succeeded on its second attempt", log)
	}
}
