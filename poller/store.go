package poller

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/internal/errval"
)

// Store keeps a poller's state between polls and across restarts. Load and Save are called by
// one poll at a time. A Store must make Save atomic: after a crash, Load returns either the state
// before the Save or the one it wrote, never a mix. Package pollertest checks a custom Store, or
// LeaseStore, against the contract the SDK's own stores pass.
type Store interface {
	// Load returns the stored state, or the zero State and a nil error when nothing was stored
	// yet.
	Load(ctx context.Context) (State, error)
	// Save replaces the stored state with st.
	Save(ctx context.Context, st State) error
}

// State is what a poller keeps between polls: the watermark, and the reports already handed to
// the handler whose updated_at lies above it (the overlap the next poll re-reads, see the package
// documentation). Seen holds nothing older than the watermark, which keeps it small.
type State struct {
	// Watermark is the updated_since of the next poll, in the API's fixed +00:00 form.
	Watermark string `json:"watermark"`
	// Seen lists the reports delivered with updated_at above Watermark.
	Seen []SeenReport `json:"seen,omitempty"`
}

// SeenReport is a report already delivered to the handler.
type SeenReport struct {
	// ID is the report's id; UpdatedAt its updated_at in the fixed form.
	ID        string `json:"id"`
	UpdatedAt string `json:"updated_at"`
}

// clone returns a copy of st that shares no memory with it.
func (st State) clone() State {
	st.Seen = slices.Clone(st.Seen)
	return st
}

// ErrCorruptState is wrapped by the errors of a stored state that cannot be read.
var ErrCorruptState = errval.New("poller.ErrCorruptState", "poller: corrupt stored state")

// MemoryStore is a Store in memory, for tests and for processes that re-seed the watermark on
// every start. It is safe for concurrent use. For several pollers of one process sharing a
// state, use MemoryLeaseStore.
type MemoryStore struct {
	mu sync.Mutex
	st State
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{} }

// Load returns a copy of the state last saved.
func (m *MemoryStore) Load(context.Context) (State, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.st.clone(), nil
}

// Save keeps a copy of st, as it is: tests store any state, even an invalid one, to see how
// the poller reads it.
func (m *MemoryStore) Save(_ context.Context, st State) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.st = st.clone()
	return nil
}

// MemoryLeaseStore is a MemoryStore with a lease: a LeaseStore for several pollers of one
// process sharing one state, so that they poll one at a time, and for tests of the lease. Its
// lease runs on its own clock (the wall clock by default, WithLeaseClock). It is safe for concurrent
// use.
type MemoryLeaseStore struct {
	MemoryStore
	now     func() time.Time
	holder  string
	token   int64
	expires time.Time
}

// MemoryLeaseStoreOption configures NewMemoryLeaseStore.
type MemoryLeaseStoreOption func(*MemoryLeaseStore)

// WithLeaseClock sets the clock the lease expires on (client.SystemClock by default); nil
// keeps it.
func WithLeaseClock(clk client.Clock) MemoryLeaseStoreOption {
	return func(m *MemoryLeaseStore) {
		if clk != nil {
			m.now = clk.Now
		}
	}
}

// NewMemoryLeaseStore returns an empty MemoryLeaseStore.
func NewMemoryLeaseStore(opts ...MemoryLeaseStoreOption) *MemoryLeaseStore {
	m := &MemoryLeaseStore{now: time.Now}
	for _, o := range opts {
		o(m)
	}
	return m
}

// AcquireLease implements LeaseStore.
func (m *MemoryLeaseStore) AcquireLease(_ context.Context, holder string, ttl time.Duration) (Lease, error) {
	if ttl <= 0 {
		return Lease{}, fmt.Errorf("%w: lease TTL %v is not positive", ErrInvalidOption, ttl)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	live := m.holder != "" && now.Before(m.expires)
	if live && m.holder != holder {
		return Lease{}, &LeaseHeldError{Holder: m.holder, Remaining: m.expires.Sub(now)}
	}
	if !live {
		m.token++
		m.holder = holder
	}
	m.expires = now.Add(ttl)
	return Lease{Holder: holder, Token: m.token}, nil
}

// held reports whether l is the unexpired lease; the caller holds mu.
func (m *MemoryLeaseStore) held(l Lease) bool {
	return m.holder == l.Holder && m.token == l.Token && m.now().Before(m.expires)
}

// RenewLease implements LeaseStore.
func (m *MemoryLeaseStore) RenewLease(_ context.Context, l Lease, ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("%w: lease TTL %v is not positive", ErrInvalidOption, ttl)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.held(l) {
		return ErrLeaseLost
	}
	m.expires = m.now().Add(ttl)
	return nil
}

// ReleaseLease implements LeaseStore.
func (m *MemoryLeaseStore) ReleaseLease(_ context.Context, l Lease) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.holder == l.Holder && m.token == l.Token {
		m.holder = ""
	}
	return nil
}

// SaveFenced implements LeaseStore.
func (m *MemoryLeaseStore) SaveFenced(_ context.Context, l Lease, st State) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.held(l) {
		return ErrLeaseLost
	}
	m.st = st.clone()
	return nil
}

// MarshalState encodes st as FileStore's JSON document (with its version), for Stores that keep
// the state as one value. An invalid st is refused.
func MarshalState(st State) ([]byte, error) {
	if err := st.check(); err != nil {
		return nil, fmt.Errorf("poller: refusing to encode the state: %w", err)
	}
	return json.Marshal(fileState{Version: fileVersion, State: st})
}

