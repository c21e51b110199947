package hosted

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
)

// waitFor spins until cond holds, yielding; the bound is the test's own timeout, never a clock.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		if t.Context().Err() != nil {
			t.Fatalf("gave up waiting for %s", what)
		}
		runtime.Gosched()
	}
}

// boundsHost hosts episodes on a loopback server, with a synthesiser wrapped by wrap.
func boundsHost(t *testing.T, cache int64, wrap func(next func(io.Writer, Episode) error) func(io.Writer, Episode) error, episodes ...Episode) (*Host, *httptest.Server, []string) {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	t.Cleanup(srv.Close)
	h := New(srv.URL, cache, nil)
	if wrap != nil {
		h.WrapSynthesis(wrap)
	}
	srv.Config.Handler = h.Handler()
	id := uuid.New()
	if _, err := h.AddFeed(id, "Show", false, episodes); err != nil {
		t.Fatal(err)
	}
	return h, srv, h.AudioURLs(id)
}

// counting counts renderings and how many run at once, and holds each at gate until it is
// closed (nil: no gate).
type counting struct {
	started, running, most atomic.Int64
	gate                   chan struct{}
}

func (c *counting) wrap(next func(io.Writer, Episode) error) func(io.Writer, Episode) error {
	return func(w io.Writer, e Episode) error {
		c.started.Add(1)
		n := c.running.Add(1)
		defer c.running.Add(-1)
		for m := c.most.Load(); n > m && !c.most.CompareAndSwap(m, n); m = c.most.Load() {
		}
		if c.gate != nil {
			<-c.gate
		}
		return next(w, e)
	}
}

func wavEpisode(title string, seconds float64) Episode {
	return Episode{Title: title, GUID: title, DurationS: seconds, Channels: 1, SampleRate: 8000, Format: "wav"}
}

// TestHeadNeverRenders (D5): a HEAD states the audio's exact length without rendering, even
// for a 3-hour episode.
func TestHeadNeverRenders(t *testing.T) {
	t.Parallel()
	var c counting
	h, srv, urls := boundsHost(t, 64<<20, c.wrap, wavEpisode("Long", MaxDuration), Episode{Title: "Short", GUID: "s", DurationS: 1})
	for _, url := range urls {
		resp, err := srv.Client().Head(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h.mu.RLock()
		want := h.byAudio[url].length
		h.mu.RUnlock()
		if resp.StatusCode != 200 || resp.ContentLength != want {
			t.Errorf("HEAD %s: %d, length %d, want 200 and %d", url, resp.StatusCode, resp.ContentLength, want)
		}
	}
	if n := c.started.Load(); n != 0 {
		t.Errorf("%d renderings for HEADs, want 0", n)
	}
}

// TestFirstDownloadsShareOneRendering (D5): concurrent first downloads of an episode follow one
// rendering and get the same bytes.
func TestFirstDownloadsShareOneRendering(t *testing.T) {
	t.Parallel()
	c := counting{gate: make(chan struct{})}
	h, srv, urls := boundsHost(t, 64<<20, c.wrap, wavEpisode("One", 5))
	const clients = 5
	bodies := make([][]byte, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			resp, err := srv.Client().Get(urls[0])
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			bodies[i], _ = io.ReadAll(resp.Body)
		})
	}
	waitFor(t, "every download to follow the rendering", func() bool {
		h.renderMu.Lock()
		defer h.renderMu.Unlock()
		for _, rd := range h.renders {
			rd.mu.Lock()
			defer rd.mu.Unlock()
			return rd.readers == clients
		}
		return false
	})
	close(c.gate)
	wg.Wait()
	if n := c.started.Load(); n != 1 {
		t.Errorf("%d renderings, want 1", n)
	}
	for i := range bodies {
		if len(bodies[i]) == 0 || !bytes.Equal(bodies[i], bodies[0]) {
			t.Errorf("download %d: %d bytes, not the first's %d", i, len(bodies[i]), len(bodies[0]))
		}
	}
}

