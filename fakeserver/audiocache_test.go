package fakeserver

import (
	"bytes"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/hosted"
)

// countSyntheses makes srv count how often it synthesises hosted audio.
func countSyntheses(srv *Server) *atomic.Int64 {
	var n atomic.Int64
	srv.host.WrapSynthesis(func(next func(io.Writer, hosted.Episode) error) func(io.Writer, hosted.Episode) error {
		return func(w io.Writer, ep hosted.Episode) error {
			n.Add(1)
			return next(w, ep)
		}
	})
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
		{Title: "A", Duration: 1 * time.Second},
		{Title: "B", Duration: 1 * time.Second, LoudnessLUFS: &loud},
		{Title: "A", Duration: 1 * time.Second, GUID: "same values, another guid"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	eps := srv.host.AudioURLs(mustUUID(t, feed.ID))
	first := download(t, srv, eps[0])
	tests := []struct {
		url       string
		same      bool
		syntheses int64
		entries   int
	}{
		{eps[0], true, 1, 1},  // a repeat download
		{eps[1], false, 2, 2}, // other loudness: other bytes
		{eps[2], true, 2, 2},  // the same values: the same bytes
		{eps[0], true, 2, 2},
	}
	for i, tt := range tests {
		got := download(t, srv, tt.url)
		if bytes.Equal(got, first) != tt.same {
			t.Errorf("download %d: same bytes as the first = %v, want %v", i, !tt.same, tt.same)
		}
		if n := syntheses.Load(); n != tt.syntheses {
			t.Errorf("download %d: %d syntheses so far, want %d", i, n, tt.syntheses)
		}
		if n, _ := srv.host.CacheStats(); n != tt.entries {
			t.Errorf("download %d: the cache holds %d renderings, want %d", i, n, tt.entries)
		}
	}
}

// TestHostedAudioCacheOff: WithHostedAudioCache(0) synthesises every download; a negative
// budget is refused.
func TestHostedAudioCacheOff(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t, WithHostedAudioCache(0))
	syntheses := countSyntheses(srv)
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Uncached", Episodes: []HostedEpisode{{Title: "A", Duration: 1 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	url := srv.host.AudioURLs(mustUUID(t, feed.ID))[0]
	if !bytes.Equal(download(t, srv, url), download(t, srv, url)) || syntheses.Load() != 2 {
		t.Fatalf("without a cache: %d syntheses, want 2 of the same bytes", syntheses.Load())
	}
	if _, err := New(WithHostedAudioCache(-1)); err == nil {
		t.Fatal("a negative cache budget was accepted")
	}
}
