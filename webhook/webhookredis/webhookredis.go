// Package webhookredis is a webhook.DedupStore on Redis (github.com/redis/go-redis/v9), for
// receivers running as several instances behind a load balancer: give every instance's
// webhook.NewHandler the same store with webhook.WithDedupStore.
//
// One key per webhook-id, prefix+id (prefix "podqa:webhook:" by default), holds either a claim
// ("c:" and a random token) that expires after the claim TTL, or "d" once the callback succeeded,
// kept for the done TTL (webhook.DefaultDedupTTL, 30 hours, by default). Expiry is Redis's own
// (PX), measured on the server's clock, so the receivers' clocks never decide. Each call is one
// round trip or none:
//
//   - Claim is one SET key "c:<token>" NX PX ttl GET: nil means claimed, "d" already done,
//     anything else starting "c:" in progress elsewhere (Redis 7.0 or later, for NX with GET).
//   - Complete queues the id and returns at once: a goroutine writes the completions queued
//     meanwhile, SET key "d" PX doneTTL each, in one pipelined round trip. The sender's 200
//     does not wait for it; a duplicate reaching another instance meanwhile finds the claim
//     and is answered 409, to retry later. Flush waits for the queue: call it after the HTTP
//     server's Shutdown. A process that dies first loses only what a synchronous Complete
//     would have lost: the claims expire, and a later copy of those deliveries runs again.
//   - Release is one script that deletes the key only while it still holds the caller's token.
//
// The store knows only what Redis keeps. Without persistence a restart of Redis forgets every
// completion, and under an eviction policy other than noeviction (Redis's default) memory
// pressure may drop claims and completions; either way the next redelivery of an id already
// processed runs its callback again. Run it with append-only persistence (appendfsync everysec
// loses at most about a second) and maxmemory-policy noeviction.
//
// Nothing needs creating beforehand. A key holding anything else (written by another program
// under the same prefix) is an error wrapping webhook.ErrDedupStore, never read as free. With
// Redis Cluster each id's key lives on its own slot; nothing spans two keys.
//
// The package is a module of its own (go get github.com/podqa/podqa-go/webhook/webhookredis), so that
// only programs that use it have go-redis in their module graph.
package webhookredis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/podqa/podqa-go/internal/writebehind"
	"github.com/podqa/podqa-go/webhook"
)

// DefaultKeyPrefix is the prefix of the store's keys unless WithKeyPrefix says otherwise.
const DefaultKeyPrefix = "podqa:webhook:"

const (
	done        = "d"
	claimPrefix = "c:"
)

// releaseScript deletes KEYS[1] only while it holds ARGV[1] (the caller's claim).
var releaseScript = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)

// Store is a webhook.DedupStore in Redis. It is safe for concurrent use.
type Store struct {
	rdb     redis.UniversalClient
	prefix  string
	doneTTL time.Duration
	onError func(error)
	q       *writebehind.Queue
}

// Option configures New.
type Option func(*Store)

// WithKeyPrefix sets the prefix of every key (DefaultKeyPrefix by default), so that several
// endpoints or environments can share one Redis. It must not be empty.
func WithKeyPrefix(p string) Option { return func(s *Store) { s.prefix = p } }

// WithDoneTTL sets how long a completed id is remembered (webhook.DefaultDedupTTL by default);
// keep it above the sender's 28-hour retry ladder. It must be at least a millisecond.
func WithDoneTTL(d time.Duration) Option { return func(s *Store) { s.doneTTL = d } }

// WithErrorHook sets a function called with the error of each failed write of completions
// (from the goroutine that writes them; see Complete). Such errors are also returned by the
// next Flush.
func WithErrorHook(hook func(error)) Option { return func(s *Store) { s.onError = hook } }

// New returns a store on rdb, the application's own client (a *redis.Client, a cluster or
// failover client); the store never closes it. It does not contact Redis.
func New(rdb redis.UniversalClient, opts ...Option) (*Store, error) {
	s := &Store{rdb: rdb, prefix: DefaultKeyPrefix, doneTTL: webhook.DefaultDedupTTL}
	for _, o := range opts {
		o(s)
	}
	switch {
	case rdb == nil:
		return nil, fmt.Errorf("%w: webhookredis: nil client", webhook.ErrInvalidOption)
	case s.prefix == "":
		return nil, fmt.Errorf("%w: webhookredis: empty key prefix", webhook.ErrInvalidOption)
	case s.doneTTL < time.Millisecond:
		return nil, fmt.Errorf("%w: webhookredis: WithDoneTTL(%v) is under a millisecond", webhook.ErrInvalidOption, s.doneTTL)
	}
	s.q = writebehind.New(s.writeDone, s.onError, 0)
	return s, nil
}

// Claim implements webhook.DedupStore in one SET … NX PX … GET.
func (s *Store) Claim(ctx context.Context, id string, ttl time.Duration) (webhook.ClaimStatus, string, error) {
	if ttl < time.Millisecond {
		return 0, "", fmt.Errorf("%w: webhookredis: claim TTL %v is under a millisecond", webhook.ErrInvalidOption, ttl)
	}
	if s.q.Pending(id) {
		return webhook.AlreadyDone, "", nil
	}
	token := webhook.NewClaimToken()
	old, err := s.rdb.SetArgs(ctx, s.prefix+id, claimPrefix+token, redis.SetArgs{Mode: "NX", TTL: ttl, Get: true}).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return webhook.Claimed, token, nil
	case err != nil:
		return 0, "", fmt.Errorf("webhookredis: claim %q: %w", id, err)
	case old == done:
		return webhook.AlreadyDone, "", nil
	case strings.HasPrefix(old, claimPrefix):
		return webhook.InProgress, "", nil
	}
	return 0, "", fmt.Errorf("%w: webhookredis: key %q holds %q, neither a claim nor a completion", webhook.ErrDedupStore, s.prefix+id, truncate(old))
}

// Complete implements webhook.DedupStore. It queues the completion and returns: a goroutine
// writes the completions queued meanwhile, one SET … PX each, in one pipelined round trip. Until
// the write lands this store answers AlreadyDone for id, and other instances still see the claim
// it replaces (InProgress). Call Flush before the process exits. It waits only when more than
// 4,096 completions are pending, for ctx at most.
func (s *Store) Complete(ctx context.Context, id string) error {
	return s.q.Add(ctx, id)
}

// Flush waits until every completion queued before it is written, or for ctx, and returns the
// errors of the writes that failed since the previous Flush.
func (s *Store) Flush(ctx context.Context) error {
	return s.q.Flush(ctx)
}

func (s *Store) writeDone(ctx context.Context, ids []string) error {
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, id := range ids {
			p.Set(ctx, s.prefix+id, done, s.doneTTL)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("webhookredis: complete %d ids (%q first): %w", len(ids), ids[0], err)
	}
	return nil
}

// Release implements webhook.DedupStore in one script call. The completion of id, if queued,
// wins: the claim it replaces is left for it.
func (s *Store) Release(ctx context.Context, id, token string) error {
	if s.q.Pending(id) {
		return nil
	}
	if err := releaseScript.Run(ctx, s.rdb, []string{s.prefix + id}, claimPrefix+token).Err(); err != nil {
		return fmt.Errorf("webhookredis: release %q: %w", id, err)
	}
	return nil
}

func truncate(v string) string {
	if len(v) > 40 {
		return v[:40] + "…"
	}
	return v
}
