package feeds

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Parsed is a feed as read by [Parse] or [Fetch].
type Parsed struct {
	// Title is the channel (RSS) or feed (Atom) title, trimmed.
	Title string
	// Link is the channel link (RSS) or the feed's alternate link (Atom).
	Link string
	// ImageURL is the channel artwork (itunes:image, else the RSS image,
	// else the Atom logo or icon), or empty.
	ImageURL string
	// Explicit is the channel's itunes:explicit flag: true for "true",
	// "yes" or "explicit", false for "false", "no" or "clean" (any case);
	// nil when the flag is absent or has another value.
	Explicit *bool
	// Episodes are the items with an audio enclosure, newest first; see
	// the package documentation for the ordering and GUID rules.
	Episodes []Episode
}

// Episode is one item of a [Parsed] feed.
type Episode struct {
	// Title is the item title, trimmed.
	Title string
	// GUID is the item's guid or Atom id, else AudioURL; never empty.
	GUID string
	// AudioURL is the URL of the item's audio enclosure; never empty. It is
	// kept as written in the feed.
	AudioURL string
	// AudioType is the enclosure's MIME type as written, or the type
	// implied by the URL's extension when the feed gives none.
	AudioType string
	// AudioLength is the enclosure length in bytes; 0 when missing or not
	// a non-negative integer.
	AudioLength int64
	// Published is the publication instant (RSS pubDate or dc:date, Atom
	// published else updated), or nil when missing or unreadable. It is in
	// the numeric zone offset the feed wrote, else in UTC.
	Published *time.Time
	// PublishedOn is the calendar date of Published (so the date the feed
	// states, in its own offset) at midnight UTC; nil when Published is nil.
	PublishedOn *time.Time
	// Duration is the itunes:duration, given as seconds, MM:SS or
	// HH:MM:SS (seconds may have a fraction); 0 when missing or invalid.
	Duration time.Duration
	// Explicit is the item's itunes:explicit flag, read like
	// [Parsed.Explicit]; nil when absent.
	Explicit *bool
}

// peekSize is how much of a document Parse inspects to recognise its type;
// a feed whose root element starts later is not recognised.
const peekSize = 4096

// feedFormat is what the start of a document says it is.
type feedFormat int

const (
	formatUnknown feedFormat = iota
	formatRSS
	formatAtom
	formatJSON
)

// Parse reads an RSS (0.9x, 1.0 or 2.0) or Atom feed from r. A document that
// is not such a feed yields an [*Error] of kind [KindParse]; an error from r
// itself yields one of kind [KindFetch]. A feed without any audio episode is
// not an error: it parses to zero episodes. Parse never panics.
//
// The XML is read leniently (undeclared prefixes, unescaped ampersands,
// HTML entities such as &nbsp; and mismatched end tags are tolerated, and
// control characters are dropped) in UTF-8, UTF-16 with a byte order mark,
// US-ASCII, ISO-8859-1 or windows-1252; a document declaring any other
// encoding is a [KindParse] error whose Err is an [*UnsupportedCharsetError].
func Parse(r io.Reader) (p *Parsed, err error) {
	defer func() {
		// Parse reads untrusted input; should it ever panic, report the
		// document as unreadable rather than bring the caller down.
		if v := recover(); v != nil {
			p, err = nil, parseError("the feed could not be parsed", fmt.Errorf("panic: %v", v))
		}
	}()

	rr := &recordingReader{r: r}
	br := bufio.NewReaderSize(rr, peekSize)
	prefix, perr := br.Peek(peekSize)
	if perr != nil && !errors.Is(perr, io.EOF) {
		return nil, fetchError("the feed could not be read completely", perr)
	}
	if len(bytes.TrimLeft(prefix, " \t\r\n\ufeff\x00")) == 0 {
		return nil, parseError("the document is empty, not an RSS or Atom feed", nil)
	}
	charsets := &charsetReader{}
	if bigEndian, ok := utf16BOM(prefix); ok {
		charsets.utf16 = true
		br = bufio.NewReaderSize(newUTF16Reader(br, bigEndian), peekSize)
		if prefix, perr = br.Peek(peekSize); perr != nil && !errors.Is(perr, io.EOF) {
			return nil, fetchError("the feed could not be read completely", perr)
		}
	}
	format, derr := detectFormat(prefix, charsets)
	if rr.err != nil {
		return nil, fetchError("the feed could not be read completely", rr.err)
	}
	if cerr := (*UnsupportedCharsetError)(nil); errors.As(derr, &cerr) {
		return nil, parseError("the feed could not be parsed: "+cerr.Error(), cerr)
	}
	switch format {
	case formatRSS, formatAtom:
	case formatJSON:
		return nil, parseError("the document is JSON, not an RSS or Atom feed", nil)
	default:
		if looksLikeHTML(prefix) {
			return nil, parseError("the document is an HTML page, not an RSS or Atom feed", nil)
		}
		return nil, parseError("the document is not an RSS or Atom feed", nil)
	}

	raw, rerr := readFeed(newPuller(&controlCharFilter{r: br}, charsets), format)
	if rr.err != nil {
		return nil, fetchError("the feed could not be read completely", rr.err)
	}
	if cerr := (*UnsupportedCharsetError)(nil); errors.As(rerr, &cerr) {
		return nil, parseError("the feed could not be parsed: "+cerr.Error(), cerr)
	}
	if rerr != nil {
		return nil, parseError("the feed could not be parsed: "+describeParseError(rerr), rerr)
	}
	return convert(raw), nil
}