// TestEncodesAreCapped (D5): at most MaxConcurrentEncodes renderings run at once; the other
// downloads wait for a slot, then get their audio.
func TestEncodesAreCapped(t *testing.T) {
	t.Parallel()
	c := counting{gate: make(chan struct{})}
	eps := []Episode{wavEpisode("A", 1), wavEpisode("B", 1), wavEpisode("C", 1), wavEpisode("D", 1)}
	h, srv, urls := boundsHost(t, 64<<20, c.wrap, eps...)
	var wg sync.WaitGroup
	var ok atomic.Int64
	for _, url := range urls {
		wg.Go(func() {
			resp, err := srv.Client().Get(url)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			if b, err := io.ReadAll(resp.Body); err == nil && resp.StatusCode == 200 && int64(len(b)) == resp.ContentLength {
				ok.Add(1)
			}
		})
	}
	waitFor(t, "two renderings and two waiting", func() bool { return c.running.Load() == MaxConcurrentEncodes && h.queued.Load() == 2 })
	if n := c.started.Load(); n != MaxConcurrentEncodes {
		t.Errorf("%d renderings started, want %d", n, MaxConcurrentEncodes)
	}
	close(c.gate)
	wg.Wait()
	if c.most.Load() != MaxConcurrentEncodes || c.started.Load() != 4 || ok.Load() != 4 {
		t.Errorf("at most %d at once, %d in all, %d downloads whole; want %d, 4, 4", c.most.Load(), c.started.Load(), ok.Load(), MaxConcurrentEncodes)
	}
	if h.Encodes() != 0 {
		t.Errorf("%d slots still taken", h.Encodes())
	}
}

// stepped writes size bytes of zeros in chunks, waiting at resume after the first chunk, and
// reports what its last write returned.
type stepped struct {
	resume chan struct{}
	done   chan error
	wrote  atomic.Int64
}

func (s *stepped) wrap(func(io.Writer, Episode) error) func(io.Writer, Episode) error {
	return func(w io.Writer, e Episode) error {
		length, _ := audioLength(e)
		chunk := make([]byte, 4096)
		for n := int64(0); n < length; n += int64(len(chunk)) {
			if n == int64(len(chunk)) {
				<-s.resume
			}
			if _, err := w.Write(chunk[:min(int64(len(chunk)), length-n)]); err != nil {
				s.done <- err
				return err
			}
			s.wrote.Add(int64(len(chunk)))
		}
		s.done <- nil
		return nil
	}
}

// TestRenderingStopsWithItsClients (D5): when the last download following a rendering leaves,
// the rendering stops at its next write, keeps nothing and frees its slot; so does a rendering
// streamed to one download (audio too long for the cache).
func TestRenderingStopsWithItsClients(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		cache int64
	}{{"shared", 64 << 20}, {"streamed", 1 << 10}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &stepped{resume: make(chan struct{}), done: make(chan error, 1)}
			h, srv, urls := boundsHost(t, tt.cache, s.wrap, wavEpisode("Long", 600))
			resp, err := srv.Client().Get(urls[0])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(resp.Body, make([]byte, 1024)); err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if tt.name == "shared" {
				waitFor(t, "the rendering to lose its last download", func() bool {
					h.renderMu.Lock()
					defer h.renderMu.Unlock()
					return len(h.renders) == 0
				})
			}
			close(s.resume)
			err = <-s.done
			if err == nil || s.wrote.Load() >= 9_600_000 {
				t.Errorf("the rendering went on: %v after %d bytes of 9.6 MB", err, s.wrote.Load())
			}
			waitFor(t, "the slot", func() bool { return h.Encodes() == 0 })
			if n, _ := h.CacheStats(); n != 0 {
				t.Error("a cut rendering was cached")
			}
		})
	}
}

