package audio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SynthTags are the tags Synthesize writes, as an ID3v2.4 tag in an "id3 " chunk of the WAV file
// before the audio (where ffmpeg and other WAV readers look for it). Empty fields are left out.
// The text fields are also written to the LIST/INFO chunk (INAM when SynthSpec.Title is empty,
// IART, IPRD, ICRD and ICMT), because ffmpeg reads a WAV file's INFO text in preference to its
// ID3 text; chapters and the cover are only in the ID3 tag.
type SynthTags struct {
	// Title is the TIT2 frame.
	Title string
	// Artist is the TPE1 frame.
	Artist string
	// Album is the TALB frame.
	Album string
	// Year is the TDRC frame, from 1000 to 9999, or 0 for none.
	Year int
	// Comment is a COMM frame in English with an empty description.
	Comment string
	// Chapters are CHAP frames, listed in order by a top-level CTOC frame; at most 255.
	Chapters []SynthChapter
}

// SynthChapter is one chapter of SynthTags.
type SynthChapter struct {
	// Start and End bound the chapter, 0 ≤ Start < End ≤ the duration, to the millisecond.
	Start, End time.Duration
	// Title is the chapter's TIT2 subframe; it may be empty.
	Title string
}

// Limits of the tags Synthesize writes.
const (
	// MaxSynthCover is the largest cover image, in bytes.
	MaxSynthCover = 10 << 20
	// maxSynthTagText is the most bytes of UTF-8 kept of each text field.
	maxSynthTagText = 4096
	// maxSynthChapters is what one CTOC frame can list.
	maxSynthChapters = 255
)

// infoFields are the LIST/INFO entries of spec: its title and the text of its tags.
func infoFields(spec SynthSpec) [][2]string {
	t := spec.Tags
	title := spec.Title
	if title == "" {
		title = t.Title
	}
	year := ""
	if t.Year != 0 {
		year = strconv.Itoa(t.Year)
	}
	return [][2]string{{"INAM", title}, {"IART", t.Artist}, {"IPRD", t.Album}, {"ICRD", year}, {"ICMT", t.Comment}}
}

// coverMIME returns the MIME type of a PNG or JPEG image, or "".
func coverMIME(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	}
	return ""
}

// checkTags validates the tags and cover of spec for a file of the given duration.
func checkTags(spec SynthSpec, duration time.Duration) error {
	t := spec.Tags
	if t.Year != 0 && (t.Year < 1000 || t.Year > 9999) {
		return fmt.Errorf("%w: year %d (want 1000 to 9999, or 0 for none)", ErrInvalidSpec, t.Year)
	}
	if len(t.Chapters) > maxSynthChapters {
		return fmt.Errorf("%w: %d chapters (want at most %d)", ErrInvalidSpec, len(t.Chapters), maxSynthChapters)
	}
	for i, c := range t.Chapters {
		if !(c.Start >= 0 && c.Start < c.End && c.End <= duration) {
			return fmt.Errorf("%w: chapter %d runs from %v to %v (want 0 ≤ start < end ≤ %v)", ErrInvalidSpec, i+1, c.Start, c.End, duration)
		}
	}
	if len(spec.Cover) > 0 {
		if coverMIME(spec.Cover) == "" {
			return fmt.Errorf("%w: the cover is neither a PNG nor a JPEG image", ErrInvalidSpec)
		}
		if len(spec.Cover) > MaxSynthCover {
			return fmt.Errorf("%w: a cover of %d bytes (want at most %d)", ErrInvalidSpec, len(spec.Cover), MaxSynthCover)
		}
	}
	return nil
}

// tagText makes s fit a text frame: valid UTF-8 without NUL bytes, at most maxSynthTagText bytes.
func tagText(s string) string {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "\uFFFD")
	for len(s) > maxSynthTagText {
		s = strings.ToValidUTF8(s[:maxSynthTagText], "")
	}
	return s
}

// syncsafe appends v as a 28-bit synchsafe integer (7 bits a byte).
func syncsafe(b []byte, v int) []byte {
	return append(b, byte(v>>21&0x7F), byte(v>>14&0x7F), byte(v>>7&0x7F), byte(v&0x7F))
}

// id3Frame appends an ID3v2.4 frame.
func id3Frame(b []byte, id string, body []byte) []byte {
	b = append(b, id...)
	b = syncsafe(b, len(body))
	b = append(b, 0, 0) // no flags
	return append(b, body...)
}

// textFrame appends a UTF-8 text frame, or nothing for an empty text.
func textFrame(b []byte, id, text string) []byte {
	text = tagText(text)
	if text == "" {
		return b
	}
	return id3Frame(b, id, append([]byte{3}, text...))
}

// id3Tag returns the ID3v2.4 tag of spec's tags and cover, or nil when there is nothing to write.
func id3Tag(spec SynthSpec) []byte {
	t := spec.Tags
	var f []byte
	f = textFrame(f, "TIT2", t.Title)
	f = textFrame(f, "TPE1", t.Artist)
	f = textFrame(f, "TALB", t.Album)
	if t.Year != 0 {
		f = textFrame(f, "TDRC", strconv.Itoa(t.Year))
	}
	if c := tagText(t.Comment); c != "" {
		body := append([]byte{3}, "eng"...)
		body = append(body, 0) // empty description
		f = id3Frame(f, "COMM", append(body, c...))
	}
	if len(t.Chapters) > 0 {
		toc := append([]byte("toc\x00"), 0x03, byte(len(t.Chapters))) // top level, ordered
		for i, c := range t.Chapters {
			id := "chp" + strconv.Itoa(i)
			toc = append(append(toc, id...), 0)
			body := append([]byte(id), 0)
			body = binary.BigEndian.AppendUint32(body, uint32(c.Start.Milliseconds()))
			body = binary.BigEndian.AppendUint32(body, uint32(c.End.Milliseconds()))
			body = append(body, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF) // no byte offsets
			body = textFrame(body, "TIT2", c.Title)
			f = id3Frame(f, "CHAP", body)
		}
		f = id3Frame(f, "CTOC", toc)
	}
	if len(spec.Cover) > 0 {
		body := append([]byte{3}, coverMIME(spec.Cover)...)
		body = append(body, 0, 3, 0) // MIME terminator, front cover, empty description
		f = id3Frame(f, "APIC", append(body, spec.Cover...))
	}
	if len(f) == 0 {
		return nil
	}
	h := append([]byte("ID3"), 4, 0, 0) // version 2.4.0, no flags
	return append(syncsafe(h, len(f)), f...)
}

// id3Chunk wraps an ID3 tag in a WAV "id3 " chunk, padded to an even size, or returns nil.
func id3Chunk(tag []byte) []byte {
	if len(tag) == 0 {
		return nil
	}
	b := append([]byte("id3 "), binary.LittleEndian.AppendUint32(nil, uint32(len(tag)))...)
	b = append(b, tag...)
	if len(tag)%2 == 1 {
		b = append(b, 0)
	}
	return b
}
