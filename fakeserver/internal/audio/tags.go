package audio

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	_ "image/jpeg" // DecodeConfig of JPEG covers
	_ "image/png"  // DecodeConfig of PNG covers
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bogem/id3v2/v2"
)

// Tags are the metadata tags of a file. Empty fields were not found.
type Tags struct {
	// Title is the title (ID3 TIT2, Vorbis TITLE, MP4 ©nam, RIFF INAM).
	Title string
	// Artist is the artist (ID3 TPE1, Vorbis ARTIST, MP4 ©ART, RIFF IART).
	Artist string
	// Album is the album or show (ID3 TALB, Vorbis ALBUM, MP4 ©alb, RIFF IPRD).
	Album string
	// Track is the track number (the part before any "/total"), or 0.
	Track int
	// Year is the recording year or date as written (ID3 TDRC/TYER, Vorbis DATE, MP4 ©day).
	Year string
	// Copyright is the copyright notice (ID3 TCOP, Vorbis COPYRIGHT, MP4 cprt, RIFF ICOP).
	Copyright string
	// Comments are the comments, in file order (ID3 COMM, Vorbis COMMENT, MP4 ©cmt, RIFF ICMT).
	Comments []string
	// Chapters are the chapters in start order (ID3 CHAP, Vorbis CHAPTERnnn, MP4 chpl).
	Chapters []Chapter
}

// Chapter is one chapter of a file.
type Chapter struct {
	// Start is where the chapter begins.
	Start time.Duration
	// End is where it ends; for formats that only give starts, the next chapter's start (the
	// last chapter ends at the end of the audio).
	End time.Duration
	// Title is the chapter's title, or "".
	Title string
}

// Cover is an embedded cover image.
type Cover struct {
	// Data is the image file as stored.
	Data []byte
	// MIMEType is the image's type as detected from its bytes ("image/jpeg", "image/png"), or
	// the type the file declares for other images.
	MIMEType string
	// Width and Height are the image's size in pixels (0 for images other than JPEG and PNG).
	Width, Height int
}

// Limits on the metadata kept in memory.
const (
	// MaxCoverBytes is the largest cover image kept; larger ones are dropped.
	MaxCoverBytes = 10 << 20
	// maxTagBytes is the largest tag block (ID3v2 tag, FLAC or Vorbis metadata) parsed.
	maxTagBytes = 16 << 20
	// maxTagText bounds a single text value.
	maxTagText = 4 << 10
	// maxChapters bounds the chapters kept.
	maxChapters = 1000
	// maxComments bounds the comments kept.
	maxComments = 100
)

// newCover returns a cover for image data with a declared MIME type, or nil when it is empty
// or larger than MaxCoverBytes. JPEG and PNG are recognised by their bytes and measured.
func newCover(data []byte, declared string) *Cover {
	if len(data) == 0 || len(data) > MaxCoverBytes || declared == "-->" {
		return nil
	}
	c := &Cover{Data: bytes.Clone(data), MIMEType: cleanText(declared)}
	if cfg, format, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		c.Width, c.Height = cfg.Width, cfg.Height
		c.MIMEType = "image/" + format
	}
	return c
}

