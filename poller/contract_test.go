package poller_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/internal/storetest"
	"github.com/podqa/podqa-go/poller"
)

// manualClock drives the MemoryStore's lease in its contract run.
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
	storetest.Poller(t, storetest.PollerHarness{
		New: func(*testing.T) poller.Store { return poller.NewMemoryStore(poller.WithLeaseClock(clock.Now)) },
		// Corrupt is nil: a MemoryStore holds decoded states only, so none can be corrupt.
		Elapse: func(_ *testing.T, d time.Duration) { clock.Advance(d) },
		Short:  time.Second,
	})
}

func TestFileStoreContract(t *testing.T) {
	t.Parallel()
	storetest.Poller(t, storetest.PollerHarness{
		New: func(t *testing.T) poller.Store {
			s, err := poller.NewFileStore(filepath.Join(t.TempDir(), "state.json"))
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		Corrupt: func(t *testing.T, s poller.Store, data []byte) {
			if err := os.WriteFile(s.(*poller.FileStore).Path(), data, 0o600); err != nil {
				t.Fatal(err)
			}
		},
	})
}

// TestMemoryStorePollers runs the three-poller proof on one in-process MemoryStore, with and
// without a poller dying mid-page.
func TestMemoryStorePollers(t *testing.T) {
	t.Parallel()
	for _, kill := range []bool{false, true} {
		t.Run(fmt.Sprint("kill=", kill), func(t *testing.T) {
			t.Parallel()
			s := poller.NewMemoryStore()
			storetest.Pollers(t, func(*testing.T) poller.LeaseStore { return s }, 300*time.Millisecond, 5000, kill)
		})
	}
}
