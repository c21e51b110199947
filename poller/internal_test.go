package poller

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var sampleState = State{
	Watermark: "2026-01-05T09:01:59.000000+00:00",
	Seen: []SeenReport{
		{ID: "0b7c4f3e-9a51-4d1e-8f55-1c2d3e4f5a6b", UpdatedAt: "2026-01-05T09:02:00.000000+00:00"},
	},
}

// TestMemoryStore checks that the memory store keeps a copy, not the caller's slice.
func TestMemoryStore(t *testing.T) {
	t.Parallel()
	m := NewMemoryStore()
	st, err := m.Load(t.Context())
	if err != nil || st.Watermark != "" || st.Seen != nil {
		t.Fatalf("empty store: %+v, %v", st, err)
	}
	in := sampleState.clone()
	if err := m.Save(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	in.Seen[0].ID = "changed"
	got, _ := m.Load(t.Context())
	if !reflect.DeepEqual(got, sampleState) {
		t.Fatalf("loaded %+v, want %+v", got, sampleState)
	}
	got.Seen[0].ID = "changed again"
	if again, _ := m.Load(t.Context()); !reflect.DeepEqual(again, sampleState) {
		t.Fatalf("the store shares memory with what Load returned: %+v", again)
	}
}

// TestFileStoreRoundTrip checks saving, loading, replacing and the missing file.
func TestFileStoreRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	s, err := NewFileStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := s.Load(t.Context()); err != nil || !reflect.DeepEqual(st, State{}) {
		t.Fatalf("missing file: %+v, %v", st, err)
	}
	if err := s.Save(t.Context(), sampleState); err != nil {
		t.Fatal(err)
	}
	next := State{Watermark: "2026-01-05T09:10:00.000000+00:00"}
	if err := s.Save(t.Context(), next); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Load(t.Context()); err != nil || !reflect.DeepEqual(st, next) {
		t.Fatalf("loaded %+v, %v; want %+v", st, err, next)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode: %v, %v; want 0600", fi, err)
	}
	if left := temps(t, path); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// TestFileStoreCrashMidWrite checks that a Save that dies while writing leaves the previous
// state readable, and that a torn temporary file left by a crash is never read and does not
// stop the next Save.
func TestFileStoreCrashMidWrite(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	s, err := NewFileStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(t.Context(), sampleState); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("power lost")
	s.write = func(f *os.File, data []byte) error {
		if _, err := f.Write(data[:len(data)/2]); err != nil {
			return err
		}
		return crash
	}
	if err := s.Save(t.Context(), State{Watermark: "2026-01-05T10:00:00.000000+00:00"}); !errors.Is(err, crash) {
		t.Fatalf("Save = %v, want the crash", err)
	}
	if st, err := s.Load(t.Context()); err != nil || !reflect.DeepEqual(st, sampleState) {
		t.Fatalf("after a failed save: %+v, %v; want the previous state", st, err)
	}

	// A process killed mid-write leaves its torn temporary file behind.
	torn := filepath.Join(filepath.Dir(path), ".state.json.tmp-123456")
	if err := os.WriteFile(torn, []byte(`{"version":1,"watermark":"2026-01-05T1`), 0o600); err != nil {
		t.Fatal(err)
	}
	s2, _ := NewFileStore(path) // the restarted process
	if st, err := s2.Load(t.Context()); err != nil || !reflect.DeepEqual(st, sampleState) {
		t.Fatalf("with a torn temporary file beside it: %+v, %v; want the previous state", st, err)
	}
	next := State{Watermark: "2026-01-05T10:00:00.000000+00:00"}
	if err := s2.Save(t.Context(), next); err != nil {
		t.Fatal(err)
	}
	if st, err := s2.Load(t.Context()); err != nil || !reflect.DeepEqual(st, next) {
		t.Fatalf("after the next save: %+v, %v", st, err)
	}
	if left := temps(t, path); len(left) != 1 || left[0] != torn {
		t.Fatalf("temporary files %v, want only the torn one left by the crash", left)
	}
}

// TestFileStoreRefusesBadState checks that a corrupt file is an error, never an empty state,
// and that an invalid state is not written.
func TestFileStoreRefusesBadState(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, file string }{
		{"truncated", `{"version":1,"watermark":"2026-01-05T09:00:00.000000+00:00"`},
		{"empty", ``},
		{"wrong version", `{"version":2,"watermark":"2026-01-05T09:00:00.000000+00:00"}`},
		{"no watermark", `{"version":1}`},
		{"zoneless watermark", `{"version":1,"watermark":"2026-01-05T09:00:00"}`},
		{"unknown field", `{"version":1,"watermark":"2026-01-05T09:00:00Z","extra":1}`},
		{"bad seen id", `{"version":1,"watermark":"2026-01-05T09:00:00Z","seen":[{"id":"x","updated_at":"2026-01-05T09:00:01Z"}]}`},
		{"bad seen time", `{"version":1,"watermark":"2026-01-05T09:00:00Z","seen":[{"id":"0b7c4f3e-9a51-4d1e-8f55-1c2d3e4f5a6b","updated_at":"soon"}]}`},
		{"two documents", `{"version":1,"watermark":"2026-01-05T09:00:00Z"}{}`},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "state.json")
		if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
			t.Fatal(err)
		}
		s, _ := NewFileStore(path)
		if _, err := s.Load(t.Context()); !errors.Is(err, ErrCorruptState) {
			t.Errorf("%s: Load = %v, want ErrCorruptState", tt.name, err)
		}
		if err := s.Save(t.Context(), State{Watermark: "yesterday"}); err == nil {
			t.Errorf("%s: an invalid state was saved", tt.name)
		}
		if b, _ := os.ReadFile(path); string(b) != tt.file {
			t.Errorf("%s: the file changed to %q", tt.name, b)
		}
	}
	if _, err := NewFileStore(""); err == nil {
		t.Error("NewFileStore accepted an empty path")
	}
}

