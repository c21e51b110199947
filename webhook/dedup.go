package webhook

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"time"
)

// DedupStore remembers the webhook-id of deliveries already processed, so that Handler can
// acknowledge a redelivery without running the callback again. Implement it over a shared
// database or cache when several processes receive the same endpoint's deliveries.
//
// Handler calls Seen before the callback and Mark only after the callback succeeded, so a
// failed delivery is retried in full. Both must be safe for concurrent use.
type DedupStore interface {
	// Seen reports whether id was marked and has not expired.
	Seen(ctx context.Context, id string) (bool, error)
	// Mark records id as processed.
	Mark(ctx context.Context, id string) error
}

// Defaults of MemoryStore.
const (
	// DefaultDedupTTL covers the service's whole retry ladder (up to 10 attempts over roughly
	// 28 hours) with margin, so any redelivery of a processed id is still recognised.
	DefaultDedupTTL = 30 * time.Hour
	// DefaultDedupMaxEntries bounds a MemoryStore's memory: about 150 bytes per id plus the
	// id itself, so some 20 MB when full of typical ids.
	DefaultDedupMaxEntries = 100_000
)

// MemoryStore is the in-memory DedupStore Handler uses by default. Each id is remembered for a
// TTL from the moment it was marked; when the store is full, the oldest ids are forgotten
// first, so memory stays bounded at the cost of possibly processing a very old redelivery
// again. It is safe for concurrent use; its state is lost on restart and not shared between
// processes.
type MemoryStore struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu    sync.Mutex
	ids   map[string]*list.Element // of *memoryEntry
	order *list.List               // oldest mark first
}

type memoryEntry struct {
	id      string
	expires time.Time
}

// MemoryStoreOption configures a MemoryStore.
type MemoryStoreOption func(*MemoryStore)

// WithDedupTTL sets how long an id is remembered (DefaultDedupTTL by default); it must be
// positive.
func WithDedupTTL(d time.Duration) MemoryStoreOption { return func(s *MemoryStore) { s.ttl = d } }

// WithDedupMaxEntries sets how many ids the store holds at most (DefaultDedupMaxEntries by
// default); it must be positive.
func WithDedupMaxEntries(n int) MemoryStoreOption { return func(s *MemoryStore) { s.max = n } }

// WithDedupClock sets the clock expiry is measured with (time.Now by default).
func WithDedupClock(now func() time.Time) MemoryStoreOption {
	return func(s *MemoryStore) { s.now = now }
}

// NewMemoryStore returns an empty MemoryStore. It fails with ErrInvalidOption for a
// non-positive TTL or size, or a nil clock.
func NewMemoryStore(opts ...MemoryStoreOption) (*MemoryStore, error) {
	s := &MemoryStore{ttl: DefaultDedupTTL, max: DefaultDedupMaxEntries, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	switch {
	case s.ttl <= 0:
		return nil, fmt.Errorf("%w: WithDedupTTL(%v) is not positive", ErrInvalidOption, s.ttl)
	case s.max <= 0:
		return nil, fmt.Errorf("%w: WithDedupMaxEntries(%d) is not positive", ErrInvalidOption, s.max)
	case s.now == nil:
		return nil, fmt.Errorf("%w: WithDedupClock(nil)", ErrInvalidOption)
	}
	s.ids = make(map[string]*list.Element)
	s.order = list.New()
	return s, nil
}

// Seen reports whether id was marked less than the TTL ago. It never fails.
func (s *MemoryStore) Seen(_ context.Context, id string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.expire(now)
	el, ok := s.ids[id]
	// Checked again here, not only by expire, in case the clock stepped back after an
	// earlier entry was added.
	return ok && now.Before(el.Value.(*memoryEntry).expires), nil
}

// Mark remembers id for the TTL from now, forgetting the oldest ids if the store is full. It
// never fails.
func (s *MemoryStore) Mark(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.expire(now)
	if el, ok := s.ids[id]; ok {
		el.Value.(*memoryEntry).expires = now.Add(s.ttl)
		s.order.MoveToBack(el)
		return nil
	}
	for s.order.Len() >= s.max {
		s.remove(s.order.Front())
	}
	s.ids[id] = s.order.PushBack(&memoryEntry{id: id, expires: now.Add(s.ttl)})
	return nil
}

// Len returns how many ids the store holds, expired ones not yet swept included.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order.Len()
}

// expire drops expired entries from the front. Entries are kept in order of their last mark
// and share one TTL, so the front holds the earliest expiry.
func (s *MemoryStore) expire(now time.Time) {
	for el := s.order.Front(); el != nil && !now.Before(el.Value.(*memoryEntry).expires); el = s.order.Front() {
		s.remove(el)
	}
}

func (s *MemoryStore) remove(el *list.Element) {
	delete(s.ids, el.Value.(*memoryEntry).id)
	s.order.Remove(el)
}
