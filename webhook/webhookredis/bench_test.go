package webhookredis_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/podqa/podqa-go/internal/servicetest"
	"github.com/podqa/podqa-go/internal/storetest"
)

// BenchmarkClaimComplete is one delivery's de-duplication: Claim, then Complete.
func BenchmarkClaimComplete(b *testing.B) {
	storetest.BenchClaimComplete(b, newStore(b, servicetest.Redis(b)))
}

// BenchmarkClaim is Claim alone, to split BenchmarkClaimComplete.
func BenchmarkClaim(b *testing.B) {
	storetest.BenchClaim(b, newStore(b, servicetest.Redis(b)))
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