// cleanText trims a tag value and makes it valid, bounded UTF-8.
func cleanText(s string) string {
	s = strings.TrimRight(s, "\x00")
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
	if len(s) > maxTagText {
		s = s[:maxTagText]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}

// trackNumber reads "3" or "3/12".
func trackNumber(s string) int {
	s, _, _ = strings.Cut(cleanText(s), "/")
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// merge fills t's empty fields from o.
func (t *Tags) merge(o Tags) {
	set := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	set(&t.Title, o.Title)
	set(&t.Artist, o.Artist)
	set(&t.Album, o.Album)
	set(&t.Year, o.Year)
	set(&t.Copyright, o.Copyright)
	if t.Track == 0 {
		t.Track = o.Track
	}
	if len(t.Comments) == 0 {
		t.Comments = o.Comments
	}
	if len(t.Chapters) == 0 {
		t.Chapters = o.Chapters
	}
}

func (t *Tags) addComment(c string) {
	if c = cleanText(c); c != "" && len(t.Comments) < maxComments {
		t.Comments = append(t.Comments, c)
	}
}

// sortChapters orders chapters by start and gives open ends the next start or the audio's end.
func sortChapters(ch []Chapter, end time.Duration) []Chapter {
	sort.SliceStable(ch, func(i, j int) bool { return ch[i].Start < ch[j].Start })
	for i := range ch {
		if ch[i].End > 0 {
			continue
		}
		if i+1 < len(ch) {
			ch[i].End = ch[i+1].Start
		} else if end > ch[i].Start {
			ch[i].End = end
		}
	}
	return ch
}

// parseID3v2 reads a whole ID3v2 tag (header included) into tags and a cover: versions 3 and 4
// with github.com/bogem/id3v2, version 2 with parseID3v22. Tags it cannot parse are ignored:
// metadata never fails a measurement.
func parseID3v2(b []byte) (Tags, *Cover) {
	if len(b) > 3 && b[3] == 2 {
		return parseID3v22(b)
	}
	var t Tags
	tag, err := id3v2.ParseReader(bytes.NewReader(b), id3v2.Options{Parse: true})
	if err != nil || tag == nil {
		return t, nil
	}
	t.Title = cleanText(tag.Title())
	t.Artist = cleanText(tag.Artist())
	t.Album = cleanText(tag.Album())
	t.Year = cleanText(tag.Year())
	if t.Year == "" {
		t.Year = cleanText(tag.GetTextFrame("TYER").Text)
	}
	t.Copyright = cleanText(tag.GetTextFrame("TCOP").Text)
	t.Track = trackNumber(tag.GetTextFrame("TRCK").Text)
	for _, f := range tag.GetFrames("COMM") {
		if c, ok := f.(id3v2.CommentFrame); ok {
			t.addComment(c.Text)
		}
	}
	// ffmpeg writes a comment as TXXX:comment.
	for _, f := range tag.GetFrames("TXXX") {
		if u, ok := f.(id3v2.UserDefinedTextFrame); ok && strings.EqualFold(u.Description, "comment") {
			t.addComment(u.Value)
		}
	}
	for _, f := range tag.GetFrames("CHAP") {
		c, ok := f.(id3v2.ChapterFrame)
		if !ok || len(t.Chapters) >= maxChapters {
			continue
		}
		ch := Chapter{Start: c.StartTime, End: c.EndTime}
		if c.Title != nil {
			ch.Title = cleanText(c.Title.Text)
		}
		t.Chapters = append(t.Chapters, ch)
	}
	var cover *Cover
	for _, f := range tag.GetFrames("APIC") {
		p, ok := f.(id3v2.PictureFrame)
		if !ok {
			continue
		}
		// The front cover (type 3) wins over other pictures.
		if c := newCover(p.Picture, p.MimeType); c != nil && (cover == nil || p.PictureType == 3) {
			cover = c
			if p.PictureType == 3 {
				break
			}
		}
	}
	return t, cover
}

// parseID3v1 reads a 128-byte ID3v1 (or v1.1) tag.
func parseID3v1(b []byte) Tags {
	var t Tags
	if len(b) != 128 || string(b[:3]) != "TAG" {
		return t
	}
	latin1 := func(b []byte) string {
		r := make([]rune, 0, len(b))
		for _, c := range b {
			if c == 0 {
				break
			}
			r = append(r, rune(c))
		}
		return cleanText(string(r))
	}
	t.Title = latin1(b[3:33])
	t.Artist = latin1(b[33:63])
	t.Album = latin1(b[63:93])
	t.Year = latin1(b[93:97])
	t.addComment(latin1(b[97:127]))
	if b[125] == 0 && b[126] != 0 {
		t.Track = int(b[126])
		t.Comments = nil
		t.addComment(latin1(b[97:125]))
	}
	return t
}

// vorbisComments turns Vorbis comments (FLAC, Vorbis, Opus) into tags and a cover. Chapters
// follow the CHAPTERnnn=HH:MM:SS.sss and CHAPTERnnnNAME=title convention.
func vorbisComments(pairs [][2]string) (Tags, *Cover) {
	var t Tags
	var cover *Cover
	chapters := map[string]*Chapter{}
	for _, kv := range pairs {
		key, val := strings.ToUpper(kv[0]), kv[1]
		switch key {
		case "TITLE":
			t.Title = firstNonEmpty(t.Title, cleanText(val))
		case "ARTIST":
			t.Artist = firstNonEmpty(t.Artist, cleanText(val))
		case "ALBUM":
			t.Album = firstNonEmpty(t.Album, cleanText(val))
		case "DATE", "YEAR":
			t.Year = firstNonEmpty(t.Year, cleanText(val))
		case "COPYRIGHT":
			t.Copyright = firstNonEmpty(t.Copyright, cleanText(val))
		case "TRACKNUMBER":
			if t.Track == 0 {
				t.Track = trackNumber(val)
			}
		case "COMMENT", "DESCRIPTION":
			t.addComment(val)
		case "METADATA_BLOCK_PICTURE":
			if cover != nil || len(val) > MaxCoverBytes*4/3+16 {
				continue
			}
			if raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(val)); err == nil {
				cover = parseFLACPicture(raw)
			}
		default:
			if !strings.HasPrefix(key, "CHAPTER") || len(chapters) >= maxChapters {
				continue
			}
			num := strings.TrimPrefix(key, "CHAPTER")
			name := strings.HasSuffix(num, "NAME")
			num = strings.TrimSuffix(num, "NAME")
			if num == "" || strings.Trim(num, "0123456789") != "" {
				continue
			}
			c := chapters[num]
			if c == nil {
				c = &Chapter{Start: -1}
				chapters[num] = c
			}
			if name {
				c.Title = cleanText(val)
			} else if d, ok := parseClock(val); ok {
				c.Start = d
			}
		}
	}
	for _, c := range chapters {
		if c.Start >= 0 {
			t.Chapters = append(t.Chapters, *c)
		}
	}
	return t, cover
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// parseClock reads HH:MM:SS(.fff), as CHAPTERnnn comments write it.
func parseClock(s string) (time.Duration, bool) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) != 3 {
		return 0, false
	}
	h, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	sec, err3 := strconv.ParseFloat(parts[2], 64)
	if err1 != nil || err2 != nil || err3 != nil || h < 0 || h > 1000 || m < 0 || m >= 60 || !(sec >= 0 && sec < 60) {
		return 0, false
	}
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec*float64(time.Second)+0.5), true
}

