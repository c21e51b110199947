package pollerpg_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podqa/podqa-go/internal/testkit/servicetest"
	"github.com/podqa/podqa-go/poller"
	"github.com/podqa/podqa-go/poller/pollerpg"
	"github.com/podqa/podqa-go/poller/pollertest"
)

func TestContract(t *testing.T) {
	t.Parallel()
	pool := servicetest.Postgres(t, pgxpool.New)
	ctx := context.Background()
	table := servicetest.Name("podqa_test_")
	names := map[poller.Store]string{}
	pollertest.TestStore(t, pollertest.Harness{
		New: func(t *testing.T) poller.Store {
			name := servicetest.Name("p")
			s, err := pollerpg.New(ctx, pool, pollerpg.WithTable(table), pollerpg.WithName(name))
			if err != nil {
				t.Fatal(err)
			}
			names[s] = name
			return s
		},
		Corrupt: func(t *testing.T, s poller.Store, data []byte) {
			// Text cannot hold a NUL byte; store the rest as it is.
			text := string(data)
			if text == "\x00\xff" {
				text = "\ufffd"
			}
			if _, err := pool.Exec(ctx, `INSERT INTO `+pgx.Identifier{table}.Sanitize()+` (name, state) VALUES ($1, $2)
ON CONFLICT (name) DO UPDATE SET state = EXCLUDED.state`, names[s], text); err != nil {
				t.Fatal(err)
			}
		},
		Elapse: func(t *testing.T, d time.Duration) { postgresElapse(t, pool, d) },
		Short:  300 * time.Millisecond,
	})
}

// TestServerDown: with the pool gone (as with the server down) every call is a clear error,
// never a lease answer.
func TestServerDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, servicetest.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pollerpg.New(ctx, pool, pollerpg.WithTable(servicetest.Name("podqa_test_")))
	if err != nil {
		t.Fatal(err)
	}
	pool.Close()
	pollertest.TestStoreDown(t, s)
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if s, err := pollerpg.New(ctx, nil); !errors.Is(err, poller.ErrInvalidOption) || s != nil {
		t.Errorf("nil pool: %v, %v", s, err)
	}
	pool, err := pgxpool.New(ctx, "postgres://nobody@127.0.0.1:1/none?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for name, opt := range map[string]pollerpg.Option{"empty table": pollerpg.WithTable(""), "empty name": pollerpg.WithName("")} {
		if s, err := pollerpg.New(ctx, pool, opt); !errors.Is(err, poller.ErrInvalidOption) || s != nil {
			t.Errorf("%s: %v, %v", name, s, err)
		}
	}
	if s, err := pollerpg.New(ctx, pool); err == nil || s != nil {
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
