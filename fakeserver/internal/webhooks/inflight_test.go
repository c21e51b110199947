package webhooks

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestAttemptsInFlightAreCapped is D13 of issue 32: concurrent SendAll calls to hanging
// receivers never have more than MaxInFlight attempts in flight together (three calls of 100
// receivers would otherwise have 192), and every attempt is made once they answer.
func TestAttemptsInFlightAreCapped(t *testing.T) {
	t.Parallel()
	var inFlight, most atomic.Int64
	entered := make(chan struct{}, 1024)
	release := make(chan struct{})
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		entered <- struct{}{}
		<-release
		inFlight.Add(-1)
	}))
	defer receiver.Close()
	s := NewSender(Policy{AllowPrivate: true}, time.Hour)
	defer s.Close()
	const calls, receivers = 3, 100
	var wg sync.WaitGroup
	results := make([][]Outcome, calls)
	for c := range calls {
		attempts := make([]Attempt, receivers)
		for i := range attempts {
			attempts[i] = Attempt{URL: fmt.Sprintf("%s/r%d-%d", receiver.URL, c, i), MessageID: "msg_x", Key: []byte("k"), Body: []byte("{}"), At: time.Unix(0, 0)}
		}
		wg.Go(func() { results[c] = s.SendAll(context.Background(), attempts) })
	}
	for range MaxInFlight {
		<-entered
	}
	if got := inFlight.Load(); got != MaxInFlight {
		t.Errorf("%d attempts in flight once %d had arrived", got, MaxInFlight)
	}
	close(release)
	wg.Wait()
	if got := most.Load(); got > MaxInFlight {
		t.Fatalf("%d attempts were in flight at once, more than %d", got, MaxInFlight)
	}
	for c, out := range results {
		for i, o := range out {
			if !o.OK() {
				t.Fatalf("call %d attempt %d: %+v", c, i, o)
			}
		}
	}
}

// TestAttemptsWaitingForASlotEndWithTheirContext: an attempt still waiting for a slot when its
// context ends fails without being made.
func TestAttemptsWaitingForASlotEndWithTheirContext(t *testing.T) {
	t.Parallel()
	var made atomic.Int64
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { made.Add(1) }))
	defer receiver.Close()
	s := NewSender(Policy{AllowPrivate: true}, time.Hour)
	defer s.Close()
	for range MaxInFlight {
		s.slots <- struct{}{} // every slot taken
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := s.SendAll(ctx, []Attempt{{URL: receiver.URL, MessageID: "msg_x", Key: []byte("k"), Body: []byte("{}")}})
	if out[0].OK() || made.Load() != 0 {
		t.Fatalf("%+v, %d made", out[0], made.Load())
	}
}
