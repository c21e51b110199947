package webhooktest_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/webhook"
	"github.com/podqa/podqa-go/webhook/webhooktest"
)

// mapStore is a custom webhook.DedupStore: ids in a map under a lock, on a clock the test
// moves. (It never forgets an expired id; a real store would sweep them.)
type mapStore struct {
	doneTTL time.Duration
	now     func() time.Time

	mu  sync.Mutex
	ids map[string]entry
}

type entry struct {
	token   string // empty once done
	expires time.Time
}

func newMapStore(doneTTL time.Duration, now func() time.Time) *mapStore {
	return &mapStore{doneTTL: doneTTL, now: now, ids: map[string]entry{}}
}

func (s *mapStore) Claim(_ context.Context, id string, ttl time.Duration) (webhook.ClaimStatus, string, error) {
	if ttl <= 0 {
		return 0, "", errors.New("mapStore: a claim needs a positive TTL")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if e, ok := s.ids[id]; ok && now.Before(e.expires) {
		if e.token == "" {
			return webhook.AlreadyDone, "", nil
		}
		return webhook.InProgress, "", nil
	}
	tok := webhook.NewClaimToken()
	s.ids[id] = entry{token: tok, expires: now.Add(ttl)}
	return webhook.Claimed, tok, nil
}

func (s *mapStore) Complete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids[id] = entry{expires: s.now().Add(s.doneTTL)}
	return nil
}

func (s *mapStore) Release(_ context.Context, id, token string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.ids[id]; ok && e.token != "" && e.token == token {
		delete(s.ids, id)
	}
	return nil
}

// TestMapStore is the custom store's contract test: the same table the SDK's own stores pass.
func TestMapStore(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	webhooktest.TestDedupStore(t, webhooktest.Harness{
		New: func(_ *testing.T, doneTTL time.Duration) webhook.DedupStore {
			return newMapStore(doneTTL, clock.Now)
		},
		Elapse: func(_ *testing.T, d time.Duration) { clock.Advance(d) },
		Short:  time.Second,
		// Twin is nil: the store lives in one process, so a second look at it is itself.
	})
}

// A custom store passes the contract in its test (TestMapStore above runs
// webhooktest.TestDedupStore on it), then goes into a Handler with webhook.WithDedupStore.
func Example_customStore() {
	ctx := context.Background()
	s := newMapStore(webhook.DefaultDedupTTL, time.Now)
	first, _, _ := s.Claim(ctx, "msg_1", time.Minute)
	again, _, _ := s.Claim(ctx, "msg_1", time.Minute)
	_ = s.Complete(ctx, "msg_1")
	done, _, _ := s.Claim(ctx, "msg_1", time.Minute)
	fmt.Println(first, again, done)

	_, err := webhook.NewHandler("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
		func(context.Context, webhook.Event) error { return nil }, webhook.WithDedupStore(s))
	fmt.Println("handler:", err)
	// Output:
	// claimed in progress elsewhere already done
	// handler: <nil>
}
