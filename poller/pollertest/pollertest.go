// Package pollertest checks a poller.Store, and a poller.LeaseStore, against the contract the
// Poller relies on: the table of cases that poller.MemoryStore, poller.FileStore, pollerpg and
// pollerredis pass, for a custom store's own test to run with a constructor.
//
//	func TestMyStore(t *testing.T) {
//		pollertest.TestStore(t, pollertest.Harness{New: ..., Corrupt: ..., Elapse: ..., Short: time.Second})
//	}
//
// A store reaching a server can check its failures with TestStoreDown.
package pollertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podqa/podqa-go/poller"
)

// Harness makes fresh, empty stores of one kind for TestStore.
type Harness struct {
	// New returns an empty store (its own file, table row or key prefix). Required.
	New func(t *testing.T) poller.Store
	// Corrupt stores bytes that are not a state document where s keeps its state. nil for a
	// store that keeps no encoded state (MemoryStore, which also keeps any state it is given,
	// valid or not, for tests): the cases about encoding are then not run.
	Corrupt func(t *testing.T, s poller.Store, data []byte)
	// Elapse returns once at least d has passed on the store's clock: a manual clock is
	// advanced, a server's clock is waited for. Required when New makes LeaseStores.
	Elapse func(t *testing.T, d time.Duration)
	// Short is the shortest lease TTL the store is tested with: a lease given it has expired
	// once Elapse(Short) returned. Required (positive) when New makes LeaseStores.
	Short time.Duration
}

