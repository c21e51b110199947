package pollerpg_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podqa/podqa-go/internal/servicetest"
	"github.com/podqa/podqa-go/poller"
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
	ctx := context.Background()
	st := poller.State{Watermark: "2026-01-05T09:00:00.000000+00:00"}
	l, err := s.AcquireLease(ctx, "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		"RenewLease": func() error { return s.RenewLease(ctx, l, time.Minute) },
		"SaveFenced": func() error { return s.SaveFenced(ctx, l, st) },
	} {
		before := tracer.n.Load()
		if err := call(); err != nil {
			t.Fatal(err)
		}
		if n := tracer.n.Load() - before; n != 1 {
			t.Errorf("%s sent %d statements, want 1", name, n)
		}
	}
}

func BenchmarkRenewLease(b *testing.B) {
	s, _ := newTracedStore(b)
	ctx := context.Background()
	l, err := s.AcquireLease(ctx, "a", time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.RenewLease(ctx, l, time.Minute); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSaveFenced(b *testing.B) {
	s, _ := newTracedStore(b)
	ctx := context.Background()
	l, err := s.AcquireLease(ctx, "a", time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	st := poller.State{Watermark: "2026-01-05T09:00:00.000000+00:00"}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.SaveFenced(ctx, l, st); err != nil {
			b.Fatal(err)
		}
	}
}
