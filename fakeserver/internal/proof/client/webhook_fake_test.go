package clientproof_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/fakeserver/clienttest"
)

// tableResolver resolves the test's names without the network.
type tableResolver map[string]string

func (r tableResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	a, ok := r[host]
	if !ok {
		return nil, fmt.Errorf("lookup %s: no such host", host)
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

// TestWebhookSubscriptionAgainstTheFake: SubscribeWebhook creates an endpoint whose secret
// verifies the fake's signed delivery of a real report.completed; UnsubscribeWebhook deletes
// it, and a second delete is ErrNotFound.
func TestWebhookSubscriptionAgainstTheFake(t *testing.T) {
	t.Parallel()
	srv, seed := fakeserver.NewTest(t) // NewTest accepts the loopback receiver
	ctx := context.Background()
	c := clienttest.NewClient(t, srv, seed.APIKey)
	var mu sync.Mutex
	var got []*http.Request
	var bodies [][]byte
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, bodies = append(got, r), append(bodies, b)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)

	// WAV: the subscription does not depend on the codec, and an MP3 costs an encode and a
	// true-peak calibration under -race.
	feed, err := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "Hooked", Episodes: []fakeserver.HostedEpisode{{Title: "One", Duration: 2 * time.Second, Format: "wav"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateReportFromFeed(ctx, feed.FeedURL, client.CreateReportParams{}); err != nil {
		t.Fatal(err)
	}
	series, err := c.ListSeries(ctx, client.ListParams{})
	if err != nil || len(series.Items) != 1 {
		t.Fatalf("series: %+v %v", series, err)
	}
	sub, err := c.SubscribeWebhook(ctx, client.WebhookSubscribeParams{
		URL: receiver.URL + "/podqa", Events: []client.WebhookEvent{client.EventReportCompleted}, SeriesID: series.Items[0].ID,
	})
	if err != nil || len(sub.ID) != 36 || !strings.HasPrefix(sub.Secret, "whsec_") {
		t.Fatalf("subscribe: %+v %v", sub, err)
	}
	if _, err := srv.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(got) != 1 {
		mu.Unlock()
		t.Fatalf("%d deliveries", len(got))
	}
	req, body := got[0], bodies[0]
	mu.Unlock()
	wh, err := standardwebhooks.NewWebhook(sub.Secret)
	if err != nil {
		t.Fatal(err)
	}
	// The timestamp is the fake clock's, so only the signature is checked here.
	if err := wh.VerifyIgnoringTimestamp(body, req.Header); err != nil || !strings.Contains(string(body), `"type":"report.completed"`) {
		t.Fatalf("delivery %s: %v", body, err)
	}

	if err := c.UnsubscribeWebhook(ctx, sub.ID); err != nil {
		t.Fatalf("unsubscribe: %v", err)
	}
	err = c.UnsubscribeWebhook(ctx, sub.ID)
	var ae *client.APIError
	if !errors.Is(err, client.ErrNotFound) || !errors.As(err, &ae) || ae.StatusCode != 404 || ae.Message != "Not found" {
		t.Fatalf("second unsubscribe: %#v", err)
	}
}

// TestWebhookSubscriptionErrorsFromTheFake: the fake's flat {error: string} answers come out of
// the client as *client.APIError with the code their status stands for and the text as
// Message.
func TestWebhookSubscriptionErrorsFromTheFake(t *testing.T) {
	t.Parallel()
	srv, seed := fakeserver.NewTest(t, fakeserver.WithPrivateURLs(false), fakeserver.WithResolver(tableResolver{"hooks.example.com": "93.184.216.34", "intranet.example": "10.0.0.8"}))
	ctx := context.Background()
	c := clienttest.NewClient(t, srv, seed.APIKey)
	ok := []client.WebhookEvent{client.EventReportFailed}
	tests := []struct {
		name     string
		params   client.WebhookSubscribeParams
		sentinel error
		status   int
		code     client.ErrorCode
		message  string
	}{
		{"no url", client.WebhookSubscribeParams{Events: ok}, client.ErrValidation, 400, client.CodeValidationError, "A url is required"},
		{"no events", client.WebhookSubscribeParams{URL: "https://hooks.example.com/p"}, client.ErrValidation, 400, client.CodeValidationError, "An events list is required"},
		{"unknown event", client.WebhookSubscribeParams{URL: "https://hooks.example.com/p", Events: []client.WebhookEvent{"report.exploded"}}, client.ErrValidation, 400, client.CodeValidationError, "Unknown webhook event: report.exploded"},
		{"unknown series", client.WebhookSubscribeParams{URL: "https://hooks.example.com/p", Events: ok, SeriesID: "0b0e3c4e-0000-4000-8000-000000000000"}, client.ErrValidation, 400, client.CodeValidationError, "Series not found"},
		{"private URL", client.WebhookSubscribeParams{URL: "https://intranet.example/p", Events: ok}, client.ErrValidation, 400, client.CodeValidationError, "Invalid webhook URL: intranet.example resolves to 10.0.0.8, an internal address; the fake accepts loopback and private addresses when started with -allow-private-urls (in Go: fakeserver.WithPrivateURLs(true))"},
		{"not http", client.WebhookSubscribeParams{URL: "ftp://hooks.example.com/p", Events: ok}, client.ErrValidation, 400, client.CodeValidationError, "Invalid webhook URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.SubscribeWebhook(ctx, tt.params)
			var ae *client.APIError
			if !errors.As(err, &ae) || !errors.Is(err, tt.sentinel) || ae.StatusCode != tt.status || ae.Code != tt.code || ae.Message != tt.message {
				t.Fatalf("err = %#v", err)
			}
		})
	}
	for range 5 {
		if _, err := c.SubscribeWebhook(ctx, client.WebhookSubscribeParams{URL: "https://hooks.example.com/p", Events: ok}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.SubscribeWebhook(ctx, client.WebhookSubscribeParams{URL: "https://hooks.example.com/p", Events: ok})
	var ae *client.APIError
	if !errors.Is(err, client.ErrConflict) || !errors.As(err, &ae) || ae.Code != client.CodeConflict || ae.Message != "Webhook limit reached (5 per workspace)" {
		t.Fatalf("sixth: %#v", err)
	}
	bad := clienttest.NewClient(t, srv, "podqa_api_unknown")
	_, err = bad.SubscribeWebhook(ctx, client.WebhookSubscribeParams{URL: "https://hooks.example.com/p", Events: ok})
	if !errors.Is(err, client.ErrInvalidAPIKey) || !errors.As(err, &ae) || ae.Message != "Invalid or missing API key." {
		t.Fatalf("unknown key: %#v", err)
	}
	if err := c.UnsubscribeWebhook(ctx, "0b0e3c4e-0000-4000-8000-000000000000"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
}
