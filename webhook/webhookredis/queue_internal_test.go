package webhookredis

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/podqa/podqa-go/internal/testkit/servicetest"
	"github.com/podqa/podqa-go/internal/writebehind"
	"github.com/podqa/podqa-go/webhook/webhooktest"
)

// TestQueuedCompletion: between Complete and its write, this instance knows the id is done
// and keeps the claim from Release; another instance sees the claim.
func TestQueuedCompletion(t *testing.T) {
	t.Parallel()
	rdb := servicetest.Redis(t, redis.ParseURL, redis.NewClient)
	prefix := WithKeyPrefix(servicetest.Name("podqa-test:") + ":")
	s, err := New(rdb, prefix)
	if err != nil {
		t.Fatal(err)
	}
	twin, err := New(rdb, prefix)
	if err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	s.q = writebehind.New(func(ctx context.Context, ids []string) error {
		<-gate
		return s.writeDone(ctx, ids)
	}, nil, 0)
	webhooktest.TestQueuedCompletion(t, s, twin, func() { close(gate) })
}
