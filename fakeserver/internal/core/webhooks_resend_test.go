package core

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
	"github.com/podqa/podqa-go/fakeserver/internal/webhooks"
)

// resendCore is a core on a manual clock delivering to a receiver that answers status (a
// long body naming the attempt) and counts its hits.
func resendCore(t *testing.T) (*Core, *clock.Clock, Endpoint, *atomic.Int64, *atomic.Int64) {
	t.Helper()
	var status, hits atomic.Int64
	status.Store(http.StatusInternalServerError)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(int(status.Load()))
		_, _ = w.Write([]byte("receiver says " + strings.Repeat("no ", 2000)))
	}))
	t.Cleanup(rc.Close)
	clk := clock.NewManual(start)
	c := New(clk, Deps{})
	sender := webhooks.NewSender(webhooks.Policy{AllowPrivate: true}, time.Second)
	t.Cleanup(sender.Close)
	c.ConfigureWebhooks(WebhookConfig{AppURL: "https://app.example", Send: sender.SendAll})
	ws, err := c.CreateWorkspace(NewWorkspace{Type: Personal, Name: "Resend"})
	if err != nil {
		t.Fatal(err)
	}
	ep, _, err := c.CreateEndpoint(ws.ID, NewEndpoint{URL: rc.URL + "/h", Events: []string{EventReportFailed}}, false)
	if err != nil {
		t.Fatal(err)
	}
	raise(c, ws, 1)
	return c, clk, ep, &status, &hits
}

func onlyDelivery(t *testing.T, c *Core, ep Endpoint) Delivery {
	t.Helper()
	ds, err := c.Deliveries(&ep.ID)
	if err != nil || len(ds) != 1 {
		t.Fatalf("deliveries %v, %v", ds, err)
	}
	return ds[0]
}

// TestResendMakesAnAttemptOffTheLadder: a resend of a retrying delivery makes one attempt now
// (same webhook-id, the headers and the first 2 KiB of the answer recorded), leaves the queued
// retry where it was, and the ladder's next gap is the one it would have been; a successful
// resend ends the delivery and drops its retry.
func TestResendMakesAnAttemptOffTheLadder(t *testing.T) {
	t.Parallel()
	c, clk, ep, status, hits := resendCore(t)
	// A queued first attempt cannot be resent yet.
	d := onlyDelivery(t, c, ep)
	if _, err := c.ResendDelivery(context.Background(), d.ID); !isCode(err, CodeConflict) {
		t.Fatalf("resend of a queued delivery: %v", err)
	}
	clk.RunDue()
	d = onlyDelivery(t, c, ep)
	if d.Status != DeliveryRetrying || d.Attempts != 1 || hits.Load() != 1 {
		t.Fatalf("after the first attempt: %s, %d attempts, %d hits", d.Status, d.Attempts, hits.Load())
	}
	next := *d.NextAttemptAt
	if len(d.Answer) != webhooks.MaxAnswerKept || !d.AnswerCut || !strings.HasPrefix(string(d.Answer), "receiver says") {
		t.Fatalf("answer kept %d bytes (cut %v)", len(d.Answer), d.AnswerCut)
	}
	if len(d.Sent) != 5 || d.Sent[2].Name != "webhook-id" || d.Sent[2].Value != d.MessageID {
		t.Fatalf("headers kept %v", d.Sent)
	}

	// A failed resend: one more attempt, still retrying on the same schedule.
	clk.Advance(time.Minute)
	got, err := c.ResendDelivery(context.Background(), d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if hits.Load() != 2 || got.Attempts != 2 || got.Resends != 1 || got.Status != DeliveryRetrying || !got.NextAttemptAt.Equal(next) {
		t.Fatalf("after a failed resend: %d hits, %s after %d attempts (%d resent), next %v", hits.Load(), got.Status, got.Attempts, got.Resends, got.NextAttemptAt)
	}
	if got.Sent[3].Value == d.Sent[3].Value {
		t.Fatal("the resend's webhook-timestamp is the first attempt's")
	}
	// The queued retry goes at its time, and the gap after it is the ladder's second.
	clk.Advance(next.Sub(clk.Now()) + RetrySweepInterval)
	d = onlyDelivery(t, c, ep)
	if hits.Load() != 3 || d.Attempts != 3 || d.Status != DeliveryRetrying {
		t.Fatalf("after the retry: %d hits, %s after %d attempts", hits.Load(), d.Status, d.Attempts)
	}
	if gap := d.NextAttemptAt.Sub(*d.LastAttemptAt); gap != RetryDelay(2) {
		t.Fatalf("the gap after the second ladder attempt is %s, want %s", gap, RetryDelay(2))
	}

	// A successful resend ends it: no retry goes afterwards.
	status.Store(http.StatusOK)
	got, err = c.ResendDelivery(context.Background(), d.ID)
	if err != nil || got.Status != DeliverySucceeded || got.NextAttemptAt != nil || got.LastError != nil || got.Resends != 2 {
		t.Fatalf("after a good resend: %s, next %v, error %v, %d resent: %v", got.Status, got.NextAttemptAt, got.LastError, got.Resends, err)
	}
	clk.Advance(48 * time.Hour)
	if hits.Load() != 4 {
		t.Fatalf("%d hits after the delivery succeeded, want 4", hits.Load())
	}
	// A succeeded delivery can be resent; a failure then leaves it abandoned, with no retry.
	status.Store(http.StatusBadGateway)
	got, err = c.ResendDelivery(context.Background(), d.ID)
	if err != nil || got.Status != DeliveryAbandoned || got.NextAttemptAt != nil || got.Attempts != 5 {
		t.Fatalf("after a failed resend of a succeeded delivery: %s, next %v, %d attempts: %v", got.Status, got.NextAttemptAt, got.Attempts, err)
	}
	clk.Advance(48 * time.Hour)
	if hits.Load() != 5 {
		t.Fatalf("%d hits, want 5", hits.Load())
	}
}

// TestResendRefusals: an unknown delivery is 404 and a disabled endpoint's 409; neither makes
// an attempt or changes the delivery.
func TestResendRefusals(t *testing.T) {
	t.Parallel()
	c, clk, ep, _, hits := resendCore(t)
	clk.RunDue()
	before := onlyDelivery(t, c, ep)
	if _, err := c.ResendDelivery(context.Background(), uuid.New()); !isCode(err, CodeNotFound) {
		t.Fatalf("unknown delivery: %v", err)
	}
	if _, err := c.SetEndpointEnabled(ep.ID, false); err != nil {
		t.Fatal(err)
	}
	_, err := c.ResendDelivery(context.Background(), before.ID)
	if !isCode(err, CodeConflict) || !strings.Contains(err.Error(), "disabled") {
		t.Fatalf("disabled endpoint: %v", err)
	}
	after := onlyDelivery(t, c, ep)
	if hits.Load() != 1 || after.Attempts != before.Attempts || after.Status != before.Status {
		t.Fatalf("a refused resend changed something: %d hits, %s after %d attempts", hits.Load(), after.Status, after.Attempts)
	}
}

func isCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}
