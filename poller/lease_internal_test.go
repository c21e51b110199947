package poller

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
)

// timedLeases is a MemoryLeaseStore on a manual clock that also stands for the network:
// AcquireLease's answer arrives replyDelay after the store granted the lease, and RenewLease
// behaves as renewal says. Sleeping on the manual clock moves it at once, so the renewer runs
// through hours of lease time in microseconds, with no wall-clock sleep.
type timedLeases struct {
	*MemoryLeaseStore
	clock      *client.ManualClock
	replyDelay time.Duration
	renewal    func(ctx context.Context, s *timedLeases, l Lease, ttl time.Duration) error

	mu       sync.Mutex
	granted  time.Time
	renewals int
	enough   chan struct{} // closed at the 30th renewal
}

func (s *timedLeases) AcquireLease(ctx context.Context, holder string, ttl time.Duration) (Lease, error) {
	s.mu.Lock()
	s.granted = s.clock.Now()
	s.mu.Unlock()
	l, err := s.MemoryLeaseStore.AcquireLease(ctx, holder, ttl)
	s.clock.Advance(s.replyDelay)
	return l, err
}

func (s *timedLeases) RenewLease(ctx context.Context, l Lease, ttl time.Duration) error {
	s.mu.Lock()
	s.renewals++
	if s.renewals == 30 {
		close(s.enough)
	}
	s.mu.Unlock()
	return s.renewal(ctx, s, l, ttl)
}

var errUnreachable = errors.New("dial tcp 127.0.0.1:5432: connection refused")

// TestRenewalFailuresEndTheHoldInTime: whatever the store does, a poller stops using its lease
// before the store could give it to another poller (a whole TTL after it granted or last renewed
// it), and while the store is reachable the lease lasts as long as the poller wants it.
func TestRenewalFailuresEndTheHoldInTime(t *testing.T) {
	t.Parallel()
	const ttl = 15 * time.Second
	unreachable := func(context.Context, *timedLeases, Lease, time.Duration) error { return errUnreachable }
	tests := []struct {
		name       string
		replyDelay time.Duration
		renewal    func(ctx context.Context, s *timedLeases, l Lease, ttl time.Duration) error
		// lost: the hold must end, with ErrLeaseLost as its cause, at most at this long after
		// the store granted the lease; zero: it must last.
		lost time.Duration
	}{
		{"renewals succeed", 0, func(ctx context.Context, s *timedLeases, l Lease, ttl time.Duration) error {
			return s.MemoryLeaseStore.RenewLease(ctx, l, ttl)
		}, 0},
		{"renewals fail at once", 0, unreachable, 2 * ttl / 3},
		{"renewals hang until their deadline", 0, func(ctx context.Context, s *timedLeases, _ Lease, _ time.Duration) error {
			// The renewer's timeout is a wall-clock context (a third of the TTL or what is
			// left, whole seconds here); the hang stands for all of it on the manual clock.
			// Rounded up, so that however late this runs on a loaded machine (under a
			// second) the clock moves by the timeout itself.
			d, _ := ctx.Deadline()
			s.clock.Advance(max(time.Until(d), 0).Truncate(time.Second) + time.Second)
			return context.DeadlineExceeded
		}, 2 * ttl / 3},
		{"the acquisition's answer came late", 2 * ttl / 5, unreachable, 2 * ttl / 3},
		{"the acquisition's answer came after two thirds of the TTL", 4 * ttl / 5, unreachable, 4 * ttl / 5},
		{"the store says the lease is gone", 0, func(context.Context, *timedLeases, Lease, time.Duration) error {
			return ErrLeaseLost
		}, ttl / 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := client.NewManualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
			store := &timedLeases{
				MemoryLeaseStore: NewMemoryLeaseStore(WithLeaseClock(clock)),
				clock:            clock, replyDelay: tt.replyDelay, renewal: tt.renewal,
				enough: make(chan struct{}),
			}
			p := &Poller{cfg: config{lease: leaseConfig{ttl: ttl, holder: "a", clock: clock}}}
			h, err := p.takeLease(t.Context(), store)
			if err != nil {
				t.Fatal(err)
			}
			if tt.lost == 0 {
				<-store.enough
				if h.ctx.Err() != nil {
					t.Fatalf("the hold ended while the store renewed it: %v", context.Cause(h.ctx))
				}
				p.end(store, h, true)
				if _, err := store.AcquireLease(t.Context(), "b", ttl); err != nil {
					t.Fatalf("after the release, another poller: %v", err)
				}
				return
			}
			<-h.done // the renewer has stopped; nothing moves the clock any more
			if cause := context.Cause(h.ctx); !errors.Is(cause, ErrLeaseLost) {
				t.Fatalf("the hold ended with %v, want ErrLeaseLost", cause)
			}
			store.mu.Lock()
			after := clock.Now().Sub(store.granted)
			store.mu.Unlock()
			if after > tt.lost {
				t.Fatalf("the hold ended %v after the store granted the lease, want at most %v (the store frees it after %v)", after, tt.lost, ttl)
			}
			if tt.lost < ttl {
				// At the moment the poller stopped, the store still gave the lease to nobody else.
				if _, err := store.MemoryLeaseStore.AcquireLease(t.Context(), "b", ttl); !errors.Is(err, ErrLeaseHeld) {
					t.Fatalf("another poller's acquisition when the hold ended: %v, want ErrLeaseHeld", err)
				}
			}
		})
	}
}
