// Package webhooktest checks a webhook.DedupStore against the contract the Handler relies on:
// the table of cases that webhook.MemoryStore, webhookpg and webhookredis pass, for a custom
// store's own test to run with a constructor.
//
//	func TestMyStore(t *testing.T) {
//		webhooktest.TestDedupStore(t, webhooktest.Harness{New: ..., Elapse: ..., Short: time.Second})
//	}
//
// A store shared between processes also gives Harness.Twin, so that the cases check what a
// second process sees; a store reaching a server can check its failures with TestStoreDown.
package webhooktest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/webhook"
)

// Harness makes fresh, empty stores of one kind for TestDedupStore.
type Harness struct {
	// New returns an empty store (its own table or key prefix) remembering completions for
	// doneTTL. Required.
	New func(t *testing.T, doneTTL time.Duration) webhook.DedupStore
	// Elapse returns once at least d has passed on the store's clock: a manual clock is
	// advanced, a server's clock is waited for. Required.
	Elapse func(t *testing.T, d time.Duration)
	// Short is the shortest TTL the store is tested with: claims and completions given it
	// expire once Elapse(Short) returned. Required (positive).
	Short time.Duration
	// Twin returns another instance on s's state, as a second process would open it. nil for
	// a store that lives in one process: s itself is used.
	Twin func(t *testing.T, s webhook.DedupStore) webhook.DedupStore
}

// TestDedupStore runs the DedupStore contract on stores made by h, each case in a subtest on a
// fresh store: claims exclusive among concurrent callers and released only with their token,
// completions seen at once by their instance and by every twin once written, claims and
// completions expiring after their TTLs, any id text, and a non-positive TTL refused. A store
// that writes completions behind its callers implements Flusher, and each case flushes before
// it looks at a twin.
func TestDedupStore(t *testing.T, h Harness) {
	t.Helper()
	if h.New == nil || h.Elapse == nil || h.Short <= 0 {
		t.Fatalf("webhooktest.Harness needs New, Elapse and a positive Short; got New set %v, Elapse set %v, Short %v",
			h.New != nil, h.Elapse != nil, h.Short)
	}
	if h.Twin == nil {
		h.Twin = func(_ *testing.T, s webhook.DedupStore) webhook.DedupStore { return s }
	}
	ctx := context.Background()
	claim := func(t *testing.T, s webhook.DedupStore, id string, ttl time.Duration) (webhook.ClaimStatus, string) {
		t.Helper()
		st, tok, err := s.Claim(ctx, id, ttl)
		if err != nil {
			t.Fatalf("Claim(%q): %v", id, err)
		}
		if (st == webhook.Claimed) != (tok != "") {
			t.Fatalf("Claim(%q) = %v with token %q", id, st, tok)
		}
		return st, tok
	}
	expect := func(t *testing.T, s webhook.DedupStore, id string, want webhook.ClaimStatus) string {
		t.Helper()
		st, tok := claim(t, s, id, time.Minute)
		if st != want {
			t.Fatalf("Claim(%q) = %v, want %v", id, st, want)
		}
		return tok
	}
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// complete completes id and waits until the completion is written, for what follows to
	// depend on the store's shared state rather than on the instance's queue.
	complete := func(t *testing.T, s webhook.DedupStore, id string) {
		t.Helper()
		must(t, s.Complete(ctx, id))
		Flush(t, s)
	}
	tests := []struct {
		name string
		run  func(t *testing.T, s webhook.DedupStore)
	}{
		{"claim, then in progress, then done", func(t *testing.T, s webhook.DedupStore) {
			tok := expect(t, s, "msg_1", webhook.Claimed)
			expect(t, s, "msg_1", webhook.InProgress)
			expect(t, s, "msg_2", webhook.Claimed) // ids are independent
			complete(t, s, "msg_1")
			expect(t, s, "msg_1", webhook.AlreadyDone)
			must(t, s.Release(ctx, "msg_1", tok)) // after completion: nothing to release
			expect(t, s, "msg_1", webhook.AlreadyDone)
			expect(t, h.Twin(t, s), "msg_1", webhook.AlreadyDone)
			expect(t, h.Twin(t, s), "msg_2", webhook.InProgress)
		}},
		{"a completion is done at once on its instance, and everywhere once written", func(t *testing.T, s webhook.DedupStore) {
			tok := expect(t, s, "msg", webhook.Claimed)
			must(t, s.Complete(ctx, "msg"))
			// Whether or not the write has landed: this instance knows, and the release that
			// a panicking caller might still make does not free the id.
			expect(t, s, "msg", webhook.AlreadyDone)
			must(t, s.Release(ctx, "msg", tok))
			expect(t, s, "msg", webhook.AlreadyDone)
			Flush(t, s)
			expect(t, h.Twin(t, s), "msg", webhook.AlreadyDone)
			expect(t, s, "msg", webhook.AlreadyDone)
		}},
		{"many completions at once are all written", func(t *testing.T, s webhook.DedupStore) {
			const n = 300
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					id := fmt.Sprint("many-", i)
					if st, _, err := s.Claim(ctx, id, time.Minute); err != nil || st != webhook.Claimed {
						t.Errorf("Claim(%q) = %v, %v", id, st, err)
						return
					}
					if err := s.Complete(ctx, id); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			Flush(t, s)
			twin := h.Twin(t, s)
			for i := range n {
				expect(t, twin, fmt.Sprint("many-", i), webhook.AlreadyDone)
			}
		}},
		{"release gives the id back, only with its token", func(t *testing.T, s webhook.DedupStore) {
			tok := expect(t, s, "msg", webhook.Claimed)
			must(t, s.Release(ctx, "msg", "not-"+tok))
			expect(t, s, "msg", webhook.InProgress)
			must(t, s.Release(ctx, "msg", tok))
			tok2 := expect(t, s, "msg", webhook.Claimed)
			if tok2 == tok {
				t.Fatal("a new claim reused the released token")
			}
			must(t, s.Release(ctx, "never-claimed", tok))
		}},
		{"complete without a claim", func(t *testing.T, s webhook.DedupStore) {
			must(t, s.Complete(ctx, "msg"))
			complete(t, s, "msg")
			expect(t, s, "msg", webhook.AlreadyDone)
			expect(t, h.Twin(t, s), "msg", webhook.AlreadyDone)
		}},
		{"claims expire; a stale release leaves the new claim alone", func(t *testing.T, s webhook.DedupStore) {
			st, stale := claim(t, s, "msg", h.Short)
			if st != webhook.Claimed {
				t.Fatalf("first claim %v", st)
			}
			h.Elapse(t, h.Short)
			tok := expect(t, s, "msg", webhook.Claimed)
			must(t, s.Release(ctx, "msg", stale))
			expect(t, s, "msg", webhook.InProgress)
			must(t, s.Release(ctx, "msg", tok))
			expect(t, s, "msg", webhook.Claimed)
		}},
		{"completions expire after the done TTL", func(t *testing.T, _ webhook.DedupStore) {
			s := h.New(t, h.Short)
			complete(t, s, "msg")
			expect(t, s, "msg", webhook.AlreadyDone)
			h.Elapse(t, h.Short)
			expect(t, s, "msg", webhook.Claimed)
		}},
		{"one claim among concurrent ones", func(t *testing.T, s webhook.DedupStore) {
			const n = 16
			for round := range 5 {
				id := fmt.Sprint("race-", round)
				var wg sync.WaitGroup
				var mu sync.Mutex
				counts := map[webhook.ClaimStatus]int{}
				for range n {
					wg.Go(func() {
						st, _, err := s.Claim(ctx, id, time.Minute)
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						counts[st]++
						mu.Unlock()
					})
				}
				wg.Wait()
				if counts[webhook.Claimed] != 1 || counts[webhook.InProgress] != n-1 {
					t.Fatalf("%s: %v, want one claimed and %d in progress", id, counts, n-1)
				}
			}
		}},
		{"any id text", func(t *testing.T, s webhook.DedupStore) {
			for _, id := range []string{"msg_2Kp'; DROP TABLE x; --", "ünïcødé ✓", strings.Repeat("x", 300), "a:b:{c}"} {
				tok := expect(t, s, id, webhook.Claimed)
				must(t, s.Release(ctx, id, tok))
				expect(t, s, id, webhook.Claimed)
				complete(t, s, id)
				expect(t, h.Twin(t, s), id, webhook.AlreadyDone)
			}
		}},
		{"a non-positive TTL is refused", func(t *testing.T, s webhook.DedupStore) {
			for _, ttl := range []time.Duration{0, -time.Second} {
				if _, _, err := s.Claim(ctx, "msg", ttl); err == nil {
					t.Fatalf("Claim with TTL %v succeeded", ttl)
				}
			}
			expect(t, s, "msg", webhook.Claimed)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, h.New(t, time.Hour))
		})
	}
}

