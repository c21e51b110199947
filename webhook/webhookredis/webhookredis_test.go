package webhookredis_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/podqa/podqa-go/internal/testkit/servicetest"
	"github.com/podqa/podqa-go/webhook"
	"github.com/podqa/podqa-go/webhook/webhookredis"
	"github.com/podqa/podqa-go/webhook/webhooktest"
)

func newStore(t testing.TB, rdb redis.UniversalClient, opts ...webhookredis.Option) *webhookredis.Store {
	t.Helper()
	s, err := webhookredis.New(rdb, append([]webhookredis.Option{webhookredis.WithKeyPrefix(servicetest.Name("podqa-test:") + ":")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestContract(t *testing.T) {
	t.Parallel()
	rdb := servicetest.Redis(t, redis.ParseURL, redis.NewClient)
	var twins sync.Map // store → its options, to open a twin on the same state
	webhooktest.TestDedupStore(t, webhooktest.Harness{
		New: func(t *testing.T, doneTTL time.Duration) webhook.DedupStore {
			opts := []webhookredis.Option{webhookredis.WithKeyPrefix(servicetest.Name("podqa-test:") + ":"), webhookredis.WithDoneTTL(doneTTL)}
			s := newStore(t, rdb, opts...)
			twins.Store(s, opts)
			return s
		},
		Twin: func(t *testing.T, s webhook.DedupStore) webhook.DedupStore {
			opts, _ := twins.Load(s)
			return newStore(t, rdb, opts.([]webhookredis.Option)...)
		},
		Elapse: func(t *testing.T, d time.Duration) { redisElapse(t, rdb, d) },
		Short:  300 * time.Millisecond,
	})
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never dialled
	defer rdb.Close()
	for name, tc := range map[string]struct {
		rdb  redis.UniversalClient
		opts []webhookredis.Option
	}{
		"nil client":   {nil, nil},
		"empty prefix": {rdb, []webhookredis.Option{webhookredis.WithKeyPrefix("")}},
		"zero TTL":     {rdb, []webhookredis.Option{webhookredis.WithDoneTTL(0)}},
	} {
		if s, err := webhookredis.New(tc.rdb, tc.opts...); !errors.Is(err, webhook.ErrInvalidOption) || s != nil {
			t.Errorf("%s: New = %v, %v", name, s, err)
		}
	}
}

// TestServerDown: a Redis that refuses connections is a clear error from every call.
func TestServerDown(t *testing.T) {
	t.Parallel()
	// One dial per command: go-redis would otherwise dial 5 times, 100 ms apart, by the wall clock.
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: time.Second, DialerRetries: 1})
	defer rdb.Close()
	hooked := make(chan error, 1)
	webhooktest.TestStoreDown(t, newStore(t, rdb, webhookredis.WithErrorHook(func(err error) {
		select {
		case hooked <- err:
		default:
		}
	})))
	if err := <-hooked; err == nil {
		t.Fatal("the error hook got nil")
	}
}

// TestForeignValue: a key under the prefix that is neither a claim nor a completion is an
// error, never read as free.
func TestForeignValue(t *testing.T) {
	t.Parallel()
	rdb := servicetest.Redis(t, redis.ParseURL, redis.NewClient)
	prefix := servicetest.Name("podqa-test:") + ":"
	s, err := webhookredis.New(rdb, webhookredis.WithKeyPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := rdb.Set(ctx, prefix+"msg", "something else", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if st, _, err := s.Claim(ctx, "msg", time.Minute); !errors.Is(err, webhook.ErrDedupStore) {
		t.Fatalf("Claim = %v, %v; want ErrDedupStore", st, err)
	}
}

// redisElapse returns once at least d has passed on the server's TIME: the TTLs under test are
// the server's.
func redisElapse(tb testing.TB, rdb redis.UniversalClient, d time.Duration) {
	tb.Helper()
	servicetest.Elapse(tb, d, func(ctx context.Context) (time.Time, error) {
		return rdb.Time(ctx).Result()
	}, func(ctx context.Context, d time.Duration) error {
		// WAIT for a replica that does not exist returns after its timeout, on the server.
		return rdb.Do(ctx, "WAIT", 1, max(d.Milliseconds(), 1)).Err()
	})
}
