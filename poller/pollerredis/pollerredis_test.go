package pollerredis_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/podqa/podqa-go/internal/testkit/servicetest"
	"github.com/podqa/podqa-go/poller"
	"github.com/podqa/podqa-go/poller/pollerredis"
	"github.com/podqa/podqa-go/poller/pollertest"
)

func newStore(t testing.TB, rdb redis.UniversalClient) (*pollerredis.Store, string) {
	t.Helper()
	prefix := "{" + servicetest.Name("podqa-test:") + "}:"
	s, err := pollerredis.New(rdb, pollerredis.WithKeyPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	return s, prefix
}

func TestContract(t *testing.T) {
	t.Parallel()
	rdb := servicetest.Redis(t, redis.ParseURL, redis.NewClient)
	prefixes := map[poller.Store]string{}
	pollertest.TestStore(t, pollertest.Harness{
		New: func(t *testing.T) poller.Store {
			s, p := newStore(t, rdb)
			prefixes[s] = p
			return s
		},
		Corrupt: func(t *testing.T, s poller.Store, data []byte) {
			if err := rdb.Set(context.Background(), prefixes[s]+"state", data, 0).Err(); err != nil {
				t.Fatal(err)
			}
		},
		Elapse: func(t *testing.T, d time.Duration) { redisElapse(t, rdb, d) },
		Short:  300 * time.Millisecond,
	})
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never dialled
	defer rdb.Close()
	if s, err := pollerredis.New(nil); !errors.Is(err, poller.ErrInvalidOption) || s != nil {
		t.Errorf("nil client: %v, %v", s, err)
	}
	if s, err := pollerredis.New(rdb, pollerredis.WithKeyPrefix("")); !errors.Is(err, poller.ErrInvalidOption) || s != nil {
		t.Errorf("empty prefix: %v, %v", s, err)
	}
}

// TestServerDown: every call is a clear error with Redis unreachable.
func TestServerDown(t *testing.T) {
	t.Parallel()
	// One dial per command: go-redis would otherwise dial 5 times, 100 ms apart, by the wall clock.
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: time.Second, DialerRetries: 1})
	defer rdb.Close()
	s, _ := newStore(t, rdb)
	pollertest.TestStoreDown(t, s)
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
