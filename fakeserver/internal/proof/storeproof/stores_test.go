package storeproof_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/podqa/podqa-go/fakeserver/internal/proof/storeproof"
	"github.com/podqa/podqa-go/internal/testkit/servicetest"
	"github.com/podqa/podqa-go/poller"
	"github.com/podqa/podqa-go/poller/pollerpg"
	"github.com/podqa/podqa-go/poller/pollerredis"
	"github.com/podqa/podqa-go/webhook"
	"github.com/podqa/podqa-go/webhook/webhookpg"
	"github.com/podqa/podqa-go/webhook/webhookredis"
)

// The proofs that every DedupStore and LeaseStore holds against the fake: each store behind
// three receivers or three pollers (see Receivers and Pollers).

// TestMemoryStoreReceivers runs the three-instance proof on one in-process MemoryStore.
func TestMemoryStoreReceivers(t *testing.T) {
	t.Parallel()
	s, err := webhook.NewMemoryStore()
	if err != nil {
		t.Fatal(err)
	}
	storeproof.Receivers(t, func(*testing.T) webhook.DedupStore { return s }, 1000)
}

// TestPostgresReceivers: three receivers, each with its own store on one table, behind a
// duplicating front.
func TestPostgresReceivers(t *testing.T) {
	t.Parallel()
	pool := servicetest.Postgres(t, pgxpool.New)
	table := webhookpg.WithTable(servicetest.Name("podqa_test_"))
	storeproof.Receivers(t, func(t *testing.T) webhook.DedupStore {
		s, err := webhookpg.New(context.Background(), pool, table)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, 1000)
}

// TestRedisReceivers: three receivers, each with its own store on one key prefix, behind a
// duplicating front.
func TestRedisReceivers(t *testing.T) {
	t.Parallel()
	rdb := servicetest.Redis(t, redis.ParseURL, redis.NewClient)
	prefix := webhookredis.WithKeyPrefix(servicetest.Name("podqa-test:") + ":")
	storeproof.Receivers(t, func(t *testing.T) webhook.DedupStore {
		s, err := webhookredis.New(rdb, prefix)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, 1000)
}

// TestPollers: three pollers on one store of each kind against the fake with 5,000 reports,
// with and without the lease holder dying mid-page.
func TestPollers(t *testing.T) {
	t.Parallel()
	stores := []struct {
		name string
		// open returns the opener of the case's store, named for the case.
		open func(t *testing.T, name string) func(t *testing.T) poller.LeaseStore
	}{
		{"memory", func(t *testing.T, _ string) func(t *testing.T) poller.LeaseStore {
			s := poller.NewMemoryLeaseStore()
			return func(*testing.T) poller.LeaseStore { return s }
		}},
		{"postgres", func(t *testing.T, name string) func(t *testing.T) poller.LeaseStore {
			pool := servicetest.Postgres(t, pgxpool.New)
			table := servicetest.Name("podqa_test_")
			return func(t *testing.T) poller.LeaseStore {
				s, err := pollerpg.New(context.Background(), pool, pollerpg.WithTable(table), pollerpg.WithName(name))
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
		}},
		{"redis", func(t *testing.T, _ string) func(t *testing.T) poller.LeaseStore {
			rdb := servicetest.Redis(t, redis.ParseURL, redis.NewClient)
			prefix := "{" + servicetest.Name("podqa-test:") + "}:"
			return func(t *testing.T) poller.LeaseStore {
				s, err := pollerredis.New(rdb, pollerredis.WithKeyPrefix(prefix))
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
		}},
	}
	for _, st := range stores {
		for _, kill := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/kill=%v", st.name, kill), func(t *testing.T) {
				t.Parallel()
				storeproof.Pollers(t, st.open(t, fmt.Sprint("kill-", kill)), storeproof.PollersTTL, 5000, kill)
			})
		}
	}
}