// TestFileStoreMissingDir checks that a Save into a missing directory fails cleanly.
func TestFileStoreMissingDir(t *testing.T) {
	t.Parallel()
	s, _ := NewFileStore(filepath.Join(t.TempDir(), "absent", "state.json"))
	if err := s.Save(t.Context(), sampleState); err == nil || !strings.Contains(err.Error(), "file store") {
		t.Fatalf("Save = %v, want an error", err)
	}
}

func temps(t *testing.T, path string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestNextPauseHonoursRetryAfter checks the pause arithmetic without running Run.
func TestNextPauseHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	p := &Poller{cfg: config{interval: 5 * time.Minute, checkInterval: true, jitter: 0.1, randomFraction: func() float64 { return 0.5 }}}
	if d := p.nextPause(PollResult{}); d != 5*time.Minute+15*time.Second {
		t.Fatalf("pause %s, want 5m15s", d)
	}
	if d := p.nextPause(PollResult{RetryAfter: 20 * time.Minute}); d != 20*time.Minute {
		t.Fatalf("pause %s, want the Retry-After of 20m", d)
	}
}

// TestNextWatermark checks the bound that keeps reports completing during paging: the higher
// of the first page's top and the overall top less the paging time, less the overlap, never
// below the old watermark.
func TestNextWatermark(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	p := &Poller{cfg: config{overlap: time.Second}}
	tests := []struct {
		name                 string
		since, top, firstTop time.Duration // from base
		pages                int
		elapsed              time.Duration
		want                 time.Duration
	}{
		{"one page is a snapshot", 0, 10 * time.Minute, time.Minute, 1, time.Hour, 10*time.Minute - time.Second},
		{"pages read at one instant", 0, 10 * time.Minute, time.Minute, 3, 0, 10*time.Minute - time.Second},
		{"paging time bounds", 0, 10 * time.Minute, time.Minute, 3, 2 * time.Minute, 8*time.Minute - time.Second},
		{"first page bounds", 0, 10 * time.Minute, 9 * time.Minute, 3, 5 * time.Minute, 9*time.Minute - time.Second},
		{"never back", 9*time.Minute + 30*time.Second, 10 * time.Minute, time.Minute, 3, time.Hour, 9*time.Minute + 30*time.Second},
		{"microseconds down", 0, 10*time.Minute + 1500*time.Nanosecond, 0, 1, 0, 10*time.Minute - time.Second + time.Microsecond},
	}
	for _, tt := range tests {
		got := p.nextWatermark(base.Add(tt.since), base.Add(tt.top), base.Add(tt.firstTop), tt.pages, tt.elapsed)
		if want := base.Add(tt.want); !got.Equal(want) {
			t.Errorf("%s: %s, want %s", tt.name, got.Format(time.RFC3339Nano), want.Format(time.RFC3339Nano))
		}
	}
}
