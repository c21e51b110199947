package webhooks

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestBudgetIsHandedAndNeverUnbounded: the sender uses the budget it is handed (the delivery
// ladder and its default live in the core), and a budget of 0 or less never turns into an
// attempt that waits without a bound: the attempt fails as a timeout instead of being made.
func TestBudgetIsHandedAndNeverUnbounded(t *testing.T) {
	t.Parallel()
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)
	tests := []struct {
		budget time.Duration
		ok     bool
	}{
		{time.Hour, true},
		{0, false},
		{-time.Second, false},
	}
	for _, tt := range tests {
		s := NewSender(Policy{AllowPrivate: true}, tt.budget)
		out := s.Send(context.Background(), Attempt{URL: receiver.URL, MessageID: "msg_x", Key: []byte("k"), Body: []byte("{}"), At: time.Unix(0, 0)})
		s.Close()
		if out.OK() != tt.ok {
			t.Errorf("budget %v: %+v, want ok=%v", tt.budget, out, tt.ok)
		}
		if !tt.ok && !strings.HasPrefix(out.Err, "timeout: ") {
			t.Errorf("budget %v: %q, want a timeout", tt.budget, out.Err)
		}
	}
}
