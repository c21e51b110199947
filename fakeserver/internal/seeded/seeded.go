// Package seeded is the fake's one source of minted values: ids, API keys, session tokens,
// webhook secrets and webhook-ids, the upload URL signing key and the admin token.
//
// A Source made by New from a seed gives the same values in the same order on every run, so a
// fake started with the same seed, start instant and clock mode answers the same sequence of
// calls byte for byte. A Source made by Random is seeded from crypto/rand, so its values are
// unpredictable; either way the generator is ChaCha8, a cryptographically strong one.
// A Source can be rewound to a saved state (Save, Restore), which is how the fake's reset mints
// the start state's ids and keys again.
package seeded

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	mrand "math/rand/v2"
	"sync"

	"github.com/google/uuid"
)

// Source mints values; it is safe for concurrent use.
type Source struct {
	mu  sync.Mutex
	rng *mrand.ChaCha8
}

// New returns a Source whose values follow from seed alone.
func New(seed uint64) *Source {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	// Spread the seed over the key so that nearby seeds share no key bytes.
	mixed := mrand.NewChaCha8(key)
	var full [32]byte
	_, _ = mixed.Read(full[:])
	return &Source{rng: mrand.NewChaCha8(full)}
}

// Random returns a Source seeded from crypto/rand.
func Random() *Source {
	var key [32]byte
	_, _ = rand.Read(key[:]) // crypto/rand.Read never fails (Go 1.24+).
	return &Source{rng: mrand.NewChaCha8(key)}
}

// Read fills p with the next bytes of the stream; it never fails.
func (s *Source) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rng.Read(p)
}

// Bytes returns the next n bytes.
func (s *Source) Bytes(n int) []byte {
	b := make([]byte, n)
	_, _ = s.Read(b)
	return b
}

// UUID returns a version 4 UUID made of the next 16 bytes.
func (s *Source) UUID() uuid.UUID {
	var u uuid.UUID
	_, _ = s.Read(u[:])
	u[6] = (u[6] & 0x0f) | 0x40 // version 4
	u[8] = (u[8] & 0x3f) | 0x80 // RFC 4122 variant
	return u
}

// Hex returns n bytes as 2n hex digits.
func (s *Source) Hex(n int) string { return hex.EncodeToString(s.Bytes(n)) }

// Token returns n bytes in unpadded URL-safe base64.
func (s *Source) Token(n int) string { return base64.RawURLEncoding.EncodeToString(s.Bytes(n)) }

// Save returns the generator's state, for Restore.
func (s *Source) Save() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := s.rng.MarshalBinary() // ChaCha8's MarshalBinary never fails.
	return b
}

// Restore rewinds the generator to a state Save returned; the values minted after it repeat.
func (s *Source) Restore(state []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rng.UnmarshalBinary(state)
}
