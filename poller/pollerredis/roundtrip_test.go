package pollerredis_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/podqa/podqa-go/internal/servicetest"
	"github.com/podqa/podqa-go/poller"
)

// countHook counts the commands sent, pipelines as one round trip each.
type countHook struct{ n atomic.Int64 }

func (h *countHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { h.n.Add(1); return next(ctx, cmd) }
}

func (h *countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { h.n.Add(1); return next(ctx, cmds) }
}

// TestOneRoundTrip: renewing the lease and a fenced save are one command each (a script
// already loaded on the server is run with one EVALSHA).
func TestOneRoundTrip(t *testing.T) {
	t.Parallel()
	rdb := servicetest.Redis(t)
	hook := &countHook{}
	rdb.AddHook(hook)
	s, _ := newStore(t, rdb)
	ctx := context.Background()
	st := poller.State{Watermark: "2026-01-05T09:00:00.000000+00:00"}
	l, err := s.AcquireLease(ctx, "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	// Load the scripts once (a server that never saw them answers NOSCRIPT first).
	if err := s.RenewLease(ctx, l, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveFenced(ctx, l, st); err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		"RenewLease": func() error { return s.RenewLease(ctx, l, time.Minute) },
		"SaveFenced": func() error { return s.SaveFenced(ctx, l, st) },
	} {
		before := hook.n.Load()
		if err := call(); err != nil {
			t.Fatal(err)
		}
		if n := hook.n.Load() - before; n != 1 {
			t.Errorf("%s took %d round trips, want 1", name, n)
		}
	}
}

func BenchmarkRenewLease(b *testing.B) {
	s, _ := newStore(b, servicetest.Redis(b))
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
	s, _ := newStore(b, servicetest.Redis(b))
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
