package feeds

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

func instant(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return &t
}

func TestParseSamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  string
		want *Parsed
	}{
		{
			name: "iTunes RSS, unsorted, mixed items",
			doc:  sampleITunesRSS,
			want: &Parsed{
				Title:    "Night & Day <Radio>",
				Link:     "https://nightday.example/",
				ImageURL: "https://nightday.example/art.jpg",
				Explicit: ptr(true),
				Episodes: []Episode{
					{
						// Newest, though third in the feed; no guid.
						Title: "Ep. 42", GUID: "https://cdn.example/nd/42.m4a",
						AudioURL: "https://cdn.example/nd/42.m4a", AudioType: "audio/x-m4a",
						Published: instant("2024-03-11T10:00:00Z"), PublishedOn: ptr(date(2024, 3, 11)),
						Duration: 45*time.Minute + 30*time.Second,
					},
					{
						// 23:30 -0500 is 04:30 UTC the next day; the date is the one written.
						Title: `Ep. 41 — "Quotes" & <Brackets>`, GUID: "nd-41",
						AudioURL: "https://cdn.example/nd/41.mp3?src=rss&x=1", AudioType: "audio/mpeg", AudioLength: 51234567,
						Published: instant("2024-03-05T23:30:00-05:00"), PublishedOn: ptr(date(2024, 3, 5)),
						Duration: time.Hour + 2*time.Minute + 3*time.Second, Explicit: ptr(false),
					},
					{
						// Same instant as Ep. 41: feed order is kept.
						Title: "Ep. 41 (repeat)", GUID: "nd-41-repeat",
						AudioURL: "https://cdn.example/nd/41r.mp3", AudioType: "audio/mpeg", AudioLength: 1,
						Published: instant("2024-03-06T04:30:00Z"), PublishedOn: ptr(date(2024, 3, 6)),
						Explicit: ptr(true),
					},
					{
						// The image enclosure is passed over for the audio one.
						Title: "Ep. 40", GUID: "https://nightday.example/40",
						AudioURL: "https://cdn.example/nd/40.mp3", AudioType: "audio/mpeg; charset=binary", AudioLength: 3000,
						Published: instant("2024-03-01T12:00:00Z"), PublishedOn: ptr(date(2024, 3, 1)),
						Duration: time.Hour,
					},
					{
						// Undated, enclosure without a type: known by its extension.
						Title: "Bonus (undated)", GUID: "nd-bonus",
						AudioURL: "https://cdn.example/nd/bonus.MP3?sig=abc#t=10", AudioType: "audio/mpeg",
						Duration: 12*time.Hour + 34*time.Minute + 56*time.Second + 500*time.Millisecond,
					},
					{
						// An unreadable date counts as undated.
						Title: "Trailer (bad date)", GUID: "nd-trailer",
						AudioURL: "https://cdn.example/nd/trailer.wav", AudioType: "audio/wav", AudioLength: 10,
					},
				},
			},
		},
		{
			name: "Atom with enclosure links",
			doc:  sampleAtom,
			want: &Parsed{
				Title:    "Atom Cast",
				Link:     "https://atom.example/",
				ImageURL: "https://atom.example/logo.png",
				Explicit: ptr(false),
				Episodes: []Episode{
					{
						// Only <updated>: used as the publication instant.
						Title: "Newer episode", GUID: "urn:uuid:1225c695-cfb8-4ebb-bbbb-80da344efa6b",
						AudioURL: "https://atom.example/newer.ogg", AudioType: "audio/ogg",
						Published: instant("2024-02-01T09:00:00Z"), PublishedOn: ptr(date(2024, 2, 1)),
					},
					{
						Title: "Older episode", GUID: "urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a",
						AudioURL: "https://atom.example/older.mp3", AudioType: "audio/mpeg", AudioLength: 1234,
						Published: instant("2024-01-01T00:30:00+01:00"), PublishedOn: ptr(date(2024, 1, 1)),
						Duration: 10 * time.Minute, Explicit: ptr(true),
					},
				},
			},
		},
		{
			name: "no audio episodes is not an error",
			doc:  sampleNoAudio,
			want: &Parsed{Title: "Just a blog", Link: "https://blog.example/"},
		},
		{
			name: "RSS 1.0 (RDF) without enclosures",
			doc:  fuzzSeeds[len(fuzzSeeds)-1],
			want: &Parsed{Title: "R"},
		},
		{
			name: "minimal RSS without namespace or channel fields",
			doc:  `<rss version="2.0"><channel><item><enclosure url=" a.mp3 "/></item></channel></rss>`,
			want: &Parsed{Episodes: []Episode{{GUID: "a.mp3", AudioURL: "a.mp3", AudioType: "audio/mpeg"}}},
		},
		{
			name: "ISO-8859-1 document",
			doc: "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss version=\"2.0\"><channel><title>Caf\xe9</title>" +
				"<item><title>\xc9t\xe9</title><enclosure url=\"https://x.example/e.mp3\" type=\"audio/mpeg\"/></item></channel></rss>",
			want: &Parsed{Title: "Café", Episodes: []Episode{{Title: "Été", GUID: "https://x.example/e.mp3", AudioURL: "https://x.example/e.mp3", AudioType: "audio/mpeg"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(strings.NewReader(tt.doc))
			if err != nil {
				t.Fatalf("Parse error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseKeepsWrittenOffset checks that Published carries the offset the
// feed wrote, which is what makes PublishedOn the feed's own date.
func TestParseKeepsWrittenOffset(t *testing.T) {
	t.Parallel()
	p, err := Parse(strings.NewReader(sampleITunesRSS))
	if err != nil {
		t.Fatal(err)
	}
	ep := p.Episodes[1]
	if _, off := ep.Published.Zone(); off != -5*3600 {
		t.Errorf("Published = %v, want the feed's -0500 offset", ep.Published)
	}
	if ep.PublishedOn.Location() != time.UTC || !ep.PublishedOn.Equal(date(2024, 3, 5)) {
		t.Errorf("PublishedOn = %v, want 2024-03-05 00:00 UTC", ep.PublishedOn)
	}
}

// rssWithItems returns an RSS document with one audio item per pubDate; an
// empty pubDate writes no pubDate element. Item i has guid "i<i>".
func rssWithItems(pubDates ...string) string {
	var b strings.Builder
	b.WriteString(`<rss version="2.0"><channel><title>T</title>`)
	for i, d := range pubDates {
		fmt.Fprintf(&b, `<item><guid>i%d</guid>`, i)
		if d != "" {
			fmt.Fprintf(&b, `<pubDate>%s</pubDate>`, d)
		}
		fmt.Fprintf(&b, `<enclosure url="https://x.example/%d.mp3" type="audio/mpeg"/></item>`, i)
	}
	b.WriteString(`</channel></rss>`)
	return b.String()
}

func TestParseOrdering(t *testing.T) {
	t.Parallel()
	const (
		d1 = "Mon, 01 Jan 2024 10:00:00 +0000"
		d2 = "Tue, 02 Jan 2024 10:00:00 +0000"
		d3 = "Wed, 03 Jan 2024 10:00:00 +0000"
		// The same instant as d2, written in another offset.
		d2east = "Tue, 02 Jan 2024 12:00:00 +0200"
	)
	tests := []struct {
		name  string
		dates []string
		want  []string
	}{
		{"already newest first", []string{d3, d2, d1}, []string{"i0", "i1", "i2"}},
		{"oldest first", []string{d1, d2, d3}, []string{"i2", "i1", "i0"}},
		{"shuffled", []string{d2, d3, d1}, []string{"i1", "i0", "i2"}},
		{"equal instants keep feed order", []string{d1, d2, d2east, d3}, []string{"i3", "i1", "i2", "i0"}},
		{"undated go last in feed order", []string{"", d1, "", d3, ""}, []string{"i3", "i1", "i0", "i2", "i4"}},
		{"all undated keep feed order", []string{"", "", ""}, []string{"i0", "i1", "i2"}},
		{"unreadable date is undated", []string{"yesterday", d1}, []string{"i1", "i0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Parse(strings.NewReader(rssWithItems(tt.dates...)))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range p.Episodes {
				got = append(got, e.GUID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("order mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseExplicit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value string // "-" writes no element
		want  *bool
	}{
		{"true", ptr(true)},
		{"yes", ptr(true)},
		{" Yes ", ptr(true)},
		{"explicit", ptr(true)},
		{"TRUE", ptr(true)},
		{"false", ptr(false)},
		{"no", ptr(false)},
		{"clean", ptr(false)},
		{"Clean", ptr(false)},
		{"", nil},
		{"maybe", nil},
		{"-", nil},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			t.Parallel()
			el := ""
			if tt.value != "-" {
				el = "<itunes:explicit>" + tt.value + "</itunes:explicit>"
			}
			doc := `<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>T</title>` + el +
				`<item><enclosure url="https://x.example/a.mp3" type="audio/mpeg"/>` + el + `</item></channel></rss>`
			p, err := Parse(strings.NewReader(doc))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, p.Explicit); diff != "" {
				t.Errorf("channel Explicit mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, p.Episodes[0].Explicit); diff != "" {
				t.Errorf("item Explicit mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"3600", time.Hour},
		{" 90 ", 90 * time.Second},
		{"1234.5", 1234*time.Second + 500*time.Millisecond},
		{"05:07", 5*time.Minute + 7*time.Second},
		{"75:30", 75*time.Minute + 30*time.Second},
		{"1:02:03", time.Hour + 2*time.Minute + 3*time.Second},
		{"100:00:00", 100 * time.Hour},
		{"00:00:01.25", 1250 * time.Millisecond},
		{"1:2:3:4", 0},
		{"1.5:00", 0},
		{"-5", 0},
		{"+5", 0},
		{"1e3", 0},
		{"12.", 0},
		{".5", 0},
		{"1::2", 0},
		{"abc", 0},
		{"NaN", 0},
		{"99999999999999999999", 0},
		{"1 hour", 0},
	}
	for _, tt := range tests {
		if got := parseDuration(tt.in); got != tt.want {
			t.Errorf("parseDuration(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseEnclosureChoice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		encs     string
		wantURL  string // "" means the item is skipped
		wantType string
	}{
		{"audio type", `<enclosure url="https://x.example/a" type="audio/mpeg"/>`, "https://x.example/a", "audio/mpeg"},
		{"audio type with parameters", `<enclosure url="https://x.example/a" type="Audio/MP4; codecs=mp4a.40.2"/>`, "https://x.example/a", "Audio/MP4; codecs=mp4a.40.2"},
		{"video type", `<enclosure url="https://x.example/a.mp3" type="video/mp4"/>`, "", ""},
		{"octet-stream type is not audio", `<enclosure url="https://x.example/a.mp3" type="application/octet-stream"/>`, "", ""},
		{"no type, audio extension", `<enclosure url="https://x.example/path/a.m4a?x=1"/>`, "https://x.example/path/a.m4a?x=1", "audio/mp4"},
		{"no type, wav", `<enclosure url="https://x.example/a.WAV"/>`, "https://x.example/a.WAV", "audio/wav"},
		{"no type, other extension", `<enclosure url="https://x.example/a.pdf"/>`, "", ""},
		{"no type, extension only in query", `<enclosure url="https://x.example/dl?f=a.mp3"/>`, "", ""},
		{"empty url", `<enclosure url="" type="audio/mpeg"/>`, "", ""},
		{"first audio wins", `<enclosure url="https://x.example/i.png" type="image/png"/><enclosure url="https://x.example/1.ogg" type="audio/ogg"/><enclosure url="https://x.example/2.mp3" type="audio/mpeg"/>`, "https://x.example/1.ogg", "audio/ogg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := `<rss version="2.0"><channel><title>T</title><item><guid>g</guid>` + tt.encs + `</item></channel></rss>`
			p, err := Parse(strings.NewReader(doc))
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantURL == "" {
				if len(p.Episodes) != 0 {
					t.Errorf("Episodes = %+v, want the item skipped", p.Episodes)
				}
				return
			}
			if len(p.Episodes) != 1 {
				t.Fatalf("got %d episodes, want 1", len(p.Episodes))
			}
			if e := p.Episodes[0]; e.AudioURL != tt.wantURL || e.AudioType != tt.wantType {
				t.Errorf("AudioURL, AudioType = %q, %q; want %q, %q", e.AudioURL, e.AudioType, tt.wantURL, tt.wantType)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		r        io.Reader
		wantKind Kind
		wantMsg  string
	}{
		{"empty", strings.NewReader(""), KindParse, "the document is empty, not an RSS or Atom feed"},
		{"white space", strings.NewReader(" \n\t "), KindParse, "the document is empty, not an RSS or Atom feed"},
		{"plain text", strings.NewReader("Not Found"), KindParse, "the document is not an RSS or Atom feed"},
		{"HTML page", strings.NewReader(sampleHTML), KindParse, "the document is an HTML page, not an RSS or Atom feed"},
		{"JSON Feed", strings.NewReader(sampleJSONFeed), KindParse, "the document is JSON, not an RSS or Atom feed"},
		{"other XML", strings.NewReader(`<?xml version="1.0"?><opml version="2.0"><body/></opml>`), KindParse, "the document is not an RSS or Atom feed"},
		{"truncated RSS", strings.NewReader(`<rss version="2.0"><channel><title>x</title><item><title>a`), KindParse, "the feed could not be parsed: XML syntax error on line 1: unexpected EOF"},
		{"reader fails at once", iotest.ErrReader(errors.New("boom")), KindFetch, "the feed could not be read completely"},
		{"reader fails while parsing", io.MultiReader(strings.NewReader(string(Render(bigFeed(50))[:20000])), iotest.ErrReader(errors.New("reset"))), KindFetch, "the feed could not be read completely"},
		{"reader fails early", io.MultiReader(strings.NewReader(sampleITunesRSS[:2000]), iotest.ErrReader(errors.New("reset"))), KindFetch, "the feed could not be read completely"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Parse(tt.r)
			if p != nil {
				t.Errorf("Parse returned %+v with an error", p)
			}
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("Parse error = %v (%T), want *Error", err, err)
			}
			if fe.Kind != tt.wantKind || fe.Message != tt.wantMsg || err.Error() != tt.wantMsg {
				t.Errorf("Parse error = {%v %q}, want {%v %q}", fe.Kind, fe.Message, tt.wantKind, tt.wantMsg)
			}
		})
	}
}

func TestKindString(t *testing.T) {
	t.Parallel()
	for k, want := range map[Kind]string{KindFetch: "fetch", KindParse: "parse", 0: "unknown"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}
