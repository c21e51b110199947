package webhookpg

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podqa/podqa-go/internal/testkit/servicetest"
	"github.com/podqa/podqa-go/internal/writebehind"
	"github.com/podqa/podqa-go/webhook/webhooktest"
)

// TestQueuedCompletion: between Complete and its write, this instance knows the id is done
// and keeps the claim from Release; another instance sees the claim.
func TestQueuedCompletion(t *testing.T) {
	t.Parallel()
	pool := servicetest.Postgres(t, pgxpool.New)
	ctx := context.Background()
	table := WithTable(servicetest.Name("podqa_test_"))
	s, err := New(ctx, pool, table)
	if err != nil {
		t.Fatal(err)
	}
	twin, err := New(ctx, pool, table)
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
