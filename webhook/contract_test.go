package webhook_test

import (
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/webhook"
	"github.com/podqa/podqa-go/webhook/webhooktest"
)

func TestMemoryStoreContract(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	webhooktest.TestDedupStore(t, webhooktest.Harness{
		New: func(t *testing.T, doneTTL time.Duration) webhook.DedupStore {
			s, err := webhook.NewMemoryStore(webhook.WithDedupTTL(doneTTL), webhook.WithDedupClock(clock))
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		Elapse: func(_ *testing.T, d time.Duration) { clock.Advance(d) },
		Short:  time.Second,
		Twin:   func(_ *testing.T, s webhook.DedupStore) webhook.DedupStore { return s },
	})
}
