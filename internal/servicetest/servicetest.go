// Package servicetest gives tests the PostgreSQL and Redis servers the shared stores are proven
// against. The servers are named by PODQA_TEST_POSTGRES_URL and PODQA_TEST_REDIS_URL; bash
// .ci/services start runs throwaway ones on loopback and prints the variables. Without a
// variable a test skips and says how to run it, except under CI=true, where it fails: CI must
// never pass by skipping the proofs.
package servicetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
)

// Variables naming the servers.
const (
	PostgresEnv = "PODQA_TEST_POSTGRES_URL"
	RedisEnv    = "PODQA_TEST_REDIS_URL"
)

// PostgresURL returns the test PostgreSQL URL, or skips (fails under CI=true) without one.
func PostgresURL(tb testing.TB) string { tb.Helper(); return url(tb, PostgresEnv) }

// RedisURL returns the test Redis URL, or skips (fails under CI=true) without one.
func RedisURL(tb testing.TB) string { tb.Helper(); return url(tb, RedisEnv) }

func url(tb testing.TB, env string) string {
	tb.Helper()
	if u := os.Getenv(env); u != "" {
		return u
	}
	msg := env + " is not set; run against throwaway servers with: eval \"$(bash .ci/services start)\" && go test -race ./webhook/... ./poller/..."
	if os.Getenv("CI") == "true" {
		tb.Fatal(msg + " (CI=true: the shared-store proofs must run)")
	}
	tb.Skip(msg)
	return ""
}

// Postgres returns a pool on the test server, closed when the test ends.
func Postgres(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	pool, err := pgxpool.New(context.Background(), PostgresURL(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	if err := pool.Ping(context.Background()); err != nil {
		tb.Fatalf("%s: %v", PostgresEnv, err)
	}
	return pool
}

// Redis returns a client of the test server, closed when the test ends.
func Redis(tb testing.TB) *redis.Client {
	tb.Helper()
	opt, err := redis.ParseURL(RedisURL(tb))
	if err != nil {
		tb.Fatalf("%s: %v", RedisEnv, err)
	}
	rdb := redis.NewClient(opt)
	tb.Cleanup(func() { _ = rdb.Close() })
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		tb.Fatalf("%s: %v", RedisEnv, err)
	}
	return rdb
}

// Name returns a fresh name for a test's table or key prefix, so that tests sharing a server
// never see each other's rows.
func Name(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// PostgresElapse returns once the server's clock_timestamp() is at least d past its value at
// the call: the TTLs under test are the server's, so only its clock can say they ran out.
func PostgresElapse(tb testing.TB, pool *pgxpool.Pool, d time.Duration) {
	tb.Helper()
	ctx := context.Background()
	var start time.Time
	if err := pool.QueryRow(ctx, `SELECT clock_timestamp()`).Scan(&start); err != nil {
		tb.Fatal(err)
	}
	// The server sleeps until the instant, then the loop confirms it on the server's clock.
	for {
		var left float64
		if err := pool.QueryRow(ctx, `SELECT extract(epoch FROM ($1::timestamptz - clock_timestamp()))`, start.Add(d)).Scan(&left); err != nil {
			tb.Fatal(err)
		}
		if left < 0 {
			return
		}
		if _, err := pool.Exec(ctx, `SELECT pg_sleep($1)`, left+0.001); err != nil {
			tb.Fatal(err)
		}
	}
}

// RedisElapse returns once the server's TIME is at least d past its value at the call.
func RedisElapse(tb testing.TB, rdb redis.UniversalClient, d time.Duration) {
	tb.Helper()
	ctx := context.Background()
	start, err := rdb.Time(ctx).Result()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		now, err := rdb.Time(ctx).Result()
		if err != nil {
			tb.Fatal(err)
		}
		left := start.Add(d).Sub(now)
		if left < 0 {
			return
		}
		// Block on the server for the time left: WAIT for a replica that does not exist
		// returns after its timeout, on the server's clock.
		if err := rdb.Do(ctx, "WAIT", 1, left.Milliseconds()+1).Err(); err != nil {
			tb.Fatal(err)
		}
	}
}