// detectFormat tells the format from the document's first bytes: its root
// element (rss, rdf:RDF or feed, in any case), or a JSON object. Leading
// white space and byte order marks are passed over.
func detectFormat(prefix []byte, charsets *charsetReader) (feedFormat, error) {
	i := 0
	for i < len(prefix) {
		switch prefix[i] {
		case ' ', '\r', '\n', '\t', 0xFE, 0xFF, 0x00, 0xEF, 0xBB, 0xBF:
			i++
			continue
		}
		break
	}
	if i == len(prefix) {
		return formatUnknown, nil
	}
	switch prefix[i] {
	case '{':
		return formatJSON, nil
	case '<':
		p := newPuller(bytes.NewReader(prefix[i:]), charsets)
		if err := p.findRoot(); err != nil {
			return formatUnknown, err
		}
		switch strings.ToLower(p.name) {
		case "rss", "rdf":
			return formatRSS, nil
		case "feed":
			return formatAtom, nil
		}
	}
	return formatUnknown, nil
}

// readFeed reads the whole document in format.
func readFeed(p *puller, format feedFormat) (*rawFeed, error) {
	if err := p.findRoot(); err != nil {
		return nil, err
	}
	root := strings.ToLower(p.name)
	if format == formatAtom {
		if root != "feed" {
			return nil, fmt.Errorf("the root element is <%s>, not <feed>", p.name)
		}
		return readAtom(p)
	}
	if root != "rss" && root != "rdf" {
		return nil, fmt.Errorf("the root element is <%s>, not <rss> or <rdf:RDF>", p.name)
	}
	return readRSS(p)
}

// controlCharFilter drops the C0 control bytes XML forbids (all below 0x20
// but tab, LF and CR). They mean the same in UTF-8 and the single-byte
// encodings and never occur inside a UTF-8 sequence, so a feed with stray
// control characters still parses.
type controlCharFilter struct{ r io.Reader }

func (c *controlCharFilter) Read(p []byte) (int, error) {
	for {
		n, err := c.r.Read(p)
		w := 0
		for _, b := range p[:n] {
			if b < 0x20 && b != '\t' && b != '\n' && b != '\r' {
				continue
			}
			p[w] = b
			w++
		}
		if w > 0 || err != nil || n == 0 {
			return w, err
		}
	}
}

// recordingReader remembers the first error other than io.EOF that its
// reader returns, so that Parse can tell a broken download from bad content.
type recordingReader struct {
	r   io.Reader
	err error
}

func (rr *recordingReader) Read(p []byte) (int, error) {
	n, err := rr.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && rr.err == nil {
		rr.err = err
	}
	return n, err
}

func looksLikeHTML(prefix []byte) bool {
	s := strings.ToLower(string(prefix))
	return strings.Contains(s, "<!doctype html") || strings.Contains(s, "<html")
}

// describeParseError turns an XML or structure error into a short clause.
func describeParseError(err error) string {
	msg := strings.TrimSpace(err.Error())
	if msg == "" {
		return "malformed XML"
	}
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return strings.ToValidUTF8(msg, "\ufffd")
}

// convert applies the rules of [Parsed] to what the reader found.
func convert(f *rawFeed) *Parsed {
	p := &Parsed{
		Title:    strings.TrimSpace(f.title),
		Link:     strings.TrimSpace(f.link),
		Explicit: parseExplicit(iTunesValue(f.exts, "explicit")),
	}
	p.ImageURL = strings.TrimSpace(iTunesValue(f.exts, "image"))
	if p.ImageURL == "" {
		p.ImageURL = strings.TrimSpace(f.image)
	}
	for _, it := range f.items {
		enc, typ := audioEnclosure(it.enclosures)
		if enc == nil {
			continue
		}
		e := Episode{
			Title:     strings.TrimSpace(it.title),
			GUID:      strings.TrimSpace(it.guid),
			AudioURL:  strings.TrimSpace(enc.url),
			AudioType: typ,
			Duration:  parseDuration(iTunesValue(it.exts, "duration")),
			Explicit:  parseExplicit(iTunesValue(it.exts, "explicit")),
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(enc.length), 10, 64); err == nil && n > 0 {
			e.AudioLength = n
		}
		if e.GUID == "" {
			e.GUID = e.AudioURL
		}
		if it.published != nil {
			t := writtenZone(it.publishedRaw, *it.published)
			y, m, d := t.Date()
			day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
			e.Published, e.PublishedOn = &t, &day
		}
		p.Episodes = append(p.Episodes, e)
	}
	slices.SortStableFunc(p.Episodes, newestFirst)
	return p
}

