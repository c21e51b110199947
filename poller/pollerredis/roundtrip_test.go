package pollerredis_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/podqa/podqa-go/internal/testkit/servicetest"
	"github.com/podqa/podqa-go/internal/testkit/storetest"
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
	rdb := servicetest.Redis(t, redis.ParseURL, redis.NewClient)
	hook := &countHook{}
	rdb.AddHook(hook)
	s, _ := newStore(t, rdb)
	storetest.OneRoundTrip(t, s, hook.n.Load)
}

func BenchmarkRenewLease(b *testing.B) {
	s, _ := newStore(b, servicetest.Redis(b, redis.ParseURL, redis.NewClient))
	storetest.BenchLease(b, s, false)
}

func BenchmarkSaveFenced(b *testing.B) {
	s, _ := newStore(b, servicetest.Redis(b, redis.ParseURL, redis.NewClient))
	storetest.BenchLease(b, s, true)
}
