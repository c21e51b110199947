package webhooks

import (
	"bytes"
	"context"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/webhooks/wire"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// TestOutcomeKeepsHeadersAndAnswer: an attempt's outcome keeps the headers as the receiver got
// them (which verify with the reference library, and hold no secret) and the first
// MaxAnswerKept bytes of the answer, marked cut when the answer was longer; a connection error
// keeps the headers and no answer.
func TestOutcomeKeepsHeadersAndAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		status  int
		answer  string
		wantErr string
	}{
		{"short 2xx", http.StatusOK, `{"ok":true}`, ""},
		{"empty 500", http.StatusInternalServerError, "", "HTTP 500"},
		{"exactly the kept size", http.StatusBadRequest, strings.Repeat("b", MaxAnswerKept), "HTTP 400"},
		{"long 401", http.StatusUnauthorized, strings.Repeat("x", MaxAnswerKept) + "TAIL", "HTTP 401"},
		{"longer than what is read", http.StatusTeapot, strings.Repeat("y", maxResponseRead+100), "HTTP 418"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			secret, key := wire.NewSecret(rand.Reader)
			var got http.Header
			var body []byte
			rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = r.Header.Clone()
				var b bytes.Buffer
				_, _ = b.ReadFrom(r.Body)
				body = b.Bytes()
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.answer))
			}))
			defer rc.Close()
			s := NewSender(Policy{AllowPrivate: true}, time.Second)
			defer s.Close()
			// The wall clock agrees with the attempt's stamp: no skew advice in the error.
			s.wall = func() time.Time { return time.Unix(1_700_000_000, 0) }
			a := Attempt{URL: rc.URL, MessageID: wire.NewMessageID(rand.Reader), Key: key, Body: []byte(`{"type":"x"}`), At: time.Unix(1_700_000_000, 0)}
			out := s.Send(context.Background(), a)
			if out.Err != tc.wantErr || out.StatusCode != tc.status {
				t.Fatalf("outcome %d %q, want %d %q", out.StatusCode, out.Err, tc.status, tc.wantErr)
			}
			want := tc.answer[:min(len(tc.answer), MaxAnswerKept)]
			if string(out.Answer) != want || out.AnswerCut != (len(tc.answer) > MaxAnswerKept) {
				t.Fatalf("answer kept %d bytes (cut %v), want %d (cut %v)", len(out.Answer), out.AnswerCut, len(want), len(tc.answer) > MaxAnswerKept)
			}
			names := []string{}
			h := http.Header{}
			for _, kv := range out.Sent {
				names = append(names, kv.Name)
				if got.Get(kv.Name) != kv.Value {
					t.Errorf("%s recorded %q, sent %q", kv.Name, kv.Value, got.Get(kv.Name))
				}
				if strings.Contains(kv.Value, secret) || strings.Contains(kv.Value, "whsec_") {
					t.Errorf("%s holds the secret", kv.Name)
				}
				h.Set(kv.Name, kv.Value)
			}
			if strings.Join(names, " ") != "content-type user-agent webhook-id webhook-timestamp webhook-signature" {
				t.Fatalf("recorded headers %v", names)
			}
			wh, err := standardwebhooks.NewWebhook(secret)
			if err != nil {
				t.Fatal(err)
			}
			if err := wh.VerifyIgnoringTimestamp(body, h); err != nil {
				t.Fatalf("the recorded headers do not verify the body sent: %v", err)
			}
		})
	}
	t.Run("connection refused", func(t *testing.T) {
		t.Parallel()
		rc := httptest.NewServer(http.NotFoundHandler())
		url := rc.URL
		rc.Close()
		s := NewSender(Policy{AllowPrivate: true}, time.Second)
		defer s.Close()
		out := s.Send(context.Background(), Attempt{URL: url, MessageID: "msg_1", Key: []byte("k"), Body: []byte("{}"), At: time.Unix(1, 0)})
		if out.Err == "" || out.Answer != nil || len(out.Sent) != 5 {
			t.Fatalf("outcome %+v", out)
		}
	})
}

// TestReadAnswerMemory: reading a huge answer keeps MaxAnswerKept bytes, however long it is.
func TestReadAnswerMemory(t *testing.T) {
	t.Parallel()
	kept, cut, err := readAnswer(strings.NewReader(strings.Repeat("z", 10<<20)))
	if err != nil || !cut || len(kept) != MaxAnswerKept || cap(kept) > 2*MaxAnswerKept {
		t.Fatalf("kept %d (cap %d), cut %v, err %v", len(kept), cap(kept), cut, err)
	}
}
