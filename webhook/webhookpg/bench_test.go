package webhookpg_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/podqa/podqa-go/internal/servicetest"
	"github.com/podqa/podqa-go/internal/storetest"
)

// BenchmarkClaimComplete is one delivery's de-duplication: Claim, then Complete.
func BenchmarkClaimComplete(b *testing.B) {
	storetest.BenchClaimComplete(b, newStore(b, servicetest.Postgres(b)))
}

// BenchmarkBareInsert is the floor: one INSERT … ON CONFLICT DO NOTHING on the same server, into
// a table of the same shape.
func BenchmarkBareInsert(b *testing.B) {
	pool := servicetest.Postgres(b)
	ctx := context.Background()
	table := pgx.Identifier{servicetest.Name("podqa_bench_")}.Sanitize()
	if _, err := pool.Exec(ctx, `CREATE TABLE `+table+` (id text PRIMARY KEY, token text, expires_at timestamptz NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := pool.Exec(ctx, `INSERT INTO `+table+` (id, expires_at) VALUES ($1, clock_timestamp()) ON CONFLICT DO NOTHING`, "msg_"+strconv.Itoa(i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkClaim is Claim alone (committed asynchronously), to split BenchmarkClaimComplete.
func BenchmarkClaim(b *testing.B) {
	storetest.BenchClaim(b, newStore(b, servicetest.Postgres(b)))
}
