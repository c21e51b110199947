package webhookredis_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/podqa/podqa-go/internal/servicetest"
	"github.com/podqa/podqa-go/webhook"
)

// BenchmarkClaimComplete is one delivery's de-duplication: Claim, then Complete.
func BenchmarkClaimComplete(b *testing.B) {
	rdb := servicetest.Redis(b)
	s := newStore(&testing.T{}, rdb)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		id := "msg_" + strconv.Itoa(i)
		i++
		if st, _, err := s.Claim(ctx, id, time.Minute); err != nil || st != webhook.Claimed {
			b.Fatal(st, err)
		}
		if err := s.Complete(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBareSetNX is the floor: one SET key value NX PX on the same server.
func BenchmarkBareSetNX(b *testing.B) {
	rdb := servicetest.Redis(b)
	prefix := servicetest.Name("podqa-bench:") + ":"
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := rdb.SetNX(ctx, prefix+"msg_"+strconv.Itoa(i), "d", time.Minute).Err(); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
