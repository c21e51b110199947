package pollerproof_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/poller"
)

// TestLostLeaseIsFencedOut: a poller whose lease expired mid-poll and was taken by another
// saves nothing: its fenced save is refused, PollOnce reports ErrLeaseLost, the stored state is
// the other poller's, and its next poll reloads it.
func TestLostLeaseIsFencedOut(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ids := h.seedReports(time.Minute, time.Minute+time.Second)
	leaseClock := client.NewManualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	store := poller.NewMemoryLeaseStore(poller.WithLeaseClock(leaseClock))
	a := h.newPoller(store, poller.WithHolder("a"), poller.WithLeaseTTL(time.Minute))
	b := h.newPoller(store, poller.WithHolder("b"), poller.WithLeaseTTL(time.Minute))
	h.advance(2 * time.Minute)

	recA, recB := newRecorder(), newRecorder()
	var once sync.Once
	recA.fail = func(poller.Completion) error {
		once.Do(func() {
			// A stalls past its TTL; B takes the lease and polls everything.
			leaseClock.Advance(2 * time.Minute)
			if _, err := b.PollOnce(context.Background(), recB.handle); err != nil {
				t.Errorf("B's poll: %v", err)
			}
		})
		return nil
	}
	res, err := a.PollOnce(t.Context(), recA.handle)
	if !errors.Is(err, poller.ErrLeaseLost) || res.Watermark != res.Since {
		t.Fatalf("A's poll: %+v, %v; want ErrLeaseLost and the watermark kept", res, err)
	}
	recB.check(t, ids)
	st, _ := store.Load(t.Context())
	if st.Watermark == res.Since || len(st.Seen) == 0 {
		t.Fatalf("stored %+v: B's state was overwritten", st)
	}
	// A polls again under a new lease: it reloads B's state and delivers nothing new.
	recA.fail = nil
	before := len(recA.got)
	res, err = a.PollOnce(t.Context(), recA.handle)
	if err != nil || res.Delivered != 0 || len(recA.got) != before || res.Since != st.Watermark {
		t.Fatalf("A's next poll: %+v, %v", res, err)
	}
}

// failingLeases is a MemoryLeaseStore whose fenced saves fail while failing is set, as when the
// database is unreachable.
type failingLeases struct {
	*poller.MemoryLeaseStore
	mu      sync.Mutex
	failing bool
}

func (f *failingLeases) SaveFenced(ctx context.Context, l poller.Lease, st poller.State) error {
	f.mu.Lock()
	failing := f.failing
	f.mu.Unlock()
	if failing {
		return errors.New("dial tcp 127.0.0.1:5432: connection refused")
	}
	return f.MemoryLeaseStore.SaveFenced(ctx, l, st)
}

// TestStoreDownKeepsWatermark: with the store unreachable at save time the poll reports the
// error, the stored watermark stays, and the next poll starts from it again: nothing is lost
// (the reports of the failed poll come again).
func TestStoreDownKeepsWatermark(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ids := h.seedReports(time.Minute)
	store := &failingLeases{MemoryLeaseStore: poller.NewMemoryLeaseStore(), failing: true}
	p := h.newPoller(store)
	h.advance(2 * time.Minute)
	rec := newRecorder()
	res, err := p.PollOnce(t.Context(), rec.handle)
	if err == nil || res.Watermark != res.Since || res.Delivered != 1 {
		t.Fatalf("poll with the store down: %+v, %v", res, err)
	}
	if st, _ := store.Load(t.Context()); st.Watermark != "" {
		t.Fatalf("stored %+v with the store down", st)
	}
	store.mu.Lock()
	store.failing = false
	store.mu.Unlock()
	rec2 := newRecorder()
	res, err = p.PollOnce(t.Context(), rec2.handle)
	if err != nil || res.Delivered != 1 || res.Watermark == res.Since {
		t.Fatalf("poll after the store came back: %+v, %v", res, err)
	}
	rec2.check(t, ids)
}

// TestRunReleasesTheLease: a Run that returns gives the lease up, so another poller takes it at
// once instead of after the TTL; a Run that does not hold it waits.
func TestRunReleasesTheLease(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	store := poller.NewMemoryLeaseStore()
	a := h.newPoller(store, poller.WithHolder("a"), poller.WithIntervalUnbounded(time.Minute), poller.WithJitter(0))
	polled := make(chan struct{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	var once sync.Once
	// A pause after the first poll says A holds the lease; then stop A.
	h.clk.mu.Lock()
	h.clk.onSleep = func(int) { once.Do(func() { close(polled) }) }
	h.clk.mu.Unlock()
	go func() {
		done <- a.Run(ctx, newRecorder().handle)
	}()
	<-polled
	if _, err := store.AcquireLease(t.Context(), "b", time.Minute); !errors.Is(err, poller.ErrLeaseHeld) {
		t.Fatalf("B took the lease while A runs: %v", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v", err)
	}
	if _, err := store.AcquireLease(t.Context(), "b", time.Minute); err != nil {
		t.Fatalf("B cannot take the lease after A's Run returned: %v", err)
	}
}