// Flusher is implemented by a DedupStore that writes completions behind its callers (as
// webhookpg and webhookredis do): Flush returns once every completion made before the call is written, or
// with the error of a write that failed.
type Flusher interface {
	Flush(ctx context.Context) error
}

// Flush waits until s, if it is a Flusher, has written its completions; a failed write fails
// the test.
func Flush(tb testing.TB, s webhook.DedupStore) {
	tb.Helper()
	if f, ok := s.(Flusher); ok {
		if err := f.Flush(context.Background()); err != nil {
			tb.Fatalf("Flush: %v", err)
		}
	}
}

// TestQueuedCompletion checks the window between Complete and the write of the completion, on a
// store s whose writes are held until release is called, and twin, another instance on its
// state: meanwhile s answers AlreadyDone and a Release by the claim's holder leaves the claim
// for the completion, while twin sees the claim (InProgress); once released and flushed, twin
// sees the id done. Two more ids completed while the first write is held are written together
// after it, so the engine's write of several ids in one round trip is exercised every time.
func TestQueuedCompletion(t *testing.T, s, twin webhook.DedupStore, release func()) {
	t.Helper()
	ctx := context.Background()
	want := func(s webhook.DedupStore, who string, status webhook.ClaimStatus) {
		t.Helper()
		if st, _, err := s.Claim(ctx, "msg", time.Minute); err != nil || st != status {
			t.Fatalf("%s: Claim = %v, %v; want %v", who, st, err, status)
		}
	}
	st, tok, err := s.Claim(ctx, "msg", time.Minute)
	if err != nil || st != webhook.Claimed {
		t.Fatalf("Claim = %v, %v", st, err)
	}
	if err := s.Complete(ctx, "msg"); err != nil {
		t.Fatal(err)
	}
	want(s, "the completing instance, write held", webhook.AlreadyDone)
	if err := s.Release(ctx, "msg", tok); err != nil {
		t.Fatal(err)
	}
	want(twin, "another instance, write held", webhook.InProgress)
	want(s, "the completing instance after Release, write held", webhook.AlreadyDone)
	for _, id := range []string{"msg_b", "msg_c"} { // queued behind the held write: one batch
		if err := s.Complete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	release()
	Flush(t, s)
	want(twin, "another instance, written", webhook.AlreadyDone)
	for _, id := range []string{"msg_b", "msg_c"} {
		if st, _, err := twin.Claim(ctx, id, time.Minute); err != nil || st != webhook.AlreadyDone {
			t.Fatalf("another instance, %s written in one batch: Claim = %v, %v; want already done", id, st, err)
		}
	}
}
