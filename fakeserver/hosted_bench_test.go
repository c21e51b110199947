package fakeserver

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
)

// BenchmarkHostedDownload is a repeat download of a hosted episode's audio (a minute of stereo
// 44.1 kHz with the default tags and cover, as WAV and as the default 128 kbit/s MP3), as every
// report on the episode makes, with the default cache of rendered audio and, as the baseline,
// without it (synthesised, and encoded, every time).
func BenchmarkHostedDownload(b *testing.B) {
	for _, bc := range []struct {
		name, format string
		opts         []Option
	}{
		{"cached", "wav", nil}, {"uncached", "wav", []Option{WithHostedAudioCache(0)}},
		{"mp3_cached", "mp3", nil}, {"mp3_uncached", "mp3", []Option{WithHostedAudioCache(0)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv, _ := NewTest(b, bc.opts...)
			feed, err := srv.HostFeed(HostedFeedSpec{Title: "Bench", Episodes: []HostedEpisode{{Title: "One minute", Duration: 60 * time.Second, Format: bc.format}}})
			if err != nil {
				b.Fatal(err)
			}
			audioURL := srv.host.AudioURLs(mustUUID(b, feed.ID))[0]
			get := func() int64 {
				resp, err := srv.Client().Get(audioURL)
				if err != nil {
					b.Fatal(err)
				}
				defer resp.Body.Close()
				n, err := io.Copy(io.Discard, resp.Body)
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatal(resp.StatusCode, err)
				}
				return n
			}
			size := get() // the first download
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				get()
			}
		})
	}
}

func mustUUID(tb testing.TB, s string) uuid.UUID {
	tb.Helper()
	id, err := uuid.Parse(s)
	if err != nil {
		tb.Fatal(err)
	}
	return id
}
