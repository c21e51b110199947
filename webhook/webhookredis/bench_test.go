package webhookredis_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/podqa/podqa-go/internal/testkit/servicetest"
	"github.com/podqa/podqa-go/internal/testkit/storetest"
)

// BenchmarkClaimDuplicate is the Claim of a redelivery: of an id already done, and of one
// another instance holds.
func BenchmarkClaimDuplicate(b *testing.B) {
	b.Run("done", func(b *testing.B) {
		storetest.BenchClaimDuplicate(b, newStore(b, servicetest.Redis(b, redis.ParseURL, redis.NewClient)), true)
	})
	b.Run("held", func(b *testing.B) {
		storetest.BenchClaimDuplicate(b, newStore(b, servicetest.Redis(b, redis.ParseURL, redis.NewClient)), false)
	})
}

// BenchmarkClaimComplete is one delivery's de-duplication: Claim, then Complete.
func BenchmarkClaimComplete(b *testing.B) {
	storetest.BenchClaimComplete(b, newStore(b, servicetest.Redis(b, redis.ParseURL, redis.NewClient)))
}

// BenchmarkClaimCompleteParallel is BenchmarkClaimComplete from many goroutines at once.
func BenchmarkClaimCompleteParallel(b *testing.B) {
	storetest.BenchClaimCompleteParallel(b, newStore(b, servicetest.Redis(b, redis.ParseURL, redis.NewClient)))
}

// BenchmarkBareSetNXParallel is BenchmarkBareSetNX from as many goroutines.
func BenchmarkBareSetNXParallel(b *testing.B) {
	rdb := servicetest.Redis(b, redis.ParseURL, redis.NewClient)
	prefix := servicetest.Name("podqa-bench:") + ":"
	storetest.BenchParallel(b, func(ctx context.Context, id string) error {
		return rdb.SetNX(ctx, prefix+id, "d", time.Minute).Err()
	}, nil)
}

// BenchmarkClaim is Claim alone, to split BenchmarkClaimComplete.
func BenchmarkClaim(b *testing.B) {
	storetest.BenchClaim(b, newStore(b, servicetest.Redis(b, redis.ParseURL, redis.NewClient)))
}

// BenchmarkBareSetNX is the floor: one SET key value NX PX on the same server.
func BenchmarkBareSetNX(b *testing.B) { benchBareSetNX(b, 1) }

// BenchmarkBareSetNXTwice is two bare SET NX one after the other: the floor of any protocol
// that, like Claim then Complete, must hear the server between two steps.
func BenchmarkBareSetNXTwice(b *testing.B) { benchBareSetNX(b, 2) }

func benchBareSetNX(b *testing.B, times int) {
	rdb := servicetest.Redis(b, redis.ParseURL, redis.NewClient)
	prefix := servicetest.Name("podqa-bench:") + ":"
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		for range times {
			if err := rdb.SetNX(ctx, prefix+"msg_"+strconv.Itoa(i), "d", time.Minute).Err(); err != nil {
				b.Fatal(err)
			}
			i++
		}
	}
}