// TestAlternateDownloadsDoNotThrash (D6): two episodes the cache cannot hold together,
// downloaded in turn: one stays cached, so six downloads render four times, not six.
func TestAlternateDownloadsDoNotThrash(t *testing.T) {
	t.Parallel()
	var c counting
	a, b := wavEpisode("A", 40), wavEpisode("B", 40) // 640 kB each
	_, srv, urls := boundsHost(t, 1<<20, c.wrap, a, b)
	for i := range 6 {
		resp, err := srv.Client().Get(urls[i%2])
		if err != nil {
			t.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if n != resp.ContentLength {
			t.Fatalf("download %d: %d bytes of %d", i, n, resp.ContentLength)
		}
	}
	if n := c.started.Load(); n != 4 {
		t.Errorf("%d renderings for 6 alternate downloads, want 4", n)
	}
}

// TestSlowReadersShareOneBuffer (D7): stalled downloads of one episode hold its bytes once (the
// rendering's buffer, then the cache's entry), not a copy or a rendering each.
func TestSlowReadersShareOneBuffer(t *testing.T) {
	t.Parallel()
	var c counting
	h, srv, urls := boundsHost(t, 64<<20, c.wrap, wavEpisode("One", 120))
	h.mu.RLock()
	length := h.byAudio[urls[0]].length
	h.mu.RUnlock()
	const readers = 20
	var bodies []io.Closer
	for range readers {
		resp, err := srv.Client().Get(urls[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(resp.Body, make([]byte, 1024)); err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, resp.Body)
		if held := h.RenderBuffered(); held > length {
			t.Fatalf("renderings hold %d bytes for a %d-byte episode", held, length)
		}
	}
	waitFor(t, "the rendering to finish", func() bool { n, _ := h.CacheStats(); return n == 1 })
	_, cached := h.CacheStats()
	if n := c.started.Load(); n != 1 || cached != length || h.RenderBuffered() != 0 {
		t.Errorf("%d renderings, %d bytes cached, %d held by renderings; want 1, %d, 0", n, cached, h.RenderBuffered(), length)
	}
	for _, b := range bodies {
		b.Close()
	}
}

// TestSlowDownloadsAreCut (D7): a download that averages less than minDownloadRate after its
// first downloadGrace, counted in time spent writing to the client, is cut, on an injected
// clock; time the host spends making the audio between writes does not count.
func TestSlowDownloadsAreCut(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		writing time.Duration
		written int64
		cut     bool
	}{
		{"within the grace", downloadGrace, 0, false},
		{"at the rate", downloadGrace + 10*time.Second, 10 * minDownloadRate, false},
		{"under the rate", downloadGrace + 10*time.Second, 10*minDownloadRate - 1, true},
		{"a trickle", time.Hour, 1 << 10, true},
	}
	for _, tt := range tests {
		p := &pacedWriter{w: io.Discard, now: func() time.Time { return start }, writing: tt.writing, written: tt.written}
		_, err := p.Write([]byte("x"))
		if cut := errors.Is(err, errTooSlow); cut != tt.cut {
			t.Errorf("%s: cut %v, want %v", tt.name, cut, tt.cut)
		}
	}

	// Each chunk takes an hour to make and is taken by the client at once: never cut.
	now := start
	slowHost := &pacedWriter{w: io.Discard, now: func() time.Time { return now }}
	for range 10 {
		now = now.Add(time.Hour)
		if _, err := slowHost.Write(make([]byte, downloadChunk)); err != nil {
			t.Fatalf("a download cut for the host's own time: %v", err)
		}
	}
	// A client that takes a minute over each kilobyte is cut once past the grace.
	slowClient := &pacedWriter{w: clockedWriter{advance: func() { now = now.Add(time.Minute) }}, now: func() time.Time { return now }}
	var err error
	for i := 0; i < 10 && err == nil; i++ {
		_, err = slowClient.Write(make([]byte, 1<<10))
	}
	if !errors.Is(err, errTooSlow) {
		t.Fatalf("a client taking a minute a kilobyte: %v, want errTooSlow", err)
	}
}

// clockedWriter is a client that moves the injected clock while it takes each write.
type clockedWriter struct{ advance func() }

func (w clockedWriter) Write(p []byte) (int, error) {
	w.advance()
	return len(p), nil
}

// TestTooManyWaitingIsBusy: past maxEncodeQueue downloads waiting for a slot, the next is
// answered 503 with Retry-After.
func TestTooManyWaitingIsBusy(t *testing.T) {
	t.Parallel()
	h, srv, urls := boundsHost(t, 64<<20, nil, wavEpisode("A", 1))
	for range MaxConcurrentEncodes {
		h.slots <- struct{}{}
	}
	h.queued.Store(maxEncodeQueue)
	resp, err := srv.Client().Get(urls[0])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "5" {
		t.Errorf("%d, Retry-After %q; want 503 and 5", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}
