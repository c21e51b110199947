package webhooktest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/podqa/podqa-go/webhook"
)

// TestStoreDown checks a store s whose server is unreachable: every call fails (for a
// Flusher, Complete or the Flush after it), and a Handler on s answers a valid delivery 500
// (so that the sender retries) without running the callback, and reports an error wrapping
// webhook.ErrDedupStore.
func TestStoreDown(t *testing.T, s webhook.DedupStore) {
	t.Helper()
	ctx := context.Background()
	if _, _, err := s.Claim(ctx, "msg", time.Minute); err == nil {
		t.Fatal("Claim succeeded with the server down")
	}
	err := s.Complete(ctx, "msg")
	if f, ok := s.(Flusher); ok && err == nil {
		err = f.Flush(ctx)
	}
	if err == nil {
		t.Fatal("Complete succeeded with the server down")
	}
	if err := s.Release(ctx, "msg", "tok"); err == nil {
		t.Fatal("Release succeeded with the server down")
	}
	handlerStoreDown(t, s)
}

// handlerStoreDown checks that a Handler on store, whose server is down, answers 500.
func handlerStoreDown(t *testing.T, store webhook.DedupStore) {
	t.Helper()
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	ran := false
	var hooked error
	h, err := webhook.NewHandler(secret, func(context.Context, webhook.Event) error { ran = true; return nil },
		webhook.WithDedupStore(store), webhook.WithErrorHook(func(_ *http.Request, _ int, err error) { hooked = err }))
	if err != nil {
		t.Fatal(err)
	}
	body := `{"type":"report.completed","timestamp":"2026-01-05T09:00:00.000000+00:00","data":{"report":{"id":"0b0f1a52-7a3e-4c1e-9d55-3f6b2a1c9e01","status":"COMPLETE"}}}`
	now := time.Now()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := wh.Sign("msg_down", now, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set(webhook.HeaderID, "msg_down")
	req.Header.Set(webhook.HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(webhook.HeaderSignature, sig)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusInternalServerError || ran || !errors.Is(hooked, webhook.ErrDedupStore) {
		t.Fatalf("store down: status %d %q, callback ran %v, hook %v; want 500, not run, ErrDedupStore", rec.Code, rec.Body, ran, hooked)
	}
	t.Logf("store down: %d %q; hook: %v", rec.Code, strings.TrimSpace(rec.Body.String()), hooked)
}
