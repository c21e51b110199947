package feeds

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mmcdole/gofeed"
	"github.com/mmcdole/gofeed/rss"
)

// Parse reads feeds itself; gofeedParse is how it read them on gofeed. These
// tests hold the two to the same Parsed value (instants and the zone offset
// they are written in) and the same error Kind, except where
// documentedDifference names a difference that BEHAVIOUR.md lists.

// sameInstantAndOffset compares times by instant and zone offset (the offset
// decides PublishedOn).
var sameInstantAndOffset = cmp.Comparer(func(a, b time.Time) bool {
	_, ao := a.Zone()
	_, bo := b.Zone()
	return a.Equal(b) && ao == bo
})

// Documented differences, each a reason gofeed and Parse may disagree.
const (
	diffCharset   = "an encoding Parse refuses or reads where gofeed does not"
	diffAtomHTML  = "an Atom text construct of type html or xhtml (gofeed rewrites its markup with an HTML parser)"
	diffOtherArt  = "media:content or an <img> in the description (gofeed reads them, Parsed.ImageURL is documented without them)"
	diffNoneFound = ""
)

// declaredEncoding finds the encodings XML declarations in doc name.
var declaredEncoding = regexp.MustCompile(`<\?xml[^>]*?encoding\s*=\s*["']?([^"'?\s>]*)`)

// atomHTMLText finds a type attribute naming HTML or XHTML.
var atomHTMLText = regexp.MustCompile(`(?i)type\s*=\s*["'][^"']*html`)

// documentedDifference returns why Parse may read doc differently from
// gofeed, or "" when they must agree. The checks are deliberately broad
// (any mention anywhere), never narrower than the behaviour they excuse.
func documentedDifference(doc []byte) string {
	if _, ok := utf16BOM(doc); ok {
		return diffCharset
	}
	if bytes.Contains(doc, []byte("\xef\xbb\xbf")) || bytes.Contains(doc, []byte{0xfe, 0xff}) || bytes.Contains(doc, []byte{0xff, 0xfe}) {
		// A byte order mark after leading white space: gofeed's sniffing
		// skips it, and Parse does not look for UTF-16 there.
		if i := bytes.IndexAny(doc, "<{"); i > 0 && bytes.ContainsAny(doc[:i], "\xfe\xff") {
			return diffCharset
		}
	}
	for _, m := range declaredEncoding.FindAllSubmatch(doc, -1) {
		label := strings.ToLower(strings.TrimSpace(string(m[1])))
		if label != "utf-8" && !windows1252Labels[label] {
			return diffCharset
		}
	}
	if bytes.Contains(bytes.ToLower(doc), []byte("encoding")) && bytes.Contains(doc, []byte("<?")) && !declaredEncoding.Match(doc) {
		// A declaration the regular expression does not parse the way
		// encoding/xml does: treat it as naming some other encoding.
		return diffCharset
	}
	if atomHTMLText.Match(doc) {
		return diffAtomHTML
	}
	return diffNoneFound
}

// compareWithGofeed parses doc both ways and reports a disagreement that no
// documented difference explains.
func compareWithGofeed(t *testing.T, doc []byte) {
	t.Helper()
	want, werr := gofeedParse(bytes.NewReader(doc))
	got, gerr := Parse(bytes.NewReader(doc))
	why := documentedDifference(doc)
	if (werr == nil) != (gerr == nil) {
		if why != diffNoneFound {
			return
		}
		t.Fatalf("gofeed error %v, Parse error %v\ndocument: %q", werr, gerr, doc)
	}
	if werr != nil {
		var we, ge *Error
		if !errors.As(werr, &we) || !errors.As(gerr, &ge) {
			t.Fatalf("errors %v (%T) and %v (%T), want both *Error", werr, werr, gerr, gerr)
		}
		if we.Kind != ge.Kind {
			t.Fatalf("gofeed error %v (%v), Parse error %v (%v)\ndocument: %q", we, we.Kind, ge, ge.Kind, doc)
		}
		return
	}
	if want.ImageURL != got.ImageURL && gofeedArtFromElsewhere(doc) {
		want.ImageURL = got.ImageURL
		if got.ImageURL != "" {
			t.Fatalf("Parse found channel art %q where gofeed's comes from %s", got.ImageURL, diffOtherArt)
		}
	}
	opts := []cmp.Option{sameInstantAndOffset}
	if why == diffAtomHTML {
		opts = append(opts, cmp.FilterPath(func(p cmp.Path) bool {
			last := p.Last().String()
			return last == ".Title" || last == ".GUID"
		}, cmp.Ignore()))
	}
	if why == diffCharset {
		return
	}
	if diff := cmp.Diff(want, got, opts...); diff != "" {
		t.Fatalf("Parse differs from gofeed (-gofeed +Parse):\n%s\ndocument: %q", diff, doc)
	}
}