// TestStore runs the Store contract on stores made by h, each case in a subtest on a fresh
// store: the zero state when empty, a save read back as saved, and (with Corrupt) an invalid
// state refused and a corrupt one reported as poller.ErrCorruptState. When the stores are
// LeaseStores it runs the lease contract too: one holder at a time among concurrent
// acquirers, tokens that grow with every hand-over, an expired holder fenced out of renewals
// and saves, and a lease of no time refused.
func TestStore(t *testing.T, h Harness) {
	t.Helper()
	if h.New == nil {
		t.Fatal("pollertest.Harness needs New")
	}
	ctx := context.Background()
	state := poller.State{Watermark: "2026-01-05T09:00:00.000000+00:00", Seen: []poller.SeenReport{
		{ID: "0b0f1a52-7a3e-4c1e-9d55-3f6b2a1c9e01", UpdatedAt: "2026-01-05T09:00:00.500000+00:00"},
	}}
	later := poller.State{Watermark: "2026-01-05T10:00:00.000000+00:00"}
	load := func(t *testing.T, s poller.Store) poller.State {
		t.Helper()
		st, err := s.Load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	store := []struct {
		name    string
		encoded bool // only for stores that encode the state
		run     func(t *testing.T, s poller.Store)
	}{
		{"empty store loads the zero state", false, func(t *testing.T, s poller.Store) {
			if st := load(t, s); st.Watermark != "" || len(st.Seen) != 0 {
				t.Fatalf("Load = %+v", st)
			}
		}},
		{"save then load", false, func(t *testing.T, s poller.Store) {
			must(t, s.Save(ctx, state))
			if diff := cmp.Diff(state, load(t, s)); diff != "" {
				t.Fatalf("loaded (-saved +loaded):\n%s", diff)
			}
			must(t, s.Save(ctx, later))
			if diff := cmp.Diff(later, load(t, s)); diff != "" {
				t.Fatalf("second save (-saved +loaded):\n%s", diff)
			}
		}},
		{"an invalid state is refused and nothing written", true, func(t *testing.T, s poller.Store) {
			must(t, s.Save(ctx, state))
			bad := poller.State{Watermark: "yesterday"}
			if err := s.Save(ctx, bad); err == nil {
				t.Fatal("Save accepted an unreadable watermark")
			}
			if diff := cmp.Diff(state, load(t, s)); diff != "" {
				t.Fatalf("state changed by a refused save:\n%s", diff)
			}
		}},
		{"a corrupt stored state is ErrCorruptState", true, func(t *testing.T, s poller.Store) {
			for _, data := range []string{"{", "null", `{"version":2,"watermark":"2026-01-05T09:00:00.000000+00:00"}`, `{"version":1,"watermark":"x"}`, "\x00\xff"} {
				h.Corrupt(t, s, []byte(data))
				if _, err := s.Load(ctx); !errors.Is(err, poller.ErrCorruptState) {
					t.Fatalf("Load of %q: %v, want ErrCorruptState", data, err)
				}
			}
		}},
	}
	for _, tt := range store {
		if tt.encoded && h.Corrupt == nil {
			continue
		}
		t.Run(tt.name, func(t *testing.T) { tt.run(t, h.New(t)) })
	}

	if _, ok := h.New(t).(poller.LeaseStore); !ok {
		return
	}
	if h.Elapse == nil || h.Short <= 0 {
		t.Fatalf("pollertest.Harness for a LeaseStore needs Elapse and a positive Short; got Elapse set %v, Short %v", h.Elapse != nil, h.Short)
	}
	const ttl = time.Minute
	acquire := func(t *testing.T, s poller.LeaseStore, holder string, ttl time.Duration) poller.Lease {
		t.Helper()
		l, err := s.AcquireLease(ctx, holder, ttl)
		if err != nil {
			t.Fatalf("AcquireLease(%s): %v", holder, err)
		}
		if l.Holder != holder {
			t.Fatalf("AcquireLease(%s) = %+v", holder, l)
		}
		return l
	}
	held := func(t *testing.T, s poller.LeaseStore, holder, by string) {
		t.Helper()
		_, err := s.AcquireLease(ctx, holder, ttl)
		var he *poller.LeaseHeldError
		if !errors.As(err, &he) || !errors.Is(err, poller.ErrLeaseHeld) || he.Holder != by || he.Remaining <= 0 || he.Remaining > ttl {
			t.Fatalf("AcquireLease(%s) = %v, want held by %s for (0, %v]", holder, err, by, ttl)
		}
	}
	leases := []struct {
		name    string
		encoded bool
		run     func(t *testing.T, s poller.LeaseStore)
	}{
		{"one holder; re-acquiring renews with the same token", false, func(t *testing.T, s poller.LeaseStore) {
			a := acquire(t, s, "a", ttl)
			held(t, s, "b", "a")
			if again := acquire(t, s, "a", ttl); again != a {
				t.Fatalf("re-acquire = %+v, want %+v", again, a)
			}
			must(t, s.RenewLease(ctx, a, ttl))
			must(t, s.SaveFenced(ctx, a, state))
			if diff := cmp.Diff(state, load(t, s)); diff != "" {
				t.Fatalf("fenced save not applied:\n%s", diff)
			}
		}},
		{"release hands over with a larger token", false, func(t *testing.T, s poller.LeaseStore) {
			a := acquire(t, s, "a", ttl)
			must(t, s.ReleaseLease(ctx, a))
			b := acquire(t, s, "b", ttl)
			if b.Token <= a.Token {
				t.Fatalf("token %d after %d", b.Token, a.Token)
			}
			must(t, s.ReleaseLease(ctx, a)) // stale: no effect
			held(t, s, "c", "b")
			if err := s.RenewLease(ctx, a, ttl); !errors.Is(err, poller.ErrLeaseLost) {
				t.Fatalf("stale renew: %v", err)
			}
			// The same holder after its release gets a new token too.
			must(t, s.ReleaseLease(ctx, b))
			if b2 := acquire(t, s, "b", ttl); b2.Token <= b.Token {
				t.Fatalf("token %d after %d", b2.Token, b.Token)
			}
		}},
		{"an expired holder is taken over and fenced out", false, func(t *testing.T, s poller.LeaseStore) {
			a := acquire(t, s, "a", h.Short)
			must(t, s.SaveFenced(ctx, a, state))
			h.Elapse(t, h.Short)
			if err := s.RenewLease(ctx, a, ttl); !errors.Is(err, poller.ErrLeaseLost) {
				t.Fatalf("renew after expiry: %v, want ErrLeaseLost", err)
			}
			if err := s.SaveFenced(ctx, a, later); !errors.Is(err, poller.ErrLeaseLost) {
				t.Fatalf("save after expiry: %v, want ErrLeaseLost", err)
			}
			b := acquire(t, s, "b", ttl)
			if b.Token <= a.Token {
				t.Fatalf("token %d after %d", b.Token, a.Token)
			}
			if err := s.SaveFenced(ctx, a, later); !errors.Is(err, poller.ErrLeaseLost) {
				t.Fatalf("stale save: %v, want ErrLeaseLost", err)
			}
			if diff := cmp.Diff(state, load(t, s)); diff != "" {
				t.Fatalf("a refused save was applied:\n%s", diff)
			}
			// The old holder coming back gets a new token, not its old one.
			must(t, s.ReleaseLease(ctx, b))
			if a2 := acquire(t, s, "a", ttl); a2.Token <= b.Token {
				t.Fatalf("token %d after %d", a2.Token, b.Token)
			}
		}},
		{"one of many concurrent acquirers wins", false, func(t *testing.T, s poller.LeaseStore) {
			var wg sync.WaitGroup
			var mu sync.Mutex
			won, lost := 0, 0
			for i := range 8 {
				wg.Go(func() {
					_, err := s.AcquireLease(ctx, fmt.Sprint("p", i), ttl)
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						won++
					case errors.Is(err, poller.ErrLeaseHeld):
						lost++
					default:
						t.Error(err)
					}
				})
			}
			wg.Wait()
			if won != 1 || lost != 7 {
				t.Fatalf("%d won, %d held; want 1 and 7", won, lost)
			}
		}},
		{"a lease of no time is refused and changes nothing", false, func(t *testing.T, s poller.LeaseStore) {
			for _, bad := range []time.Duration{0, -time.Second} {
				if _, err := s.AcquireLease(ctx, "b", bad); !errors.Is(err, poller.ErrInvalidOption) {
					t.Fatalf("AcquireLease(ttl %v) = %v, want ErrInvalidOption", bad, err)
				}
			}
			a := acquire(t, s, "a", ttl)
			for _, bad := range []time.Duration{0, -time.Second} {
				if err := s.RenewLease(ctx, a, bad); !errors.Is(err, poller.ErrInvalidOption) {
					t.Fatalf("RenewLease(ttl %v) = %v, want ErrInvalidOption", bad, err)
				}
			}
			held(t, s, "b", "a")
			must(t, s.SaveFenced(ctx, a, state))
		}},
		{"an invalid state is refused by SaveFenced", true, func(t *testing.T, s poller.LeaseStore) {
			a := acquire(t, s, "a", ttl)
			if err := s.SaveFenced(ctx, a, poller.State{Watermark: "soon"}); err == nil || errors.Is(err, poller.ErrLeaseLost) {
				t.Fatalf("SaveFenced of an invalid state: %v", err)
			}
		}},
	}
	for _, tt := range leases {
		if tt.encoded && h.Corrupt == nil {
			continue
		}
		t.Run(tt.name, func(t *testing.T) { tt.run(t, h.New(t).(poller.LeaseStore)) })
	}
}
