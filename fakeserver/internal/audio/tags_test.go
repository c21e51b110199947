package audio

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/png"
	"testing"
	"time"

	"github.com/bogem/id3v2/v2"
)

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// flacPicture builds a FLAC PICTURE block body.
func flacPicture(typ uint32, mime string, data []byte) []byte {
	var b bytes.Buffer
	w := func(v uint32) { _ = binary.Write(&b, binary.BigEndian, v) }
	w(typ)
	w(uint32(len(mime)))
	b.WriteString(mime)
	w(0) // description
	w(0)
	w(0)
	w(0)
	w(0)
	w(uint32(len(data)))
	b.Write(data)
	return b.Bytes()
}

func TestVorbisComments(t *testing.T) {
	t.Parallel()
	pic := base64.StdEncoding.EncodeToString(flacPicture(3, "image/png", pngBytes(t, 3, 2)))
	tags, cover := vorbisComments([][2]string{
		{"title", "T"}, {"ARTIST", "A"}, {"Album", "B"}, {"TRACKNUMBER", "4/9"}, {"DATE", "2025-02-03"},
		{"COPYRIGHT", "C"}, {"COMMENT", "one"}, {"DESCRIPTION", "two"},
		{"CHAPTER002", "00:01:00.500"}, {"CHAPTER002NAME", "Second"},
		{"CHAPTER001", "00:00:00.000"}, {"CHAPTER001NAME", "First"},
		{"CHAPTER003NAME", "no start"}, {"CHAPTERX", "00:00:01"},
		{"METADATA_BLOCK_PICTURE", pic},
	})
	if tags.Title != "T" || tags.Artist != "A" || tags.Album != "B" || tags.Track != 4 || tags.Year != "2025-02-03" || tags.Copyright != "C" {
		t.Errorf("tags %+v", tags)
	}
	if len(tags.Comments) != 2 {
		t.Errorf("comments %q", tags.Comments)
	}
	ch := sortChapters(tags.Chapters, 2*time.Minute)
	want := []Chapter{{0, 60*time.Second + 500*time.Millisecond, "First"}, {60*time.Second + 500*time.Millisecond, 2 * time.Minute, "Second"}}
	if len(ch) != 2 || ch[0] != want[0] || ch[1] != want[1] {
		t.Errorf("chapters %+v, want %+v", ch, want)
	}
	if cover == nil || cover.MIMEType != "image/png" || cover.Width != 3 || cover.Height != 2 {
		t.Errorf("cover %+v", cover)
	}
}

func TestCoverLimits(t *testing.T) {
	t.Parallel()
	if c := newCover(make([]byte, MaxCoverBytes+1), "image/jpeg"); c != nil {
		t.Error("an oversized cover was kept")
	}
	if c := newCover([]byte("not an image"), "image/gif"); c == nil || c.MIMEType != "image/gif" || c.Width != 0 {
		t.Errorf("unknown image: %+v", c)
	}
	if c := parseFLACPicture([]byte{0, 0, 0, 3, 0xFF, 0xFF, 0xFF, 0xFF}); c != nil {
		t.Error("a truncated picture block gave a cover")
	}
}

// TestWAVTags reads an "id3 " chunk (with a chapter and a cover) and LIST/INFO, the ID3 tag
// winning where both have a field.
func TestWAVTags(t *testing.T) {
	t.Parallel()
	tag := id3v2.NewEmptyTag()
	tag.SetTitle("ID3 title")
	tag.SetArtist("ID3 artist")
	tag.AddChapterFrame(id3v2.ChapterFrame{ElementID: "c1", StartTime: 0, EndTime: time.Second,
		StartOffset: id3v2.IgnoredOffset, EndOffset: id3v2.IgnoredOffset, Title: &id3v2.TextFrame{Encoding: id3v2.EncodingUTF8, Text: "Only"}})
	tag.AddAttachedPicture(id3v2.PictureFrame{Encoding: id3v2.EncodingUTF8, MimeType: "image/png", PictureType: 3, Picture: pngBytes(t, 5, 4)})
	var id3 bytes.Buffer
	if _, err := tag.WriteTo(&id3); err != nil {
		t.Fatal(err)
	}
	info := []byte("INFO")
	for _, kv := range [][2]string{{"INAM", "Info title"}, {"IPRD", "Info album"}, {"ICMT", "Info comment"}, {"ITRK", "3"}, {"ICOP", "Info copyright"}} {
		v := append([]byte(kv[1]), 0)
		if len(v)%2 == 1 {
			v = append(v, 0)
		}
		info = append(info, kv[0]...)
		info = binary.LittleEndian.AppendUint32(info, uint32(len(kv[1])+1))
		info = append(info, v...)
	}
	chunk := func(id string, body []byte) []byte {
		b := append([]byte(id), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...)
		b = append(b, body...)
		if len(body)%2 == 1 {
			b = append(b, 0)
		}
		return b
	}
	fmtBody := binary.LittleEndian.AppendUint16(nil, wavePCM)
	fmtBody = binary.LittleEndian.AppendUint16(fmtBody, 1)
	fmtBody = binary.LittleEndian.AppendUint32(fmtBody, 8000)
	fmtBody = binary.LittleEndian.AppendUint32(fmtBody, 16000)
	fmtBody = binary.LittleEndian.AppendUint16(fmtBody, 2)
	fmtBody = binary.LittleEndian.AppendUint16(fmtBody, 16)
	body := []byte("WAVE")
	body = append(body, chunk("fmt ", fmtBody)...)
	body = append(body, chunk("data", make([]byte, 8000))...)
	body = append(body, chunk("LIST", info)...)
	body = append(body, chunk("id3 ", id3.Bytes())...)
	file := append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...)
	file = append(file, body...)

	m, err := Measure(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	g := m.Tags
	if g.Title != "ID3 title" || g.Artist != "ID3 artist" || g.Album != "Info album" || g.Track != 3 || g.Copyright != "Info copyright" {
		t.Errorf("tags %+v", g)
	}
	if len(g.Comments) != 1 || g.Comments[0] != "Info comment" {
		t.Errorf("comments %q", g.Comments)
	}
	if len(g.Chapters) != 1 || g.Chapters[0] != (Chapter{0, time.Second, "Only"}) {
		t.Errorf("chapters %+v", g.Chapters)
	}
	if m.Cover == nil || m.Cover.Width != 5 || m.Cover.Height != 4 {
		t.Errorf("cover %+v", m.Cover)
	}
	if m.Title != "ID3 title" || m.Duration != 500*time.Millisecond {
		t.Errorf("title %q, duration %v", m.Title, m.Duration)
	}
}
