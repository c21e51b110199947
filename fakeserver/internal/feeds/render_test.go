package feeds

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestRenderExact(t *testing.T) {
	t.Parallel()
	f := Feed{
		Title:       `Tom & Jerry's "Show" <live>`,
		Link:        "https://fake.example/shows/1",
		Description: "About cats & mice",
		Explicit:    true,
		ImageURL:    "https://fake.example/art.png?a=1&b=2",
		Items: []Item{
			{
				Title:       "Episode 2",
				Description: "Notes",
				GUID:        "ep-2",
				PublishedOn: time.Date(2024, 3, 5, 23, 59, 0, 0, time.FixedZone("X", -5*3600)),
				AudioURL:    "https://fake.example/a/2.wav",
				AudioLength: 1234,
				Duration:    3723*time.Second + 500*time.Millisecond,
				Explicit:    ptr(false),
			},
			{
				Title:     "Episode 1",
				AudioURL:  "https://fake.example/a/1.mp3",
				AudioType: "audio/mpeg",
				Duration:  100 * time.Hour,
			},
			{Title: "No audio"},
		},
	}
	want := `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
  <channel>
    <title>Tom &amp; Jerry&#39;s &#34;Show&#34; &lt;live&gt;</title>
    <link>https://fake.example/shows/1</link>
    <description>About cats &amp; mice</description>
    <itunes:explicit>true</itunes:explicit>
    <itunes:image href="https://fake.example/art.png?a=1&amp;b=2"></itunes:image>
    <item>
      <title>Episode 2</title>
      <description>Notes</description>
      <guid isPermaLink="false">ep-2</guid>
      <pubDate>Tue, 05 Mar 2024 00:00:00 +0000</pubDate>
      <enclosure url="https://fake.example/a/2.wav" length="1234" type="audio/wav"></enclosure>
      <itunes:duration>01:02:04</itunes:duration>
      <itunes:explicit>false</itunes:explicit>
    </item>
    <item>
      <title>Episode 1</title>
      <enclosure url="https://fake.example/a/1.mp3" length="0" type="audio/mpeg"></enclosure>
      <itunes:duration>100:00:00</itunes:duration>
    </item>
    <item>
      <title>No audio</title>
      <itunes:duration>00:00:00</itunes:duration>
    </item>
  </channel>
</rss>
`
	got := Render(f)
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("Render mismatch (-want +got):\n%s", diff)
	}
	if again := Render(f); !bytes.Equal(got, again) {
		t.Error("Render is not deterministic")
	}
}

func TestRenderEmptyAndInvalidText(t *testing.T) {
	t.Parallel()
	got := string(Render(Feed{Title: "bad \x00\x01 text \xff"}))
	for _, want := range []string{
		"<title>bad \uFFFD\uFFFD text \uFFFD</title>",
		"<itunes:explicit>false</itunes:explicit>",
		"<description></description>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Render output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "<item>") || strings.Contains(got, "itunes:image") {
		t.Errorf("Render wrote an item or image for an empty feed:\n%s", got)
	}
}

