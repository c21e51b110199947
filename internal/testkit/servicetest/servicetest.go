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
	msg := env + " is not set; run against throwaway servers with: eval \"$(bash .ci/services start)\" && go test -race work"
	if os.Getenv("CI") == "true" {
		tb.Fatal(msg + " (CI=true: the shared-store proofs must run)")
	}
	tb.Skip(msg)
	return ""
}

// Postgres returns a pool on the test server made by open (pgxpool.New in a store's test),
// pinged, and closed when the test ends. It is generic so that this module does not require
// pgx: the stores that use it live in their own modules.
func Postgres[P interface {
	Ping(context.Context) error
	Close()
}](tb testing.TB, open func(ctx context.Context, url string) (P, error)) P {
	tb.Helper()
	pool, err := open(context.Background(), PostgresURL(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	if err := pool.Ping(context.Background()); err != nil {
		tb.Fatalf("%s: %v", PostgresEnv, err)
	}
	return pool
}

// Redis returns a client of the test server made by parse and newClient (redis.ParseURL and
// redis.NewClient in a store's test), pinged, and closed when the test ends. Like Postgres, it
// leaves go-redis to the stores' modules.
func Redis[Status interface{ Err() error }, Options any, Client interface {
	Ping(context.Context) Status
	Close() error
}](tb testing.TB, parse func(url string) (Options, error), newClient func(Options) Client) Client {
	tb.Helper()
	opt, err := parse(RedisURL(tb))
	if err != nil {
		tb.Fatalf("%s: %v", RedisEnv, err)
	}
	rdb := newClient(opt)
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

// Elapse returns once the server's clock is at least d past its value at the call: the TTLs
// under test are the server's, so only its clock can say they ran out. now reads the server's
// clock; wait blocks on the server for about the time given (PostgreSQL: pg_sleep; Redis:
// WAIT for a replica that does not exist, which returns after its timeout).
func Elapse(tb testing.TB, d time.Duration, now func(context.Context) (time.Time, error), wait func(context.Context, time.Duration) error) {
	tb.Helper()
	ctx := context.Background()
	start, err := now(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	for {
		at, err := now(ctx)
		if err != nil {
			tb.Fatal(err)
		}
		left := start.Add(d).Sub(at)
		if left < 0 {
			return
		}
		if err := wait(ctx, left+time.Millisecond); err != nil {
			tb.Fatal(err)
		}
	}
}
