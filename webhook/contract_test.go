package webhook_test

import (
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/internal/storetest"
	"github.com/podqa/podqa-go/webhook"
)

// manualClock is a clock the memory store's contract run advances.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestMemoryStoreContract(t *testing.T) {
	t.Parallel()
	clock := &manualClock{now: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)}
	storetest.Dedup(t, storetest.DedupHarness{
		New: func(t *testing.T, doneTTL time.Duration) webhook.DedupStore {
			s, err := webhook.NewMemoryStore(webhook.WithDedupTTL(doneTTL), webhook.WithDedupClock(clock.Now))
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		Elapse: func(_ *testing.T, d time.Duration) { clock.Advance(d) },
		Short:  time.Second,
	})
}

// TestMemoryStoreReceivers runs the three-instance proof on one in-process MemoryStore.
func TestMemoryStoreReceivers(t *testing.T) {
	t.Parallel()
	s, err := webhook.NewMemoryStore()
	if err != nil {
		t.Fatal(err)
	}
	storetest.Receivers(t, s, 1000)
}
