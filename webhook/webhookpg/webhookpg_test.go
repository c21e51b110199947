package webhookpg_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podqa/podqa-go/internal/testkit/servicetest"
	"github.com/podqa/podqa-go/webhook"
	"github.com/podqa/podqa-go/webhook/webhookpg"
	"github.com/podqa/podqa-go/webhook/webhooktest"
)

func newStore(t testing.TB, pool *pgxpool.Pool, opts ...webhookpg.Option) *webhookpg.Store {
	t.Helper()
	s, err := webhookpg.New(context.Background(), pool, append([]webhookpg.Option{webhookpg.WithTable(servicetest.Name("podqa_test_"))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestContract(t *testing.T) {
	t.Parallel()
	pool := servicetest.Postgres(t, pgxpool.New)
	var twins sync.Map // store → its options, to open a twin on the same state
	webhooktest.TestDedupStore(t, webhooktest.Harness{
		New: func(t *testing.T, doneTTL time.Duration) webhook.DedupStore {
			opts := []webhookpg.Option{webhookpg.WithTable(servicetest.Name("podqa_test_")), webhookpg.WithDoneTTL(doneTTL)}
			s := newStore(t, pool, opts...)
			twins.Store(s, opts)
			return s
		},
		Twin: func(t *testing.T, s webhook.DedupStore) webhook.DedupStore {
			opts, _ := twins.Load(s)
			return newStore(t, pool, opts.([]webhookpg.Option)...)
		},
		Elapse: func(t *testing.T, d time.Duration) { postgresElapse(t, pool, d) },
		Short:  300 * time.Millisecond,
	})
}

// TestCreateConcurrently: instances starting together all create the same table without error,
// and a schema-qualified name works.
func TestCreateConcurrently(t *testing.T) {
	t.Parallel()
	pool := servicetest.Postgres(t, pgxpool.New)
	ctx := context.Background()
	schema := servicetest.Name("podqa_schema_")
	if _, err := pool.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	table := schema + ".dedup"
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			if _, err := webhookpg.New(ctx, pool, webhookpg.WithTable(table)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	s, err := webhookpg.New(ctx, pool, webhookpg.WithTable(table), webhookpg.WithDoneTTL(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Complete(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	postgresElapse(t, pool, 2*time.Millisecond)
	if n, err := s.Sweep(ctx); err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1 expired row deleted", n, err)
	}
}

// TestServerDown: a store whose server went away fails every call clearly, and a Handler on it
// answers 500.
func TestServerDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := servicetest.PostgresURL(t)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	hooked := make(chan error, 1)
	s := newStore(t, pool, webhookpg.WithErrorHook(func(err error) {
		select {
		case hooked <- err:
		default:
		}
	}))
	pool.Close() // the store's pool is gone: every call fails as with the server down
	webhooktest.TestStoreDown(t, s)
	if err := <-hooked; err == nil {
		t.Fatal("the error hook got nil")
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if s, err := webhookpg.New(ctx, nil); !errors.Is(err, webhook.ErrInvalidOption) || s != nil {
		t.Errorf("nil pool: %v, %v", s, err)
	}
	pool, err := pgxpool.New(ctx, "postgres://nobody@127.0.0.1:1/none?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for name, opt := range map[string]webhookpg.Option{"empty table": webhookpg.WithTable(" "), "zero TTL": webhookpg.WithDoneTTL(0)} {
		if s, err := webhookpg.New(ctx, pool, opt); !errors.Is(err, webhook.ErrInvalidOption) || s != nil {
			t.Errorf("%s: %v, %v", name, s, err)
		}
	}
	// The server down: a clear error, not a store.
	if s, err := webhookpg.New(ctx, pool); err == nil || s != nil {
		t.Errorf("server down: %v, %v", s, err)
	}
}

// postgresElapse returns once at least d has passed on the server's clock_timestamp(): the
// TTLs under test are the server's.
func postgresElapse(tb testing.TB, pool *pgxpool.Pool, d time.Duration) {
	tb.Helper()
	servicetest.Elapse(tb, d, func(ctx context.Context) (now time.Time, err error) {
		err = pool.QueryRow(ctx, `SELECT clock_timestamp()`).Scan(&now)
		return now, err
	}, func(ctx context.Context, d time.Duration) error {
		_, err := pool.Exec(ctx, `SELECT pg_sleep($1)`, d.Seconds())
		return err
	})
}
