//go:build stores

package main

// The shared de-duplication stores, built in with -tags stores only, so that a plain build of
// the receiver compiles neither pgx nor go-redis.

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/podqa/podqa-go/webhook/webhookpg"
	"github.com/podqa/podqa-go/webhook/webhookredis"
)

// dialDedup connects to the store a -dedup-url names; the func closes the connections.
func dialDedup(ctx context.Context, url string) (sharedStore, func(), error) {
	switch {
	case strings.HasPrefix(url, "redis://"), strings.HasPrefix(url, "rediss://"):
		opt, err := redis.ParseURL(url)
		if err != nil {
			return nil, nil, fmt.Errorf("-dedup-url: %w", err)
		}
		rdb := redis.NewClient(opt)
		// The client connects lazily: ask now, so that a wrong URL stops the program here
		// rather than failing every delivery with 500.
		if err := rdb.Ping(ctx).Err(); err != nil {
			rdb.Close()
			return nil, nil, fmt.Errorf("-dedup-url: %w", err)
		}
		s, err := webhookredis.New(rdb)
		if err != nil {
			rdb.Close()
			return nil, nil, err
		}
		return s, func() { rdb.Close() }, nil
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			return nil, nil, fmt.Errorf("-dedup-url: %w", err)
		}
		s, err := webhookpg.New(ctx, pool) // creates the table if needed
		if err != nil {
			pool.Close()
			return nil, nil, err
		}
		return s, pool.Close, nil
	}
	return nil, nil, fmt.Errorf("-dedup-url %q: want a redis://, rediss://, postgres:// or postgresql:// URL", url)
}
