package audio

import (
	"bytes"
	"testing"
	"unicode/utf16"
)

// id3v22Frame builds a version 2.2 frame.
func id3v22Frame(id string, data []byte) []byte {
	n := len(data)
	return append([]byte{id[0], id[1], id[2], byte(n >> 16), byte(n >> 8), byte(n)}, data...)
}

// id3v22Tag builds a version 2.2 tag of frames, with padding, and the given header flags.
func id3v22Tag(flags byte, padding int, frames ...[]byte) []byte {
	body := bytes.Join(frames, nil)
	body = append(body, make([]byte, padding)...)
	n := len(body)
	h := []byte{'I', 'D', '3', 2, 0, flags, byte(n >> 21 & 0x7f), byte(n >> 14 & 0x7f), byte(n >> 7 & 0x7f), byte(n & 0x7f)}
	return append(h, body...)
}

// utf16BOM encodes s as UTF-16 little-endian with a byte-order mark.
func utf16BOM(s string) []byte {
	b := []byte{0xff, 0xfe}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func latin1Text(s string) []byte { return append([]byte{0}, s...) }

func TestParseID3v22(t *testing.T) {
	t.Parallel()
	png := pngBytes(t, 30, 20)
	pic := func(typ byte, format string, img []byte) []byte {
		return id3v22Frame("PIC", append(append([]byte{0}, format...), append([]byte{typ, 'd', 0}, img...)...))
	}
	tests := []struct {
		name      string
		tag       []byte
		want      Tags
		coverSize [2]int // width, height; 0 for no cover
	}{
		{
			name: "text frames in ISO-8859-1",
			tag: id3v22Tag(0, 32,
				id3v22Frame("TT2", latin1Text("Caf\xe9 talk")),
				id3v22Frame("TP1", latin1Text("Ann")),
				id3v22Frame("TAL", latin1Text("Season 2")),
				id3v22Frame("TYE", latin1Text("2019")),
				id3v22Frame("TCR", latin1Text("2019 Ann")),
				id3v22Frame("TRK", latin1Text("3/12"))),
			want: Tags{Title: "Café talk", Artist: "Ann", Album: "Season 2", Year: "2019", Copyright: "2019 Ann", Track: 3},
		},
		{
			name: "UTF-16 with a byte-order mark, comments",
			tag: id3v22Tag(0, 0,
				id3v22Frame("TT2", append([]byte{1}, utf16BOM("Épisode ✓")...)),
				id3v22Frame("COM", append([]byte{1, 'e', 'n', 'g'}, append(append(utf16BOM("desc"), 0, 0), utf16BOM("A comment")...)...)),
				id3v22Frame("TXX", append(latin1Text("comment"), append([]byte{0}, "From ffmpeg"...)...))),
			want: Tags{Title: "Épisode ✓", Comments: []string{"A comment", "From ffmpeg"}},
		},
		{
			name:      "front cover wins over another picture",
			tag:       id3v22Tag(0, 10, pic(0, "PNG", pngBytes(t, 5, 5)), pic(3, "PNG", png), id3v22Frame("TT2", latin1Text("T"))),
			want:      Tags{Title: "T"},
			coverSize: [2]int{30, 20},
		},
		{
			name: "unsynchronised tag",
			tag: func() []byte {
				raw := id3v22Tag(0, 0, id3v22Frame("TT2", latin1Text("\xffA")), id3v22Frame("TP1", latin1Text("B")))
				// Insert a zero after every 0xFF of the body, as unsynchronisation does.
				body := bytes.ReplaceAll(raw[10:], []byte{0xff}, []byte{0xff, 0})
				return id3v22Tag(0x80, 0, body)
			}(),
			want: Tags{Title: "ÿA", Artist: "B"},
		},
		{
			name: "compressed tag is skipped",
			tag:  id3v22Tag(0x40, 0, id3v22Frame("TT2", latin1Text("T"))),
		},
		{
			name: "frame running past the tag keeps what came before",
			tag: func() []byte {
				b := id3v22Tag(0, 0, id3v22Frame("TT2", latin1Text("Kept")), id3v22Frame("TP1", latin1Text("Lost")))
				b[len(b)-6] = 0x7f // TP1's size, far beyond the tag
				return b
			}(),
			want: Tags{Title: "Kept"},
		},
		{
			name: "zero-size frames and unknown ids are passed over",
			tag:  id3v22Tag(0, 4, id3v22Frame("TT2", nil), id3v22Frame("XYZ", []byte("??")), id3v22Frame("TAL", latin1Text("A"))),
			want: Tags{Album: "A"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, cover := parseID3v2(tt.tag)
			if got.Title != tt.want.Title || got.Artist != tt.want.Artist || got.Album != tt.want.Album ||
				got.Year != tt.want.Year || got.Copyright != tt.want.Copyright || got.Track != tt.want.Track ||
				len(got.Comments) != len(tt.want.Comments) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i := range got.Comments {
				if got.Comments[i] != tt.want.Comments[i] {
					t.Fatalf("comment %d = %q, want %q", i, got.Comments[i], tt.want.Comments[i])
				}
			}
			switch {
			case tt.coverSize[0] == 0 && cover != nil:
				t.Fatalf("cover %+v, want none", cover)
			case tt.coverSize[0] != 0 && (cover == nil || cover.Width != tt.coverSize[0] || cover.Height != tt.coverSize[1] || cover.MIMEType != "image/png"):
				t.Fatalf("cover %+v, want %v PNG", cover, tt.coverSize)
			}
		})
	}
}

// TestMeasureMP3WithID3v22 measures an MP3 whose tag is ID3v2.2, end to end.
func TestMeasureMP3WithID3v22(t *testing.T) {
	t.Parallel()
	mp3 := readFixture(t, "tone_m44.mp3")
	if n, ok := id3Size(mp3); ok {
		mp3 = mp3[n:] // drop the fixture's own tag
	}
	tag := id3v22Tag(0, 64, id3v22Frame("TT2", latin1Text("Old iTunes")), id3v22Frame("TP1", latin1Text("Someone")),
		id3v22Frame("PIC", append([]byte{0, 'P', 'N', 'G', 3, 0}, pngBytes(t, 8, 6)...)))
	m, err := MeasureFile(bytes.NewReader(append(tag, mp3...)), "old.mp3")
	if err != nil {
		t.Fatal(err)
	}
	if m.Title != "Old iTunes" || m.Tags.Artist != "Someone" || m.Cover == nil || m.Cover.Width != 8 {
		t.Fatalf("title %q artist %q cover %+v", m.Title, m.Tags.Artist, m.Cover)
	}
	if m.Frames == 0 {
		t.Fatal("no audio measured")
	}
}

// FuzzID3v22 feeds arbitrary bodies behind a version 2.2 header: no panic, whatever the bytes.
func FuzzID3v22(f *testing.F) {
	f.Add(byte(0), id3v22Tag(0, 8, id3v22Frame("TT2", latin1Text("T")))[10:])
	f.Add(byte(0x80), id3v22Tag(0, 0, id3v22Frame("COM", []byte{1, 'e', 'n', 'g', 0xff, 0xfe, 0, 0, 'x', 0}))[10:])
	f.Add(byte(0), id3v22Frame("PIC", []byte{0, 'J', 'P', 'G', 3, 0, 0xff, 0xd8}))
	f.Fuzz(func(t *testing.T, flags byte, body []byte) {
		tag := id3v22Tag(flags, 0, body)
		_, _ = parseID3v2(tag)
		_, _ = parseID3v2(tag[:len(tag)/2]) // a tag cut short
	})
}
