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

	"github.com/mmcdole/gofeed"
	ext "github.com/mmcdole/gofeed/extensions"
)

// Parsed is a feed as read by [Parse] or [Fetch].
type Parsed struct {
	// Title is the channel (RSS) or feed (Atom) title, trimmed.
	Title string
	// Link is the channel link (RSS) or the feed's alternate link (Atom).
	Link string
	// ImageURL is the channel artwork (itunes:image, else the RSS image or
	// Atom logo), or empty.
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
// it matches the window gofeed uses for the same purpose.
const peekSize = 4096

// Parse reads an RSS (0.9x, 1.0 or 2.0) or Atom feed from r. A document that
// is not such a feed yields an [*Error] of kind [KindParse]; an error from r
// itself yields one of kind [KindFetch]. A feed without any audio episode is
// not an error: it parses to zero episodes. Parse never panics.
func Parse(r io.Reader) (p *Parsed, err error) {
	defer func() {
		// gofeed parses untrusted input; should it ever panic, report the
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
	switch gofeed.DetectFeedType(bytes.NewReader(prefix)) {
	case gofeed.FeedTypeRSS, gofeed.FeedTypeAtom:
	case gofeed.FeedTypeJSON:
		return nil, parseError("the document is JSON, not an RSS or Atom feed", nil)
	default:
		if looksLikeHTML(prefix) {
			return nil, parseError("the document is an HTML page, not an RSS or Atom feed", nil)
		}
		return nil, parseError("the document is not an RSS or Atom feed", nil)
	}

	f, gerr := gofeed.NewParser().Parse(br)
	if rr.err != nil {
		return nil, fetchError("the feed could not be read completely", rr.err)
	}
	if gerr != nil {
		return nil, parseError("the feed could not be parsed: "+describeParseError(gerr), gerr)
	}
	if f.FeedType != "rss" && f.FeedType != "atom" {
		return nil, parseError("the document is not an RSS or Atom feed", nil)
	}
	return convert(f), nil
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

// describeParseError turns a gofeed or XML error into a short clause.
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

func convert(f *gofeed.Feed) *Parsed {
	p := &Parsed{
		Title:    strings.TrimSpace(f.Title),
		Link:     strings.TrimSpace(f.Link),
		Explicit: parseExplicit(feedITunes(f, "explicit")),
	}
	p.ImageURL = strings.TrimSpace(feedITunes(f, "image"))
	if p.ImageURL == "" && f.Image != nil {
		p.ImageURL = strings.TrimSpace(f.Image.URL)
	}
	for _, it := range f.Items {
		if it == nil {
			continue
		}
		enc, typ := audioEnclosure(it.Enclosures)
		if enc == nil {
			continue
		}
		e := Episode{
			Title:     strings.TrimSpace(it.Title),
			GUID:      strings.TrimSpace(it.GUID),
			AudioURL:  strings.TrimSpace(enc.URL),
			AudioType: typ,
			Duration:  parseDuration(itemITunes(it, "duration")),
			Explicit:  parseExplicit(itemITunes(it, "explicit")),
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(enc.Length), 10, 64); err == nil && n > 0 {
			e.AudioLength = n
		}
		if e.GUID == "" {
			e.GUID = e.AudioURL
		}
		if it.PublishedParsed != nil {
			raw := it.Published
			if raw == "" {
				raw = it.Updated
			}
			t := writtenZone(raw, *it.PublishedParsed)
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
// that its calendar date is the one the feed states. gofeed reports dates in
// UTC; when raw has no numeric offset, or does not parse to the same
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

// feedITunes returns the channel-level iTunes value name ("explicit" or
// "image"), from gofeed's iTunes extension for RSS or the raw extension
// elements for Atom.
func feedITunes(f *gofeed.Feed, name string) string {
	if f.ITunesExt != nil {
		switch name {
		case "explicit":
			if f.ITunesExt.Explicit != "" {
				return f.ITunesExt.Explicit
			}
		case "image":
			if f.ITunesExt.Image != "" {
				return f.ITunesExt.Image
			}
		}
	}
	return rawITunes(f.Extensions, name)
}

// itemITunes returns the item-level iTunes value name ("explicit" or
// "duration").
func itemITunes(it *gofeed.Item, name string) string {
	if it.ITunesExt != nil {
		switch name {
		case "explicit":
			if it.ITunesExt.Explicit != "" {
				return it.ITunesExt.Explicit
			}
		case "duration":
			if it.ITunesExt.Duration != "" {
				return it.ITunesExt.Duration
			}
		}
	}
	return rawITunes(it.Extensions, name)
}

func rawITunes(exts ext.Extensions, name string) string {
	for _, e := range exts["itunes"][name] {
		if name == "image" {
			if href := e.Attrs["href"]; href != "" {
				return href
			}
		}
		if e.Value != "" {
			return e.Value
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
func audioEnclosure(encs []*gofeed.Enclosure) (*gofeed.Enclosure, string) {
	for _, enc := range encs {
		if enc == nil || strings.TrimSpace(enc.URL) == "" {
			continue
		}
		typ := strings.TrimSpace(enc.Type)
		if typ != "" {
			mt, _, err := mime.ParseMediaType(typ)
			if err == nil && strings.HasPrefix(mt, "audio/") {
				return enc, typ
			}
			continue
		}
		if t, ok := audioExtTypes[urlExt(enc.URL)]; ok {
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
