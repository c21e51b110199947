// Package pollerredis is a poller.LeaseStore on Redis (github.com/redis/go-redis/v9): pollers
// of one workspace running as several replicas share it, and exactly one of them polls at a
// time.
//
// Three keys under the prefix ("{podqa:poller}:" by default, WithKeyPrefix): state holds the
// state as poller.MarshalState's JSON document; lease is a hash (holder, token) that expires
// with the lease's TTL, on the server's clock (PEXPIRE), so the pollers' clocks never decide;
// token counts the leases ever granted and is the fencing token. Each operation is one round
// trip: AcquireLease, RenewLease, ReleaseLease and SaveFenced are each one Lua script (atomic on
// the server), Load one GET, Save one SET. Nothing needs creating beforehand.
//
// Run Redis with maxmemory-policy noeviction (its default). Under another policy, memory
// pressure may evict the lease, and another poller could take it while its holder still polls,
// until the holder's next renewal (a third of the TTL) finds it gone: the holder's saves are
// refused, but reports may be delivered twice. Without persistence a restart of Redis forgets
// the state: the pollers start again from WithStartWatermark or WithStartTime, or stop with
// poller.ErrNoWatermark without one.
//
// With Redis Cluster the three keys must share a slot: keep a hash tag ({…}) in the prefix, as
// the default does. A stored state that is not a valid document is an error wrapping
// poller.ErrCorruptState.
//
// The package is a module of its own (go get github.com/podqa/podqa-go/poller/pollerredis), so that
// only programs that use it have go-redis in their module graph.
package pollerredis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/podqa/podqa-go/poller"
)

// DefaultKeyPrefix is the prefix of the store's keys unless WithKeyPrefix says otherwise.
const DefaultKeyPrefix = "{podqa:poller}:"

var (
	// KEYS: lease, token counter. ARGV: holder, ttl in ms. Returns {1, token} when granted,
	// {0, pttl, holder} when held by another.
	acquireScript = redis.NewScript(`
local cur = redis.call('HMGET', KEYS[1], 'holder', 'token')
if cur[1] == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1, tonumber(cur[2])}
end
if cur[1] then
  return {0, redis.call('PTTL', KEYS[1]), cur[1]}
end
local t = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'holder', ARGV[1], 'token', t)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1, t}`)
	// KEYS: lease. ARGV: holder, token, ttl in ms.
	renewScript = redis.NewScript(`
local cur = redis.call('HMGET', KEYS[1], 'holder', 'token')
if cur[1] == ARGV[1] and cur[2] == ARGV[2] then return redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 0`)
	// KEYS: lease. ARGV: holder, token.
	releaseScript = redis.NewScript(`
local cur = redis.call('HMGET', KEYS[1], 'holder', 'token')
if cur[1] == ARGV[1] and cur[2] == ARGV[2] then return redis.call('DEL', KEYS[1]) end
return 0`)
	// KEYS: lease, state. ARGV: holder, token, document.
	saveScript = redis.NewScript(`
local cur = redis.call('HMGET', KEYS[1], 'holder', 'token')
if cur[1] == ARGV[1] and cur[2] == ARGV[2] then redis.call('SET', KEYS[2], ARGV[3]) return 1 end
return 0`)
)

// Store is a poller.LeaseStore in Redis. It is safe for concurrent use.
type Store struct {
	rdb                    redis.UniversalClient
	prefix                 string
	state, lease, tokenKey string
}

// Option configures New.
type Option func(*Store)

// WithKeyPrefix sets the prefix of the keys (DefaultKeyPrefix by default): one per workspace
// polled. It must not be empty.
func WithKeyPrefix(p string) Option { return func(s *Store) { s.prefix = p } }

// New returns a store on rdb, the application's own client; the store never closes it. It
// does not contact Redis.
func New(rdb redis.UniversalClient, opts ...Option) (*Store, error) {
	s := &Store{rdb: rdb, prefix: DefaultKeyPrefix}
	for _, o := range opts {
		o(s)
	}
	switch {
	case rdb == nil:
		return nil, fmt.Errorf("%w: pollerredis: nil client", poller.ErrInvalidOption)
	case s.prefix == "":
		return nil, fmt.Errorf("%w: pollerredis: empty key prefix", poller.ErrInvalidOption)
	}
	s.state, s.lease, s.tokenKey = s.prefix+"state", s.prefix+"lease", s.prefix+"token"
	return s, nil
}