// UnmarshalState decodes a document of MarshalState; anything else is an error wrapping
// ErrCorruptState.
func UnmarshalState(data []byte) (State, error) {
	if len(data) > maxStateFile {
		return State{}, fmt.Errorf("%w: larger than %d bytes", ErrCorruptState, maxStateFile)
	}
	return parseState(data)
}

// fileVersion is the version of the file store's format.
const fileVersion = 1

// maxStateFile bounds what FileStore reads, so that a wrong path cannot exhaust memory.
const maxStateFile = 64 << 20

// fileState is the JSON document of FileStore.
type fileState struct {
	Version int `json:"version"`
	State
}

// FileStore is a Store in one JSON file. Save writes a temporary file beside it, fsyncs it,
// renames it over the file and fsyncs the directory, so that a crash at any point leaves either
// the old file or the new one. A temporary file left by a crash (named "."+base+".tmp-*") is
// never read. Use one FileStore per file and one process per file.
type FileStore struct {
	path string
	mu   sync.Mutex
	// write writes the temporary file; tests replace it to simulate a crash mid-write.
	write func(f *os.File, data []byte) error
}

// NewFileStore returns a store kept in the file at path. The file need not exist yet; its
// directory must exist when Save is called.
func NewFileStore(path string) (*FileStore, error) {
	if path == "" {
		return nil, errors.New("poller: file store: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("poller: file store: %w", err)
	}
	return &FileStore{path: abs, write: writeAll}, nil
}

func writeAll(f *os.File, data []byte) error {
	_, err := f.Write(data)
	return err
}

// Path returns the absolute path of the file.
func (s *FileStore) Path() string { return s.path }

// Load reads the file; a missing file is the zero State. A file that is not a valid state is
// an error wrapping ErrCorruptState, never read as an empty state.
func (s *FileStore) Load(context.Context) (State, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.Open(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return State{}, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("poller: file store: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStateFile+1))
	if err != nil {
		return State{}, fmt.Errorf("poller: file store: %w", err)
	}
	if len(data) > maxStateFile {
		return State{}, fmt.Errorf("%w: %s is larger than %d bytes", ErrCorruptState, s.path, maxStateFile)
	}
	st, err := parseState(data)
	if err != nil {
		return State{}, fmt.Errorf("%s: %w", s.path, err)
	}
	return st, nil
}

// parseState reads and checks the file store's document.
func parseState(data []byte) (State, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var fs fileState
	if err := dec.Decode(&fs); err != nil {
		return State{}, fmt.Errorf("%w: %v", ErrCorruptState, err)
	}
	if dec.More() {
		return State{}, fmt.Errorf("%w: data after the JSON document", ErrCorruptState)
	}
	if fs.Version != fileVersion {
		return State{}, fmt.Errorf("%w: version %d, want %d", ErrCorruptState, fs.Version, fileVersion)
	}
	if err := fs.State.check(); err != nil {
		return State{}, fmt.Errorf("%w: %v", ErrCorruptState, err)
	}
	return fs.State.normalized(), nil
}

// normalized writes every timestamp of a checked state in the fixed form.
func (st State) normalized() State {
	out := State{Watermark: mustNormalize(st.Watermark)}
	if len(st.Seen) > 0 {
		out.Seen = make([]SeenReport, len(st.Seen))
		for i, r := range st.Seen {
			out.Seen[i] = SeenReport{ID: r.ID, UpdatedAt: mustNormalize(r.UpdatedAt)}
		}
	}
	return out
}

// mustNormalize normalises a timestamp check has accepted.
func mustNormalize(w string) string {
	n, err := NormalizeWatermark(w)
	if err != nil {
		return w // unreachable after check; keep the input rather than lose it
	}
	return n
}

// check validates a state: a watermark in a readable form, seen reports with UUIDs and
// readable timestamps.
func (st State) check() error {
	if _, err := parseWatermark(st.Watermark); err != nil {
		return err
	}
	for i, r := range st.Seen {
		if u, err := uuid.Parse(r.ID); err != nil || len(r.ID) != 36 || u.String() != r.ID {
			return fmt.Errorf("seen[%d]: id %q is not a lower-case UUID", i, r.ID)
		}
		if _, err := parseWatermark(r.UpdatedAt); err != nil {
			return fmt.Errorf("seen[%d]: updated_at: %w", i, err)
		}
	}
	return nil
}

// Save writes st atomically (see FileStore). An invalid st is refused and nothing is written.
func (s *FileStore) Save(_ context.Context, st State) error {
	data, err := MarshalState(st)
	if err != nil {
		return fmt.Errorf("poller: file store: %w", err)
	}
	data = append(data, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	dir, base := filepath.Split(s.path)
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("poller: file store: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := s.write(tmp, data); err != nil {
		return fmt.Errorf("poller: file store: writing %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("poller: file store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("poller: file store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("poller: file store: %w", err)
	}
	committed = true
	// Make the rename itself durable; without it a crash could bring back the old file.
	if d, err := os.Open(dir); err == nil {
		err = d.Sync()
		d.Close()
		if err != nil && !errors.Is(err, os.ErrInvalid) {
			return fmt.Errorf("poller: file store: syncing %s: %w", dir, err)
		}
	}
	return nil
}
