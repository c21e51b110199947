package feeds

// The reference implementation: Parse as it was before this package read
// feeds itself, on github.com/mmcdole/gofeed. gofeed is a test-only
// dependency: nothing here is compiled into the fake.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mmcdole/gofeed"
	ext "github.com/mmcdole/gofeed/extensions"
)

// gofeedParse is Parse as it was on gofeed: it reads an RSS (0.9x, 1.0 or 2.0) or Atom feed from r. A document that
// is not such a feed yields an [*Error] of kind [KindParse]; an error from r
// itself yields one of kind [KindFetch]. A feed without any audio episode is
// not an error: it parses to zero episodes. Parse never panics.
func gofeedParse(r io.Reader) (p *Parsed, err error) {
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
		return nil, parseError("the feed could not be parsed: "+refDescribeParseError(gerr), gerr)
	}
	if f.FeedType != "rss" && f.FeedType != "atom" {
		return nil, parseError("the document is not an RSS or Atom feed", nil)
	}
	return refConvert(f), nil
}

// refDescribeParseError turns a gofeed or XML error into a short clause.
func refDescribeParseError(err error) string {
	msg := strings.TrimSpace(err.Error())
	if msg == "" {
		return "malformed XML"
	}
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return strings.ToValidUTF8(msg, "\ufffd")
}

func refConvert(f *gofeed.Feed) *Parsed {
	p := &Parsed{
		Title:    strings.TrimSpace(f.Title),
		Link:     strings.TrimSpace(f.Link),
		Explicit: parseExplicit(refFeedITunes(f, "explicit")),
	}
	p.ImageURL = strings.TrimSpace(refFeedITunes(f, "image"))
	if p.ImageURL == "" && f.Image != nil {
		p.ImageURL = strings.TrimSpace(f.Image.URL)
	}
	for _, it := range f.Items {
		if it == nil {
			continue
		}
		enc, typ := refAudioEnclosure(it.Enclosures)
		if enc == nil {
			continue
		}
		e := Episode{
			Title:     strings.TrimSpace(it.Title),
			GUID:      strings.TrimSpace(it.GUID),
			AudioURL:  strings.TrimSpace(enc.URL),
			AudioType: typ,
			Duration:  parseDuration(refItemITunes(it, "duration")),
			Explicit:  parseExplicit(refItemITunes(it, "explicit")),
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

// refFeedITunes returns the channel-level iTunes value name ("explicit" or
// "image"), from gofeed's iTunes extension for RSS or the raw extension
// elements for Atom.
func refFeedITunes(f *gofeed.Feed, name string) string {
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
	return refRawITunes(f.Extensions, name)
}

// refItemITunes returns the item-level iTunes value name ("explicit" or
// "duration").
func refItemITunes(it *gofeed.Item, name string) string {
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
	return refRawITunes(it.Extensions, name)
}

func refRawITunes(exts ext.Extensions, name string) string {
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

// refAudioEnclosure returns the first audio enclosure with a URL and its MIME
// type, or nil.
func refAudioEnclosure(encs []*gofeed.Enclosure) (*gofeed.Enclosure, string) {
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