// parseFLACPicture reads a FLAC PICTURE block body (also the payload of a Vorbis
// METADATA_BLOCK_PICTURE comment).
func parseFLACPicture(b []byte) *Cover {
	next := func(n int) ([]byte, bool) {
		if n < 0 || n > len(b) {
			return nil, false
		}
		v := b[:n]
		b = b[n:]
		return v, true
	}
	u32 := func() (int, bool) {
		v, ok := next(4)
		if !ok {
			return 0, false
		}
		return int(binary.BigEndian.Uint32(v) & 0x7FFFFFFF), true
	}
	if _, ok := u32(); !ok { // picture type
		return nil
	}
	n, ok := u32()
	if !ok {
		return nil
	}
	mime, ok := next(n)
	if !ok {
		return nil
	}
	if n, ok = u32(); !ok {
		return nil
	}
	if _, ok = next(n + 16); !ok { // description, width, height, depth, colours
		return nil
	}
	if n, ok = u32(); !ok {
		return nil
	}
	data, ok := next(n)
	if !ok {
		return nil
	}
	return newCover(data, string(mime))
}

// riffInfoTags reads RIFF LIST/INFO entries.
func riffInfoTags(info map[string]string) Tags {
	t := Tags{
		Title:     info["INAM"],
		Artist:    info["IART"],
		Album:     info["IPRD"],
		Year:      info["ICRD"],
		Copyright: info["ICOP"],
	}
	t.addComment(info["ICMT"])
	t.Track = trackNumber(firstNonEmpty(info["ITRK"], info["IPRT"]))
	return t
}

// tags returns the WAV file's tags: an ID3v2 chunk first, then LIST/INFO for missing fields.
func (w *WAVReader) tags() (Tags, *Cover) {
	var t Tags
	var cover *Cover
	if len(w.id3) > 0 {
		t, cover = parseID3v2(w.id3)
	}
	t.merge(riffInfoTags(w.info))
	t.Chapters = sortChapters(t.Chapters, 0)
	return t, cover
}
