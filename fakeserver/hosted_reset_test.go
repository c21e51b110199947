package fakeserver

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// hostedFixtures is a feed of two 3 s MP3 episodes, one of them calibrated to a true peak: the
// fixtures whose reset took a second when each reset synthesised and encoded them again.
func hostedFixtures() Fixtures {
	peak, loud := -1.0, -16.0
	return Fixtures{Feeds: []FixtureFeed{{Ref: "show", HostedFeedSpec: HostedFeedSpec{Title: "Show", Episodes: []HostedEpisode{
		{Title: "Two", GUID: "two", Duration: 3 * time.Second, LoudnessLUFS: &loud, TruePeakDB: &peak},
		{Title: "One", GUID: "one", Duration: 3 * time.Second},
	}}}}}
}

// TestResetKeepsRenderedAudio: hosted audio is a function of its values, so a reset that hosts
// the same fixtures again prepares nothing (no plan, no calibration encode) and synthesises
// nothing; the audio is rendered on its first download and served from the cache after resets.
func TestResetKeepsRenderedAudio(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t, WithFixtures(hostedFixtures()))
	syntheses := countSyntheses(srv)
	if n := srv.host.Preparations(); n != 2 {
		t.Fatalf("%d preparations after New, want 2", n)
	}
	feed := srv.Fixtures().Feeds["show"]
	urls := srv.host.AudioURLs(mustUUID(t, feed.ID))
	first := download(t, srv, urls[0])
	for i := range 3 {
		if _, err := srv.Reset(); err != nil {
			t.Fatal(err)
		}
		if n := srv.host.Preparations(); n != 2 {
			t.Errorf("reset %d: %d preparations, want still 2", i, n)
		}
		if srv.Fixtures().Feeds["show"] != feed {
			t.Errorf("reset %d: the feed is now %+v, was %+v", i, srv.Fixtures().Feeds["show"], feed)
		}
		if got := download(t, srv, urls[0]); !bytes.Equal(got, first) {
			t.Errorf("reset %d: other audio", i)
		}
		if n := syntheses.Load(); n != 1 {
			t.Errorf("reset %d: %d syntheses, want 1", i, n)
		}
	}
}

// TestImpossibleFixtureEpisodeNamedByPath: fixtures whose hosted episode asks for what cannot be
// made are refused naming the episode's JSON path, index and title.
func TestImpossibleFixtureEpisodeNamedByPath(t *testing.T) {
	t.Parallel()
	f := hostedFixtures()
	loud, peak := -6.0, -20.0
	f.Feeds[0].Episodes = append(f.Feeds[0].Episodes, HostedEpisode{Title: "Loud and low", Duration: 3 * time.Second, LoudnessLUFS: &loud, TruePeakDB: &peak})
	_, err := New(WithFixtures(f))
	var fe *FixtureError
	if !errors.As(err, &fe) || fe.Path != "feeds[0].episodes[2]" || !strings.Contains(fe.Reason, `Episode 2 ("Loud and low")`) {
		t.Fatalf("New = %v, want a fixtures error at feeds[0].episodes[2] naming the episode", err)
	}
}

// BenchmarkResetWithHostedFeed times a reset whose fixtures host a feed of two MP3 episodes.
func BenchmarkResetWithHostedFeed(b *testing.B) {
	srv, err := New(WithFixtures(hostedFixtures()))
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := srv.Reset(); err != nil {
			b.Fatal(err)
		}
	}
}
