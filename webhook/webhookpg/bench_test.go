package webhookpg_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podqa/podqa-go/internal/testkit/servicetest"
	"github.com/podqa/podqa-go/internal/testkit/storetest"
)

// BenchmarkClaimDuplicate is the Claim of a redelivery: of an id already done, and of one
// another instance holds.
func BenchmarkClaimDuplicate(b *testing.B) {
	b.Run("done", func(b *testing.B) {
		storetest.BenchClaimDuplicate(b, newStore(b, servicetest.Postgres(b, pgxpool.New)), true)
	})
	b.Run("held", func(b *testing.B) {
		storetest.BenchClaimDuplicate(b, newStore(b, servicetest.Postgres(b, pgxpool.New)), false)
	})
}

// BenchmarkClaimComplete is one delivery's de-duplication: Claim, then Complete.
func BenchmarkClaimComplete(b *testing.B) {
	storetest.BenchClaimComplete(b, newStore(b, servicetest.Postgres(b, pgxpool.New)))
}

// BenchmarkBareInsert is the floor: one INSERT … ON CONFLICT DO NOTHING on the same
// server, into a table of the same shape, committed as the server is configured (synchronously).
func BenchmarkBareInsert(b *testing.B) { benchBareInserts(b, false) }

// BenchmarkBareInsertPair is the floor of a claim then a durable completion: one bare INSERT
// committed asynchronously (as Claim commits), then one committed synchronously.
func BenchmarkBareInsertPair(b *testing.B) { benchBareInserts(b, true) }

func benchBareInserts(b *testing.B, pair bool) {
	pool := servicetest.Postgres(b, pgxpool.New)
	ctx := context.Background()
	table := pgx.Identifier{servicetest.Name("podqa_bench_")}.Sanitize()
	if _, err := pool.Exec(ctx, `CREATE TABLE `+table+` (id text PRIMARY KEY, token text, expires_at timestamptz NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	insert := `INSERT INTO ` + table + ` (id, expires_at) VALUES ($1, clock_timestamp()) ON CONFLICT DO NOTHING`
	insertAsync := `WITH cfg AS (SELECT set_config('synchronous_commit', 'off', true) AS v)
INSERT INTO ` + table + ` (id, expires_at) SELECT $1, clock_timestamp() FROM cfg ON CONFLICT DO NOTHING`
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if pair {
			if _, err := pool.Exec(ctx, insertAsync, "msg_"+strconv.Itoa(i)); err != nil {
				b.Fatal(err)
			}
			i++
		}
		if _, err := pool.Exec(ctx, insert, "msg_"+strconv.Itoa(i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkClaimCompleteParallel is BenchmarkClaimComplete from many goroutines at once.
func BenchmarkClaimCompleteParallel(b *testing.B) {
	storetest.BenchClaimCompleteParallel(b, newStore(b, servicetest.Postgres(b, pgxpool.New)))
}

// BenchmarkBareInsertParallel is BenchmarkBareInsert from as many goroutines.
func BenchmarkBareInsertParallel(b *testing.B) {
	pool := servicetest.Postgres(b, pgxpool.New)
	table := pgx.Identifier{servicetest.Name("podqa_bench_")}.Sanitize()
	if _, err := pool.Exec(context.Background(), `CREATE TABLE `+table+` (id text PRIMARY KEY, token text, expires_at timestamptz NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	insert := `INSERT INTO ` + table + ` (id, expires_at) VALUES ($1, clock_timestamp()) ON CONFLICT DO NOTHING`
	storetest.BenchParallel(b, func(ctx context.Context, id string) error {
		_, err := pool.Exec(ctx, insert, id)
		return err
	}, nil)
}

// BenchmarkClaim is Claim alone (committed asynchronously), to split BenchmarkClaimComplete.
func BenchmarkClaim(b *testing.B) {
	storetest.BenchClaim(b, newStore(b, servicetest.Postgres(b, pgxpool.New)))
}
