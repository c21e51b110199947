package poller_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/poller"
	"github.com/podqa/podqa-go/poller/pollertest"
)

func TestMemoryStoreContract(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	pollertest.TestStore(t, pollertest.Harness{
		New: func(*testing.T) poller.Store { return poller.NewMemoryLeaseStore(poller.WithLeaseClock(clock)) },
		// Corrupt is nil: a MemoryStore holds decoded states only, so none can be corrupt.
		Elapse: func(_ *testing.T, d time.Duration) { clock.Advance(d) },
		Short:  time.Second,
	})
}

func TestFileStoreContract(t *testing.T) {
	t.Parallel()
	pollertest.TestStore(t, pollertest.Harness{
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
