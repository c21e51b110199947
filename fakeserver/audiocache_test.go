package fakeserver

import (
	"bytes"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
)

// countSyntheses makes srv count how often it synthesises hosted audio.
func countSyntheses(srv *Server) *atomic.Int64 {
	var n atomic.Int64
	next := srv.synthesize
	srv.synthesize = func(w io.Writer, ep HostedEpisode) error {
		n.Add(1)
		return next(w, ep)
	}
	return &n
}

func download(t *testing.T, srv *Server, url string) []byte {
	t.Helper()
	resp, err := srv.Client().Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return b
}

// TestHostedAudioIsSynthesisedOnce: a repeat download of a hosted episode is served from the
// cache, byte for byte the same; another episode, or one with other values, is synthesised.
func TestHostedAudioIsSynthesisedOnce(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	syntheses := countSyntheses(srv)
	loud := -20.0
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Cached", Episodes: []HostedEpisode{
		{Title: "A", DurationS: 1},
		{Title: "B", DurationS: 1, LoudnessLUFS: &loud},
		{Title: "A", DurationS: 1, GUID: "same values, another guid"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	eps := srv.hosting.feeds[mustUUID(t, feed.ID)].episodes
	first := download(t, srv, eps[0].audioURL)
	tests := []struct {
		url       string
		same      bool
		syntheses int64
		entries   int
	}{
		{eps[0].audioURL, true, 1, 1},  // a repeat download
		{eps[1].audioURL, false, 2, 2}, // other loudness: other bytes
		{eps[2].audioURL, true, 2, 2},  // the same values: the same bytes
		{eps[0].audioURL, true, 2, 2},
	}
	for i, tt := range tests {
		got := download(t, srv, tt.url)
		if bytes.Equal(got, first) != tt.same {
			t.Errorf("download %d: same bytes as the first = %v, want %v", i, !tt.same, tt.same)
		}
		if n := syntheses.Load(); n != tt.syntheses {
			t.Errorf("download %d: %d syntheses so far, want %d", i, n, tt.syntheses)
		}
		if n, _ := srv.audioCache.stats(); n != tt.entries {
			t.Errorf("download %d: the cache holds %d renderings, want %d", i, n, tt.entries)
		}
	}
}

// TestAudioCacheBudget: the cache holds at most its budget in bytes, evicting the least
// recently used audio first, and never keeps audio larger than the whole budget.
func TestAudioCacheBudget(t *testing.T) {
	t.Parallel()
	c := newAudioCache(10)
	key := func(b byte) audioKey { return audioKey{b} }
	steps := []struct {
		put     byte
		size    int
		get     byte // 0: no get
		present []byte
		absent  []byte
		total   int64
	}{
		{put: 1, size: 4, present: []byte{1}, total: 4},
		{put: 2, size: 4, present: []byte{1, 2}, total: 8},
		{get: 1}, // 1 is now the most recently used
		{put: 3, size: 4, present: []byte{1, 3}, absent: []byte{2}, total: 8},
		{put: 4, size: 11, present: []byte{1, 3}, absent: []byte{4}, total: 8}, // over the budget
		{put: 5, size: 10, present: []byte{5}, absent: []byte{1, 3}, total: 10},
	}
	for i, s := range steps {
		if s.get != 0 {
			if _, ok := c.get(key(s.get)); !ok {
				t.Fatalf("step %d: %d is not cached", i, s.get)
			}
			continue
		}
		c.put(key(s.put), make([]byte, s.size))
		for _, k := range s.present {
			if _, ok := c.get(key(k)); !ok {
				t.Errorf("step %d: %d was evicted", i, k)
			}
		}
		for _, k := range s.absent {
			if _, ok := c.get(key(k)); ok {
				t.Errorf("step %d: %d is cached", i, k)
			}
		}
		if _, total := c.stats(); total != s.total {
			t.Errorf("step %d: %d bytes cached, want %d", i, total, s.total)
		}
	}
}

// TestHostedAudioCacheOff: WithHostedAudioCache(0) synthesises every download; a negative
// budget is refused.
func TestHostedAudioCacheOff(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t, WithHostedAudioCache(0))
	syntheses := countSyntheses(srv)
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Uncached", Episodes: []HostedEpisode{{Title: "A", DurationS: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	url := srv.hosting.feeds[mustUUID(t, feed.ID)].episodes[0].audioURL
	if !bytes.Equal(download(t, srv, url), download(t, srv, url)) || syntheses.Load() != 2 {
		t.Fatalf("without a cache: %d syntheses, want 2 of the same bytes", syntheses.Load())
	}
	if _, err := New(WithHostedAudioCache(-1)); err == nil {
		t.Fatal("a negative cache budget was accepted")
	}
}
