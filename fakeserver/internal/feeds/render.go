package feeds

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"time"
)

// DefaultAudioType is the enclosure type [Render] writes for an item whose
// AudioType is empty.
const DefaultAudioType = "audio/wav"

// itunesNS is the namespace URI of the iTunes podcast extension.
const itunesNS = "http://www.itunes.com/dtds/podcast-1.0.dtd"

// Feed is a feed hosted by the fake, the input of [Render].
type Feed struct {
	// Title is the channel title.
	Title string
	// Link is the channel link, usually the show's web page.
	Link string
	// Description is the channel description.
	Description string
	// Explicit is written as itunes:explicit "true" or "false".
	Explicit bool
	// ImageURL, when not empty, is written as the channel's itunes:image.
	ImageURL string
	// Items are the episodes, newest first; Render keeps this order.
	Items []Item
}

// Item is one episode of a hosted [Feed].
type Item struct {
	// Title is the episode title.
	Title string
	// Description, when not empty, is written as the item description.
	Description string
	// GUID, when not empty, is written as a guid with isPermaLink="false".
	// Without it a reader falls back to the enclosure URL.
	GUID string
	// PublishedOn is the publication date. Only its calendar date (in its
	// own location) is used: pubDate is that date at 00:00:00 UTC in RFC
	// 1123 form with a numeric zone. The zero time writes no pubDate.
	PublishedOn time.Time
	// AudioURL is the enclosure URL. When empty no enclosure is written
	// and readers skip the item.
	AudioURL string
	// AudioType is the enclosure MIME type; empty means [DefaultAudioType].
	AudioType string
	// AudioLength is the enclosure length in bytes (0 when unknown).
	AudioLength int64
	// Duration is written as itunes:duration in HH:MM:SS, rounded to the
	// nearest second; negative durations are written as 00:00:00.
	Duration time.Duration
	// Explicit, when not nil, is written as the item's itunes:explicit.
	Explicit *bool
}

type rssDoc struct {
	XMLName  xml.Name   `xml:"rss"`
	Version  string     `xml:"version,attr"`
	ITunesNS string     `xml:"xmlns:itunes,attr"`
	Channel  rssChannel `xml:"channel"`
}

type rssChannel struct {
	Title       string       `xml:"title"`
	Link        string       `xml:"link"`
	Description string       `xml:"description"`
	Explicit    string       `xml:"itunes:explicit"`
	Image       *itunesImage `xml:"itunes:image,omitempty"`
	Items       []rssItem    `xml:"item"`
}

type itunesImage struct {
	Href string `xml:"href,attr"`
}

type rssItem struct {
	Title       string        `xml:"title"`
	Description string        `xml:"description,omitempty"`
	GUID        *rssGUID      `xml:"guid,omitempty"`
	PubDate     string        `xml:"pubDate,omitempty"`
	Enclosure   *rssEnclosure `xml:"enclosure,omitempty"`
	Duration    string        `xml:"itunes:duration"`
	Explicit    string        `xml:"itunes:explicit,omitempty"`
}

type rssGUID struct {
	IsPermaLink string `xml:"isPermaLink,attr"`
	Value       string `xml:",chardata"`
}

type rssEnclosure struct {
	URL    string `xml:"url,attr"`
	Length string `xml:"length,attr"`
	Type   string `xml:"type,attr"`
}

// Render returns the RSS 2.0 document, with the iTunes namespace, of f. The
// output depends only on f. Text is escaped by encoding/xml; characters XML
// cannot carry are replaced with U+FFFD.
func Render(f Feed) []byte {
	doc := rssDoc{
		Version:  "2.0",
		ITunesNS: itunesNS,
		Channel: rssChannel{
			Title:       f.Title,
			Link:        f.Link,
			Description: f.Description,
			Explicit:    strconv.FormatBool(f.Explicit),
			Items:       make([]rssItem, 0, len(f.Items)),
		},
	}
	if f.ImageURL != "" {
		doc.Channel.Image = &itunesImage{Href: f.ImageURL}
	}
	for _, it := range f.Items {
		ri := rssItem{
			Title:       it.Title,
			Description: it.Description,
			Duration:    formatHMS(it.Duration),
		}
		if it.GUID != "" {
			ri.GUID = &rssGUID{IsPermaLink: "false", Value: it.GUID}
		}
		if !it.PublishedOn.IsZero() {
			ri.PubDate = formatPubDate(it.PublishedOn)
		}
		if it.AudioURL != "" {
			typ := it.AudioType
			if typ == "" {
				typ = DefaultAudioType
			}
			ri.Enclosure = &rssEnclosure{
				URL:    it.AudioURL,
				Length: strconv.FormatInt(max(it.AudioLength, 0), 10),
				Type:   typ,
			}
		}
		if it.Explicit != nil {
			ri.Explicit = strconv.FormatBool(*it.Explicit)
		}
		doc.Channel.Items = append(doc.Channel.Items, ri)
	}

	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		// The document holds only strings and fixed types, which
		// encoding/xml always encodes.
		panic(fmt.Sprintf("feeds: encoding a feed: %v", err))
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

// formatPubDate returns the calendar date of t at midnight UTC in RFC 1123
// form with a numeric zone, e.g. "Tue, 02 Jan 2024 00:00:00 +0000".
func formatPubDate(t time.Time) string {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Format(time.RFC1123Z)
}

// formatHMS formats d, rounded to whole seconds, as HH:MM:SS; hours may
// exceed two digits.
func formatHMS(d time.Duration) string {
	s := int64(max(d.Round(time.Second), 0) / time.Second)
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}