// Load implements poller.Store.
func (s *Store) Load(ctx context.Context) (poller.State, error) {
	data, err := s.rdb.Get(ctx, s.state).Bytes()
	if errors.Is(err, redis.Nil) {
		return poller.State{}, nil
	}
	if err != nil {
		return poller.State{}, fmt.Errorf("pollerredis: load: %w", err)
	}
	st, err := poller.UnmarshalState(data)
	if err != nil {
		return poller.State{}, fmt.Errorf("pollerredis: key %s: %w", s.state, err)
	}
	return st, nil
}

// Save implements poller.Store, unfenced (a poller on this store saves with SaveFenced).
func (s *Store) Save(ctx context.Context, st poller.State) error {
	data, err := poller.MarshalState(st)
	if err != nil {
		return err
	}
	if err := s.rdb.Set(ctx, s.state, data, 0).Err(); err != nil {
		return fmt.Errorf("pollerredis: save: %w", err)
	}
	return nil
}

// AcquireLease implements poller.LeaseStore in one script call.
func (s *Store) AcquireLease(ctx context.Context, holder string, ttl time.Duration) (poller.Lease, error) {
	if ttl < time.Millisecond {
		return poller.Lease{}, fmt.Errorf("%w: pollerredis: lease TTL %v is under a millisecond", poller.ErrInvalidOption, ttl)
	}
	r, err := acquireScript.Run(ctx, s.rdb, []string{s.lease, s.tokenKey}, holder, ttl.Milliseconds()).Slice()
	if err != nil {
		return poller.Lease{}, fmt.Errorf("pollerredis: acquire the lease: %w", err)
	}
	ok, _ := r[0].(int64)
	n, _ := r[1].(int64)
	if ok == 1 {
		return poller.Lease{Holder: holder, Token: n}, nil
	}
	other, _ := r[2].(string)
	return poller.Lease{}, &poller.LeaseHeldError{Holder: other, Remaining: time.Duration(max(n, 0)) * time.Millisecond}
}

// RenewLease implements poller.LeaseStore in one script call.
func (s *Store) RenewLease(ctx context.Context, l poller.Lease, ttl time.Duration) error {
	// PEXPIRE with 0 would delete the lease and report it renewed.
	if ttl < time.Millisecond {
		return fmt.Errorf("%w: pollerredis: lease TTL %v is under a millisecond", poller.ErrInvalidOption, ttl)
	}
	n, err := renewScript.Run(ctx, s.rdb, []string{s.lease}, l.Holder, strconv.FormatInt(l.Token, 10), ttl.Milliseconds()).Int()
	if err != nil {
		return fmt.Errorf("pollerredis: renew the lease: %w", err)
	}
	if n != 1 {
		return poller.ErrLeaseLost
	}
	return nil
}

// ReleaseLease implements poller.LeaseStore in one script call.
func (s *Store) ReleaseLease(ctx context.Context, l poller.Lease) error {
	if err := releaseScript.Run(ctx, s.rdb, []string{s.lease}, l.Holder, strconv.FormatInt(l.Token, 10)).Err(); err != nil {
		return fmt.Errorf("pollerredis: release the lease: %w", err)
	}
	return nil
}

// SaveFenced implements poller.LeaseStore in one script call.
func (s *Store) SaveFenced(ctx context.Context, l poller.Lease, st poller.State) error {
	data, err := poller.MarshalState(st)
	if err != nil {
		return err
	}
	n, err := saveScript.Run(ctx, s.rdb, []string{s.lease, s.state}, l.Holder, strconv.FormatInt(l.Token, 10), data).Int()
	if err != nil {
		return fmt.Errorf("pollerredis: save: %w", err)
	}
	if n != 1 {
		return poller.ErrLeaseLost
	}
	return nil
}