// gofeedArtFromElsewhere reports whether doc is RSS without an <image> and
// without an iTunes image, where gofeed takes channel art from media:content
// or the description's HTML (diffOtherArt).
func gofeedArtFromElsewhere(doc []byte) bool {
	rf, err := (&rss.Parser{}).Parse(bytes.NewReader(doc))
	if err != nil || rf.Image != nil {
		return false
	}
	f, err := gofeed.NewParser().Parse(bytes.NewReader(doc))
	if err != nil || f.Image == nil {
		return false
	}
	return strings.TrimSpace(refFeedITunes(f, "image")) == ""
}

// differentialCorpus is every document the package's tests use, and more
// that exercise what the readers do: namespaces, fallbacks, dates, charsets,
// entities and malformed XML.
func differentialCorpus() map[string]string {
	docs := map[string]string{
		"iTunes RSS":   sampleITunesRSS,
		"Atom":         sampleAtom,
		"no audio":     sampleNoAudio,
		"HTML":         sampleHTML,
		"JSON Feed":    sampleJSONFeed,
		"rendered":     string(Render(bigFeed(3))),
		"rendered 300": string(Render(bigFeed(300))),
		"rendered special": string(Render(Feed{
			Title: `Q&A: "<Tags>" & 'quotes' — ünïcødé 🎙`, Link: "https://x.example/?a=1&b=2",
			Items: []Item{{Title: `]]> <![CDATA[ & </title>`, GUID: "tag:x.example,2024:<1>&2", PublishedOn: date(2023, 12, 31), AudioURL: "https://x.example/a.wav?sig=a&b=%20c"}},
		})),
		"ordering": rssWithItems("", "Mon, 01 Jan 2024 10:00:00 +0000", "x", "Tue, 02 Jan 2024 12:00:00 +0200", "yesterday"),
		"ISO-8859-1": "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss version=\"2.0\"><channel><title>Caf\xe9 \x80\x93\x9d</title>" +
			"<item><title>\xc9t\xe9</title><enclosure url=\"https://x.example/e.mp3\" type=\"audio/mpeg\"/></item></channel></rss>",
		"windows-1252": "<?xml version='1.0' encoding='Windows-1252'?><rss><channel><title>\x93smart\x94 \x81</title>" +
			"<item><title>\x85</title><enclosure url=\"a.mp3\"/></item></channel></rss>",
		"us-ascii": `<?xml version="1.0" encoding="us-ascii"?><rss><channel><title>plain</title></channel></rss>`,
		"dc and atom fallbacks": `<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom"><channel>
			<dc:title>DC title</dc:title><atom:link rel="self" href="https://x.example/feed"/><atom:link href="https://x.example/site"/>
			<item><dc:title>Item DC</dc:title><dc:date>2024-03-05T23:30:00-05:00</dc:date><enclosure url="https://x.example/1.mp3" type="audio/mpeg"/></item>
			<item><atom:published>2024-03-06T10:00:00+09:00</atom:published><enclosure url="https://x.example/2.mp3" type="audio/mpeg"/></item>
			<item><pubDate>not a date</pubDate><dc:date>2024-03-07</dc:date><enclosure url="https://x.example/3.mp3" type="audio/mpeg"/></item>
			<item><pubDate>Thu, 07 Mar 2024 10:00:00 EST</pubDate><enclosure url="https://x.example/4.mp3" type="audio/mpeg"/></item>
			<item><pubDate>Thu, 07 Mar 2024 10:00:00 -0000</pubDate><pubDate>garbage</pubDate><enclosure url="https://x.example/5.mp3" type="audio/mpeg"/></item>
			<item><atom:updated>2024-01-01T00:00:00Z</atom:updated><dc:date></dc:date><enclosure url="https://x.example/6.mp3" type="audio/mpeg"/></item>
			</channel></rss>`,
		"xml:base": `<rss version="2.0" xml:base="https://base.example/dir/"><channel xml:base="sub"><link>page.html</link>
			<image><url xml:base="https://img.example/a/">logo.png</url></image>
			<item><guid>g</guid><enclosure url="rel.mp3" type="audio/mpeg"/></item></channel></rss>`,
		"Atom xml:base": `<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://a.example/x/"><title>T</title><link href="home"/><icon>i.png</icon>
			<entry xml:base="e/"><id>1</id><link rel="enclosure" href="a b.mp3" type="audio/mpeg"/><published>2024-01-01T00:00:00+05:30</published></entry></feed>`,
		"Atom 0.3": `<feed version="0.3" xmlns="http://purl.org/atom/ns#"><title mode="escaped">A &amp;amp; B</title><link rel="alternate" href="https://a.example/"/>
			<entry><title>E</title><id>tag:a,2004:1</id><issued>2004-01-01T00:00:00Z</issued><modified>2004-01-02T00:00:00Z</modified>
			<link rel="enclosure" href="https://a.example/e.mp3" type="audio/mpeg" length="12"/></entry></feed>`,
		"Atom base64 title": `<feed xmlns="http://www.w3.org/2005/Atom"><title type="image/png">SGVsbG8=</title><entry><title mode="base64">V29ybGQ=</title><link rel="enclosure" href="x.mp3"/></entry></feed>`,
		"RSS 1.0 items": `<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
			<channel><title>R</title><link>https://r.example/</link></channel><image><url>https://r.example/i.png</url></image>
			<item><title>one</title><enclosure url="https://r.example/1.mp3" type="audio/mpeg"/><itunes:duration>1:00</itunes:duration></item></rdf:RDF>`,
		"RSS 0.91": `<rss version="0.91"><channel><title>Old</title><item><title>i</title><enclosure url="https://o.example/a.mp3" length="10" type="audio/mpeg"/></item></channel></rss>`,
		"lenient XML": "<rss version=\"2.0\"><channel><title>A & B &nbsp; &copy; &eacute; &unknown; \x01\x02</title><link>https://x.example/?a=1&b=2</link>" +
			"<item><title>Fish &amp; <b>Chips</b></title><guid>  spaced  </guid><enclosure url=\"https://x.example/a.mp3?x=1&amp;y=2\" type=\"audio/mpeg\"></enclosure><itunes:duration>10</itunes:duration><itunes:explicit>yes</itunes:explicit></item>" +
			"<item><title>unclosed <i>tag</title><enclosure url=\"b.mp3\"/></item></channel></rss>",
		"bogus default namespace": `<rss version="2.0" xmlns="http://bogus.example/ns"><channel><title>NS</title><item><enclosure url="https://x.example/a.mp3" type="audio/mpeg"/></item></channel></rss>`,
		"itunes under another prefix": `<rss xmlns:it="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:itunes="http://www.itunes.com/DTDs/PodCast-1.0.dtd"><channel><it:explicit>yes</it:explicit><itunes:image href="https://x.example/art.png"/>
			<item><enclosure url="a.mp3"/><it:duration>10</it:duration><itunes:duration><b>5</b>6</itunes:duration><itunes:explicit></itunes:explicit><itunes:explicit>clean</itunes:explicit></item></channel></rss>`,
		"art from media:content": `<rss xmlns:media="http://search.yahoo.com/mrss/"><channel><title>M</title><media:content url="https://x.example/m.jpg" type="image/jpeg"/></channel></rss>`,
		"art in the description": `<rss><channel><title>D</title><description>&lt;img src="https://x.example/d.png"&gt;</description></channel></rss>`,
		"itunes image as text":   `<rss><channel><itunes:image>https://x.example/t.png</itunes:image><image><url>https://x.example/rss.png</url></image></channel></rss>`,
		"comments and PIs":       `<?xml version="1.0"?><!-- c --><!DOCTYPE rss><?pi x?><rss><channel><!-- c --><title><!-- c -->T</title><item><enclosure url="a.mp3"/></item></channel></rss> trailing garbage <<<`,
		"mismatched tags":        `<rss><channel><title>T</titel><item><enclosure url="a.mp3"></item></channel></rss>`,
		"named zones":            rssWithItems("Mon, 02 Jan 2006 15:04:05 PST", "Mon, 02 Jan 2006 15:04:05 CEST", "Mon, 02 Jan 2006 15:04:05 XYZ", "02/01/2006", "2006-01-02", "Monday, January 2, 2006"),
	}
	for i, s := range fuzzSeeds {
		docs[fmt.Sprintf("fuzz seed %d", i)] = s
	}
	for _, v := range []string{"true", "yes", " Yes ", "clean", "maybe", ""} {
		docs["explicit "+v] = `<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>T</title><itunes:explicit>` + v +
			`</itunes:explicit><item><enclosure url="https://x.example/a.mp3" type="audio/mpeg"/><itunes:explicit>` + v + `</itunes:explicit></item></channel></rss>`
	}
	for i, encs := range []string{
		`<enclosure url="https://x.example/a" type="Audio/MP4; codecs=mp4a.40.2"/>`,
		`<enclosure url="https://x.example/a.mp3" type="video/mp4"/>`,
		`<enclosure url="https://x.example/path/a.m4a?x=1"/>`,
		`<enclosure url="https://x.example/dl?f=a.mp3"/>`,
		`<enclosure url="" type="audio/mpeg"/>`,
		`<enclosure url="https://x.example/i.png" type="image/png"/><enclosure url="https://x.example/1.ogg" type="audio/ogg"/>`,
		`<enclosure xmlns:x="urn:x" x:url="https://x.example/ns.mp3" url="https://x.example/plain.mp3"/>`,
		`<enclosure url="https://x.example/a.mp3"><child>text</child></enclosure>`,
	} {
		docs[fmt.Sprintf("enclosure %d", i)] = `<rss version="2.0"><channel><title>T</title><item><guid>g</guid>` + encs + `</item></channel></rss>`
	}
	return docs
}

func TestParseAgreesWithGofeed(t *testing.T) {
	t.Parallel()
	for name, doc := range differentialCorpus() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if why := documentedDifference([]byte(doc)); why != diffNoneFound && !strings.Contains(name, "charset") {
				t.Logf("documented difference: %s", why)
			}
			compareWithGofeed(t, []byte(doc))
		})
	}
}

func FuzzParseAgreesWithGofeed(f *testing.F) {
	for _, doc := range differentialCorpus() {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		compareWithGofeed(t, doc)
	})
}
