package webhook

import (
	"container/list"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/podqa/podqa-go/client"
)

// ClaimStatus is the outcome of DedupStore.Claim.
type ClaimStatus int

// The outcomes of a claim.
const (
	// Claimed: the caller now holds the id for the claim's TTL and runs the callback, then
	// calls Complete on success or Release on failure.
	Claimed ClaimStatus = iota + 1
	// AlreadyDone: a callback for the id succeeded before (within the store's retention);
	// the delivery is a duplicate.
	AlreadyDone
	// InProgress: another holder (this process or another) holds an unexpired claim on the
	// id; the outcome is not known yet.
	InProgress
)

// String returns the outcome's name.
func (s ClaimStatus) String() string {
	switch s {
	case Claimed:
		return "claimed"
	case AlreadyDone:
		return "already done"
	case InProgress:
		return "in progress elsewhere"
	}
	return fmt.Sprintf("ClaimStatus(%d)", int(s))
}

// DedupStore is the claim protocol that lets any number of receivers of one endpoint run each
// delivery's callback at most once at a time and, once it succeeded, never again for that
// webhook-id. NewHandler uses it as follows:
//
//  1. Claim(id, ttl): atomically, if the id is done, AlreadyDone; if it holds an unexpired
//     claim, InProgress; otherwise a new claim with a fresh token that expires after ttl
//     (measured on the store's clock: the database server's for a shared store), Claimed.
//  2. The callback runs.
//  3. On success, Complete(id) marks the id done for the store's retention (30 hours by
//     default, the sender's whole retry ladder), whoever holds the claim. It may return
//     before the mark is written (the shared stores write completions behind, in batches,
//     and answer AlreadyDone for a queued id at once; flush them before the process exits):
//     the Handler answers 200 whatever Complete's outcome, so waiting for the write would
//     only lengthen the sender's wait.
//  4. On failure, Release(id, token) drops the claim if it is still the one with token (an
//     expired claim since taken by another holder is left alone), so that the sender's retry
//     is processed in full.
//
// A claim that is neither completed nor released (the process died) expires after its TTL, and
// the next delivery of the id claims it again. Implementations must be safe for concurrent use
// and make Claim atomic across every process sharing the store. Subpackages webhookpg
// (PostgreSQL) and webhookredis (Redis) implement it over a shared database; package
// webhooktest checks a custom implementation against the contract they pass.
//
// The claim is what keeps two instances that receive the same delivery at once from both running
// the callback: only one of them gets Claimed.
type DedupStore interface {
	// Claim tries to take id for ttl. token identifies the claim for Release and is empty
	// unless status is Claimed.
	Claim(ctx context.Context, id string, ttl time.Duration) (status ClaimStatus, token string, err error)
	// Complete records that id's callback succeeded.
	Complete(ctx context.Context, id string) error
	// Release drops the claim on id made with token, if it still holds; otherwise it does
	// nothing and returns nil.
	Release(ctx context.Context, id, token string) error
}

// NewClaimToken returns a random token for a claim (128 bits, hex), for DedupStore
// implementations.
func NewClaimToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// Defaults of MemoryStore and of the shared stores.
const (
	// DefaultDedupTTL covers the service's whole retry ladder (up to 10 attempts over roughly
	// 28 hours) with margin, so any redelivery of a processed id is still recognised.
	DefaultDedupTTL = 30 * time.Hour
	// DefaultDedupMaxEntries bounds a MemoryStore's memory: about 150 bytes per id plus the
	// id itself, so some 20 MB when full of typical ids.
	DefaultDedupMaxEntries = 100_000
)

// MemoryStore is the in-memory DedupStore NewHandler uses by default. A done id is remembered
// for a TTL from the moment it was completed; when the store is full, the oldest ids are
// forgotten first, so memory stays bounded at the cost of possibly processing a very old
// redelivery again. Claims live beside the done ids until completed, released or expired. It
// is safe for concurrent use; its state is lost on restart and not shared between processes.
type MemoryStore struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu     sync.Mutex
	ids    map[string]*list.Element // done ids, of *memoryEntry
	order  *list.List               // oldest completion first
	claims map[string]memoryClaim
}

type memoryEntry struct {
	id      string
	expires time.Time
}

type memoryClaim struct {
	token   string
	expires time.Time
}

// MemoryStoreOption configures a MemoryStore.
type MemoryStoreOption func(*MemoryStore)

// WithDedupTTL sets how long a done id is remembered (DefaultDedupTTL by default); it must be
// positive.
func WithDedupTTL(d time.Duration) MemoryStoreOption { return func(s *MemoryStore) { s.ttl = d } }

// WithDedupMaxEntries sets how many done ids the store holds at most (DefaultDedupMaxEntries
// by default); it must be positive.
func WithDedupMaxEntries(n int) MemoryStoreOption { return func(s *MemoryStore) { s.max = n } }

// WithDedupClock sets the clock expiry is measured with (client.SystemClock by default).
func WithDedupClock(clk client.Clock) MemoryStoreOption {
	return func(s *MemoryStore) {
		if clk == nil {
			s.now = nil
			return
		}
		s.now = clk.Now
	}
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
	s.claims = make(map[string]memoryClaim)
	return s, nil
}

// Claim implements DedupStore. It fails only for a non-positive ttl.
func (s *MemoryStore) Claim(_ context.Context, id string, ttl time.Duration) (ClaimStatus, string, error) {
	if ttl <= 0 {
		return 0, "", fmt.Errorf("%w: claim TTL %v is not positive", ErrInvalidOption, ttl)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.expire(now)
	// Checked again here, not only by expire, in case the clock stepped back after an
	// earlier entry was added.
	if el, ok := s.ids[id]; ok && now.Before(el.Value.(*memoryEntry).expires) {
		return AlreadyDone, "", nil
	}
	if c, ok := s.claims[id]; ok && now.Before(c.expires) {
		return InProgress, "", nil
	}
	if len(s.claims) >= s.max {
		for k, c := range s.claims {
			if !now.Before(c.expires) {
				delete(s.claims, k)
			}
		}
	}
	token := NewClaimToken()
	s.claims[id] = memoryClaim{token: token, expires: now.Add(ttl)}
	return Claimed, token, nil
}

// Complete implements DedupStore: it remembers id for the TTL from now, forgetting the oldest
// ids if the store is full, and drops any claim on it. It never fails.
func (s *MemoryStore) Complete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.expire(now)
	delete(s.claims, id)
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

// Release implements DedupStore. It never fails.
func (s *MemoryStore) Release(_ context.Context, id, token string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.claims[id]; ok && c.token == token {
		delete(s.claims, id)
	}
	return nil
}

// Len returns how many done ids the store holds, expired ones not yet swept included.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order.Len()
}

// expire drops expired done ids from the front. They are kept in order of their completion
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