// offsetLayouts are the date layouts with a numeric zone offset that feeds
// commonly use; see writtenZone.
var offsetLayouts = []string{
	time.RFC1123Z,
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 02 Jan 2006 15:04 -0700",
	"Mon, 2 Jan 2006 15:04 -0700",
	"02 Jan 2006 15:04:05 -0700",
	"2 Jan 2006 15:04:05 -0700",
	time.RFC3339Nano,
}

// writtenZone returns instant in the zone offset the feed wrote in raw, so
// that its calendar date is the one the feed states. The readers hold dates
// in UTC; when raw has no numeric offset, or does not parse to the same
// instant, instant is returned unchanged.
func writtenZone(raw string, instant time.Time) time.Time {
	raw = strings.TrimSpace(raw)
	for _, layout := range offsetLayouts {
		if t, err := time.Parse(layout, raw); err == nil && t.Equal(instant) {
			return t
		}
	}
	return instant
}

// newestFirst orders dated episodes by instant, descending, before undated
// ones; it is used with a stable sort so that ties keep feed order.
func newestFirst(a, b Episode) int {
	switch {
	case a.Published == nil && b.Published == nil:
		return 0
	case a.Published == nil:
		return 1
	case b.Published == nil:
		return -1
	}
	return b.Published.Compare(*a.Published)
}

// iTunesValue returns the first non-empty iTunes value name ("explicit",
// "duration" or "image"; for an image its href, else its text).
func iTunesValue(exts extensions, name string) string {
	for _, x := range exts["itunes"][name] {
		if name == "image" {
			if href := x.attrs["href"]; href != "" {
				return href
			}
		}
		if x.value != "" {
			return x.value
		}
	}
	return ""
}

// parseExplicit reads an itunes:explicit value.
func parseExplicit(s string) *bool {
	var v bool
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "explicit":
		v = true
	case "false", "no", "clean":
		v = false
	default:
		return nil
	}
	return &v
}

// audioExtTypes maps the audio file extensions accepted on an enclosure
// without a type to the MIME type they imply.
var audioExtTypes = map[string]string{
	".mp3":  "audio/mpeg",
	".m4a":  "audio/mp4",
	".m4b":  "audio/mp4",
	".aac":  "audio/aac",
	".wav":  "audio/wav",
	".ogg":  "audio/ogg",
	".oga":  "audio/ogg",
	".opus": "audio/opus",
	".flac": "audio/flac",
	".aif":  "audio/aiff",
	".aiff": "audio/aiff",
	".wma":  "audio/x-ms-wma",
}

// audioEnclosure returns the first audio enclosure with a URL and its MIME
// type, or nil.
func audioEnclosure(encs []rawEnclosure) (*rawEnclosure, string) {
	for i := range encs {
		enc := &encs[i]
		if strings.TrimSpace(enc.url) == "" {
			continue
		}
		typ := strings.TrimSpace(enc.typ)
		if typ != "" {
			mt, _, err := mime.ParseMediaType(typ)
			if err == nil && strings.HasPrefix(mt, "audio/") {
				return enc, typ
			}
			continue
		}
		if t, ok := audioExtTypes[urlExt(enc.url)]; ok {
			return enc, t
		}
	}
	return nil, ""
}

// urlExt returns the lower-case extension of the URL's path, ignoring any
// query or fragment.
func urlExt(raw string) string {
	p := strings.TrimSpace(raw)
	if u, err := url.Parse(p); err == nil {
		p = u.Path
	} else if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	return strings.ToLower(path.Ext(p))
}

// maxDurationSeconds bounds itunes:duration; larger values are treated as
// invalid (and could not be held by a time.Duration).
const maxDurationSeconds = 1_000_000_000

// parseDuration reads itunes:duration: "SS", "MM:SS" or "HH:MM:SS", each field
// made of digits and the last one optionally with a decimal fraction. Fields
// are not range-checked, so "75:30" is 75 minutes 30 seconds. It returns 0
// for anything else.
func parseDuration(s string) time.Duration {
	s = strings.TrimSpace(s)
	fields := strings.Split(s, ":")
	if s == "" || len(fields) > 3 {
		return 0
	}
	var total float64
	for i, f := range fields {
		last := i == len(fields)-1
		if !isDecimal(f, last) {
			return 0
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return 0
		}
		total = total*60 + v
	}
	if total > maxDurationSeconds || math.IsNaN(total) {
		return 0
	}
	return time.Duration(math.Round(total*1000)) * time.Millisecond
}

// isDecimal reports whether s is one or more ASCII digits, followed, when
// fraction is true, by an optional '.' and digits.
func isDecimal(s string, fraction bool) bool {
	digits, dot := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && fraction && !dot && digits > 0:
			dot = true
		default:
			return false
		}
	}
	return digits > 0 && s[len(s)-1] != '.'
}
