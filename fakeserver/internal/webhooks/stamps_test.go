package webhooks

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/webhooks/wire"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// TestStampsAndSkewAdvice: webhook-timestamp is the attempt's fake instant or, with StampWall,
// the wall clock's, signed as sent (the reference library verifies it); a 4xx to an attempt
// stamped more than five minutes from the wall clock says so with the skew and the way out,
// and nothing else does.
func TestStampsAndSkewAdvice(t *testing.T) {
	t.Parallel()
	// The wall clock, fixed off a whole second so that the header's truncation shows.
	wall := time.Date(2026, 12, 2, 1, 0, 0, 500*int(time.Millisecond), time.UTC)
	tests := []struct {
		name     string
		stamping Stamping
		fakeAt   time.Duration // the fake's instant of the attempt, from wall
		status   int
		wantWall bool   // the header carries the wall clock, not the fake's
		wantErr  string // the whole last error; "" for a success
	}{
		{"fake clock an hour ahead, 401", StampFake, time.Hour, 401, false,
			"HTTP 401; webhook-timestamp (the fake's clock) was 1h0m0s ahead of the wall clock, past the 5m0s a Standard Webhooks receiver allows; " +
				"stamp with the wall clock (-webhook-clock wall; Go: WithWebhookClock(fakeserver.WebhookClockWall)) or verify on the fake's clock"},
		{"fake clock a day behind, 400", StampFake, -24 * time.Hour, 400, false,
			"HTTP 400; webhook-timestamp (the fake's clock) was 24h0m0s behind the wall clock, past the 5m0s a Standard Webhooks receiver allows; " +
				"stamp with the wall clock (-webhook-clock wall; Go: WithWebhookClock(fakeserver.WebhookClockWall)) or verify on the fake's clock"},
		{"just past the tolerance", StampFake, 5*time.Minute + time.Second, 403, false,
			"HTTP 403; webhook-timestamp (the fake's clock) was 5m1s ahead of the wall clock, past the 5m0s a Standard Webhooks receiver allows; " +
				"stamp with the wall clock (-webhook-clock wall; Go: WithWebhookClock(fakeserver.WebhookClockWall)) or verify on the fake's clock"},
		{"within the tolerance", StampFake, 5*time.Minute - time.Second, 401, false, "HTTP 401"},
		{"a 5xx is not the timestamp's", StampFake, time.Hour, 500, false, "HTTP 500"},
		{"a success says nothing", StampFake, time.Hour, 204, false, ""},
		{"wall stamps, the fake an hour ahead", StampWall, time.Hour, 401, true, "HTTP 401"},
		{"wall stamps, delivered", StampWall, 30 * 24 * time.Hour, 200, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var got http.Header
			var body []byte
			receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b := make([]byte, 1024)
				n, _ := r.Body.Read(b)
				mu.Lock()
				got, body = r.Header.Clone(), b[:n]
				mu.Unlock()
				w.WriteHeader(tt.status)
			}))
			defer receiver.Close()
			s := NewSender(Policy{AllowPrivate: true}, time.Minute, WithStamping(tt.stamping), WithWallClock(func() time.Time { return wall }))
			defer s.Close()
			secret, key := wire.NewSecret(rand.Reader)
			at := wall.Add(tt.fakeAt)
			out := s.Send(context.Background(), Attempt{URL: receiver.URL, MessageID: "msg_1", Key: key, Body: []byte(`{"type":"report.completed"}`), At: at})
			if out.Err != tt.wantErr || out.StatusCode != tt.status {
				t.Fatalf("outcome %d %q,\nwant %d %q", out.StatusCode, out.Err, tt.status, tt.wantErr)
			}
			want := at
			if tt.wantWall {
				want = wall
			}
			want = time.Unix(want.Unix(), 0)
			mu.Lock()
			defer mu.Unlock()
			if h := got.Get("webhook-timestamp"); h != strconv.FormatInt(want.Unix(), 10) || !out.Stamp.Equal(want) {
				t.Fatalf("webhook-timestamp %s, outcome stamp %v; want %v", h, out.Stamp, want)
			}
			wh, err := standardwebhooks.NewWebhook(secret)
			if err != nil {
				t.Fatal(err)
			}
			if err := wh.VerifyIgnoringTimestamp(body, got); err != nil {
				t.Fatalf("the signature does not cover the header's timestamp: %v", err)
			}
		})
	}
}

// TestWallStampsVerifyOnTheWallClock: with StampWall and the real wall clock, the reference
// library's Verify (which reads time.Now) accepts an attempt whose fake instant is a year off;
// with StampFake it refuses it, and the 401 says why.
func TestWallStampsVerifyOnTheWallClock(t *testing.T) {
	t.Parallel()
	secret, key := wire.NewSecret(rand.Reader)
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 1024)
		n, _ := r.Body.Read(b)
		if err := wh.Verify(b[:n], r.Header); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	a := Attempt{URL: receiver.URL, MessageID: "msg_2", Key: key, Body: []byte(`{}`), At: time.Now().AddDate(-1, 0, 0)}
	for _, tt := range []struct {
		stamping Stamping
		ok       bool
	}{{StampWall, true}, {StampFake, false}} {
		s := NewSender(Policy{AllowPrivate: true}, time.Minute, WithStamping(tt.stamping))
		out := s.Send(context.Background(), a)
		s.Close()
		if out.OK() != tt.ok || (!tt.ok && !strings.Contains(out.Err, "behind the wall clock")) {
			t.Fatalf("stamping %d: %d %q", tt.stamping, out.StatusCode, out.Err)
		}
	}
}
