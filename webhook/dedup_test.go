package webhook

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
)

func newTestStore(t *testing.T, clock *client.ManualClock, opts ...MemoryStoreOption) *MemoryStore {
	t.Helper()
	s, err := NewMemoryStore(append([]MemoryStoreOption{WithDedupClock(clock)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// seen reports whether id is done, releasing the claim it takes otherwise.
func seen(t *testing.T, s DedupStore, id string) bool {
	t.Helper()
	status, token, err := s.Claim(context.Background(), id, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if status == Claimed {
		if err := s.Release(context.Background(), id, token); err != nil {
			t.Fatal(err)
		}
	}
	return status == AlreadyDone
}

func mark(t *testing.T, s DedupStore, id string) {
	t.Helper()
	if err := s.Complete(context.Background(), id); err != nil {
		t.Fatal(err)
	}
}

func TestMemoryStoreExpiry(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	s := newTestStore(t, clock, WithDedupTTL(time.Hour))
	if seen(t, s, "a") {
		t.Fatal("fresh store has seen a")
	}
	mark(t, s, "a")
	clock.Advance(30 * time.Minute)
	mark(t, s, "b")
	if !seen(t, s, "a") || !seen(t, s, "b") {
		t.Fatal("marked ids not seen")
	}
	clock.Advance(30*time.Minute - time.Nanosecond)
	if !seen(t, s, "a") {
		t.Fatal("a forgotten before its TTL")
	}
	clock.Advance(time.Nanosecond)
	if seen(t, s, "a") {
		t.Fatal("a still seen at its TTL")
	}
	if !seen(t, s, "b") || s.Len() != 1 {
		t.Fatalf("b should remain alone; Len = %d", s.Len())
	}
	// Marking again restarts the TTL.
	clock.Advance(20 * time.Minute)
	mark(t, s, "b")
	clock.Advance(50 * time.Minute)
	if !seen(t, s, "b") {
		t.Fatal("re-marked b forgotten too early")
	}
}

func TestMemoryStoreDefaultTTLCoversRetryLadder(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	s := newTestStore(t, clock)
	mark(t, s, "msg")
	clock.Advance(28 * time.Hour)
	if !seen(t, s, "msg") {
		t.Fatal("id forgotten within the sender's 28-hour retry ladder")
	}
	clock.Advance(2 * time.Hour)
	if seen(t, s, "msg") {
		t.Fatal("id kept past DefaultDedupTTL")
	}
}

func TestMemoryStoreBounded(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	s := newTestStore(t, clock, WithDedupMaxEntries(3))
	for i := range 5 {
		mark(t, s, fmt.Sprint(i))
		clock.Advance(time.Second)
	}
	if s.Len() != 3 {
		t.Fatalf("Len = %d, want 3", s.Len())
	}
	for i, want := range []bool{false, false, true, true, true} {
		if got := seen(t, s, fmt.Sprint(i)); got != want {
			t.Errorf("seen(%d) = %v, want %v (oldest forgotten first)", i, got, want)
		}
	}
	// Re-marking moves an id to the young end, so it outlives ids marked before.
	mark(t, s, "2")
	mark(t, s, "5")
	if !seen(t, s, "2") || seen(t, s, "3") {
		t.Error("re-marked id evicted before an older one")
	}
}

func TestMemoryStoreClockStepsBack(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	s := newTestStore(t, clock, WithDedupTTL(time.Hour))
	mark(t, s, "late")
	clock.Advance(-2 * time.Hour)
	mark(t, s, "early") // expires before "late" although marked after it
	clock.Advance(90 * time.Minute)
	if seen(t, s, "early") {
		t.Error("early seen past its expiry")
	}
	if !seen(t, s, "late") {
		t.Error("late forgotten before its expiry")
	}
}

func TestMemoryStoreConcurrent(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	s := newTestStore(t, clock, WithDedupMaxEntries(50))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				id := fmt.Sprintf("%d-%d", g, i)
				mark(t, s, id)
				if !seen(t, s, id) && s.Len() < 50 {
					t.Errorf("%s lost", id)
				}
			}
		})
	}
	wg.Wait()
	if s.Len() != 50 {
		t.Fatalf("Len = %d, want the bound 50", s.Len())
	}
}

func TestMemoryStoreClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := client.NewManualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	s := newTestStore(t, clock, WithDedupMaxEntries(2))
	claim := func(id string) (ClaimStatus, string) {
		t.Helper()
		st, tok, err := s.Claim(ctx, id, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return st, tok
	}
	st, tok := claim("a")
	if st != Claimed || tok == "" {
		t.Fatalf("first claim = %v %q", st, tok)
	}
	if st, _ := claim("a"); st != InProgress {
		t.Fatalf("second claim = %v, want InProgress", st)
	}
	// Claims expire; a stale holder's release then leaves the new claim alone.
	clock.Advance(time.Minute)
	st, tok2 := claim("a")
	if st != Claimed || tok2 == tok {
		t.Fatalf("claim after expiry = %v %q", st, tok2)
	}
	_ = s.Release(ctx, "a", tok)
	if st, _ := claim("a"); st != InProgress {
		t.Fatalf("a stale release dropped the new claim: %v", st)
	}
	_ = s.Release(ctx, "a", tok2)
	if st, tok3 := claim("a"); st != Claimed {
		t.Fatalf("claim after release = %v", st)
	} else {
		_ = s.Complete(ctx, "a")
		_ = s.Release(ctx, "a", tok3) // after Complete: nothing to release
	}
	if st, _ := claim("a"); st != AlreadyDone {
		t.Fatalf("claim after complete = %v", st)
	}
	// Many abandoned claims do not grow the store without bound once they expired.
	for i := range 10 {
		claim(fmt.Sprint("x", i))
	}
	clock.Advance(time.Minute)
	claim("y")
	if n := len(s.claims); n > 3 {
		t.Fatalf("%d claims kept after expiry", n)
	}
	if _, _, err := s.Claim(ctx, "z", 0); !errors.Is(err, ErrInvalidOption) {
		t.Fatalf("zero TTL: %v", err)
	}
	for st, want := range map[ClaimStatus]string{Claimed: "claimed", AlreadyDone: "already done", InProgress: "in progress elsewhere", 9: "ClaimStatus(9)"} {
		if st.String() != want {
			t.Errorf("%d.String() = %q", int(st), st.String())
		}
	}
}

func TestNewMemoryStoreErrors(t *testing.T) {
	t.Parallel()
	for name, opt := range map[string]MemoryStoreOption{
		"zero TTL":     WithDedupTTL(0),
		"negative TTL": WithDedupTTL(-time.Hour),
		"zero size":    WithDedupMaxEntries(0),
		"nil clock":    WithDedupClock(nil),
	} {
		if s, err := NewMemoryStore(opt); !errors.Is(err, ErrInvalidOption) || s != nil {
			t.Errorf("%s: NewMemoryStore = %v, %v; want ErrInvalidOption", name, s, err)
		}
	}
}