func TestFormatHMS(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   time.Duration
		want string
	}{
		{0, "00:00:00"},
		{-5 * time.Second, "00:00:00"},
		{499 * time.Millisecond, "00:00:00"},
		{500 * time.Millisecond, "00:00:01"},
		{59*time.Minute + 59*time.Second, "00:59:59"},
		{time.Hour, "01:00:00"},
		{123*time.Hour + 4*time.Minute + 5*time.Second, "123:04:05"},
	}
	for _, tt := range tests {
		if got := formatHMS(tt.in); got != tt.want {
			t.Errorf("formatHMS(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// expectParsed is what Parse must return for Render(f): the items with
// audio, in the order given, with the documented defaults applied.
func expectParsed(f Feed) *Parsed {
	p := &Parsed{Title: f.Title, Link: f.Link, ImageURL: f.ImageURL, Explicit: ptr(f.Explicit)}
	for _, it := range f.Items {
		if it.AudioURL == "" {
			continue
		}
		e := Episode{
			Title:       it.Title,
			GUID:        it.GUID,
			AudioURL:    it.AudioURL,
			AudioType:   it.AudioType,
			AudioLength: it.AudioLength,
			Duration:    max(it.Duration.Round(time.Second), 0),
			Explicit:    it.Explicit,
		}
		if e.GUID == "" {
			e.GUID = e.AudioURL
		}
		if e.AudioType == "" {
			e.AudioType = DefaultAudioType
		}
		if !it.PublishedOn.IsZero() {
			y, m, d := it.PublishedOn.Date()
			e.Published, e.PublishedOn = ptr(date(y, m, d)), ptr(date(y, m, d))
		}
		p.Episodes = append(p.Episodes, e)
	}
	return p
}

func TestRenderParseRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		feed Feed
	}{
		{name: "empty feed", feed: Feed{Title: "Empty", Link: "https://x.example/"}},
		{
			name: "typical hosted feed",
			feed: Feed{
				Title: "Fake Show", Link: "https://fake.example/", Description: "d", Explicit: true,
				ImageURL: "https://fake.example/art.png",
				Items: []Item{
					{Title: "Three", GUID: "g3", PublishedOn: date(2024, 5, 3), AudioURL: "https://fake.example/3.wav", AudioLength: 48_000_044, Duration: 30 * time.Minute, Explicit: ptr(true)},
					{Title: "Two", GUID: "g2", PublishedOn: date(2024, 5, 2), AudioURL: "https://fake.example/2.wav", Duration: 90*time.Second + 400*time.Millisecond, Explicit: ptr(false)},
					{Title: "One", GUID: "g1", PublishedOn: date(2024, 5, 1), AudioURL: "https://fake.example/1.mp3", AudioType: "audio/mpeg", Duration: 26 * time.Hour},
				},
			},
		},
		{
			name: "special characters",
			feed: Feed{
				Title: `Q&A: "<Tags>" & 'quotes' — ünïcødé 🎙`, Link: "https://x.example/?a=1&b=2",
				Items: []Item{{
					Title: `]]> <![CDATA[ & </title>`, GUID: "tag:x.example,2024:<1>&2",
					PublishedOn: date(2023, 12, 31), AudioURL: "https://x.example/a.wav?sig=a&b=%20c",
				}},
			},
		},
		{
			name: "no guid, no date, no audio",
			feed: Feed{
				Title: "Sparse",
				Items: []Item{
					{Title: "dated", PublishedOn: date(2020, 1, 1), AudioURL: "https://x.example/d.wav"},
					{Title: "post without audio", GUID: "post"},
					{Title: "undated b", AudioURL: "https://x.example/b.wav"},
					{Title: "undated a", GUID: "ga", AudioURL: "https://x.example/a.wav"},
				},
			},
		},
		{
			name: "same day keeps order",
			feed: Feed{
				Title: "Daily",
				Items: []Item{
					{Title: "evening", GUID: "e", PublishedOn: date(2024, 1, 2), AudioURL: "https://x.example/e.wav"},
					{Title: "morning", GUID: "m", PublishedOn: date(2024, 1, 2), AudioURL: "https://x.example/m.wav"},
					{Title: "yesterday", GUID: "y", PublishedOn: date(2024, 1, 1), AudioURL: "https://x.example/y.wav"},
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(bytes.NewReader(Render(tt.feed)))
			if err != nil {
				t.Fatalf("Parse(Render(feed)) error: %v", err)
			}
			if diff := cmp.Diff(expectParsed(tt.feed), got); diff != "" {
				t.Errorf("round trip mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRenderParseLarge checks the round trip keeps the order of many
// episodes published on distinct days.
func TestRenderParseLarge(t *testing.T) {
	t.Parallel()
	f := bigFeed(300)
	got, err := Parse(bytes.NewReader(Render(f)))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(expectParsed(f), got); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
}

// bigFeed returns a hosted feed of n daily episodes, newest first.
func bigFeed(n int) Feed {
	f := Feed{
		Title:       "Benchmark Daily",
		Link:        "https://fake.example/shows/bench",
		Description: "A long-running daily show.",
		ImageURL:    "https://fake.example/shows/bench/art.png",
	}
	newest := date(2025, 6, 30)
	for i := range n {
		f.Items = append(f.Items, Item{
			Title:       fmt.Sprintf("Episode %d: news & views", n-i),
			Description: "Today on the show: things <and> stuff.",
			GUID:        fmt.Sprintf("bench-%04d", n-i),
			PublishedOn: newest.AddDate(0, 0, -i),
			AudioURL:    fmt.Sprintf("https://fake.example/audio/bench/%04d.wav", n-i),
			AudioLength: int64(40_000_000 + i),
			Duration:    time.Duration(1800+i) * time.Second,
			Explicit:    ptr(i%7 == 0),
		})
	}
	return f
}
