package pollerpg_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podqa/podqa-go/internal/testkit/servicetest"
	"github.com/podqa/podqa-go/internal/testkit/storetest"
	"github.com/podqa/podqa-go/poller/pollerpg"
)

// countTracer counts the statements sent.
type countTracer struct{ n atomic.Int64 }

func (c *countTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *countTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func newTracedStore(tb testing.TB) (*pollerpg.Store, *countTracer) {
	tb.Helper()
	cfg, err := pgxpool.ParseConfig(servicetest.PostgresURL(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tracer := &countTracer{}
	cfg.ConnConfig.Tracer = tracer
	cfg.MaxConns = 1 // one connection: its statements are prepared once
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	s, err := pollerpg.New(context.Background(), pool, pollerpg.WithTable(servicetest.Name("podqa_test_")))
	if err != nil {
		tb.Fatal(err)
	}
	return s, tracer
}

// TestOneRoundTrip: renewing the lease and a fenced save are one statement each (prepared
// once per connection, then one Bind/Execute/Sync exchange).
func TestOneRoundTrip(t *testing.T) {
	t.Parallel()
	s, tracer := newTracedStore(t)
	storetest.OneRoundTrip(t, s, tracer.n.Load)
}

func BenchmarkRenewLease(b *testing.B) {
	s, _ := newTracedStore(b)
	storetest.BenchLease(b, s, false)
}

func BenchmarkSaveFenced(b *testing.B) {
	s, _ := newTracedStore(b)
	storetest.BenchLease(b, s, true)
}
