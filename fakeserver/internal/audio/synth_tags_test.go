package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"
	"time"
)

// riffChunks returns the chunks of a WAV file by ID (the last of each ID).
func riffChunks(t *testing.T, file []byte) map[string][]byte {
	t.Helper()
	if len(file) < 12 || string(file[:4]) != "RIFF" || string(file[8:12]) != "WAVE" {
		t.Fatal("not a RIFF/WAVE file")
	}
	if got := binary.LittleEndian.Uint32(file[4:]); int(got) != len(file)-8 {
		t.Errorf("RIFF size %d, file %d bytes", got, len(file))
	}
	chunks := map[string][]byte{}
	for b := file[12:]; len(b) >= 8; {
		size := int(binary.LittleEndian.Uint32(b[4:]))
		if 8+size > len(b) {
			t.Fatalf("chunk %q of %d bytes overruns the file", b[:4], size)
		}
		chunks[string(b[:4])] = b[8 : 8+size]
		b = b[min(len(b), 8+size+size%2):]
	}
	return chunks
}

// id3Frames parses an ID3v2.4 tag into its frames in order (IDs and bodies).
func id3Frames(t *testing.T, b []byte) (ids []string, bodies [][]byte) {
	t.Helper()
	unsync := func(b []byte) int { return int(b[0])<<21 | int(b[1])<<14 | int(b[2])<<7 | int(b[3]) }
	if len(b) < 10 || string(b[:3]) != "ID3" || b[3] != 4 || b[5] != 0 {
		t.Fatalf("not an ID3v2.4 tag without flags: % x", b[:min(10, len(b))])
	}
	if n := unsync(b[6:]); n != len(b)-10 {
		t.Fatalf("tag size %d, chunk holds %d", n, len(b)-10)
	}
	for f := b[10:]; len(f) > 0; {
		if len(f) < 10 {
			t.Fatalf("%d stray bytes after the frames", len(f))
		}
		n := unsync(f[4:])
		if 10+n > len(f) {
			t.Fatalf("frame %q overruns the tag", f[:4])
		}
		ids = append(ids, string(f[:4]))
		bodies = append(bodies, f[10:10+n])
		f = f[10+n:]
	}
	return ids, bodies
}

// testPNG returns a small deterministic PNG image.
func testPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for i := range 16 {
		img.Set(i, i, color.RGBA{R: 200, A: 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestSynthesizeTags(t *testing.T) {
	t.Parallel()
	cover := testPNG(t)
	base := SynthSpec{DurationSeconds: 6, SampleRate: 22050, Channels: 2, LoudnessLUFS: -18, TruePeakDB: peakPtr(-2)}
	tagged := base
	tagged.Title = "Info title"
	tagged.Tags = SynthTags{
		Title: "Episode 1: Ünïcode", Artist: "The Host", Album: "The Show", Year: 2026, Comment: "with\x00 a NUL",
		Chapters: []SynthChapter{{0, 2500 * time.Millisecond, "Intro"}, {2500 * time.Millisecond, 6 * time.Second, ""}},
	}
	tagged.Cover = cover
	plain, err := Synthesize(base)
	if err != nil {
		t.Fatal(err)
	}
	file, err := Synthesize(tagged)
	if err != nil {
		t.Fatal(err)
	}
	chunks := riffChunks(t, file)
	if !bytes.Equal(chunks["data"], riffChunks(t, plain)["data"]) {
		t.Error("tags changed the audio")
	}
	ids, bodies := id3Frames(t, chunks["id3 "])
	if got := strings.Join(ids, " "); got != "TIT2 TPE1 TALB TDRC COMM CHAP CHAP CTOC APIC" {
		t.Fatalf("frames %s", got)
	}
	want := [][]byte{
		[]byte("\x03Episode 1: Ünïcode"), []byte("\x03The Host"), []byte("\x03The Show"), []byte("\x032026"),
		[]byte("\x03eng\x00with a NUL"),
		[]byte("chp0\x00\x00\x00\x00\x00\x00\x00\x09\xc4\xff\xff\xff\xff\xff\xff\xff\xffTIT2\x00\x00\x00\x06\x00\x00\x03Intro"),
		[]byte("chp1\x00\x00\x00\x09\xc4\x00\x00\x17\x70\xff\xff\xff\xff\xff\xff\xff\xff"),
		[]byte("toc\x00\x03\x02chp0\x00chp1\x00"),
		append([]byte("\x03image/png\x00\x03\x00"), cover...),
	}
	for i := range want {
		if !bytes.Equal(bodies[i], want[i]) {
			t.Errorf("%s frame % x, want % x", ids[i], bodies[i][:min(len(bodies[i]), 40)], want[i][:min(len(want[i]), 40)])
		}
	}
	// The text is repeated in LIST/INFO, where ffmpeg looks first.
	var info []string
	for l := chunks["LIST"][4:]; len(l) >= 8; {
		n := int(binary.LittleEndian.Uint32(l[4:]))
		info = append(info, string(l[:4])+"="+strings.TrimRight(string(l[8:8+n]), "\x00"))
		l = l[min(len(l), 8+n+n%2):]
	}
	if got := strings.Join(info, ";"); string(chunks["LIST"][:4]) != "INFO" || got != "INAM=Info title;IART=The Host;IPRD=The Show;ICRD=2026;ICMT=with a NUL" {
		t.Errorf("LIST/INFO %q", got)
	}
	m, err := Measure(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	// The reader prefers the id3 chunk's title to LIST/INFO's.
	if m.Title != "Episode 1: Ünïcode" || m.Tags.Artist != "The Host" || len(m.Tags.Chapters) != 2 || m.Cover == nil || !near(m.IntegratedLUFS, -18, 0.1) || !near(m.TruePeakDB, -2, 0.2) || m.Size != int64(len(file)) {
		t.Errorf("tagged file measured %+v", m)
	}
	// The same spec streams the same bytes.
	var w bytes.Buffer
	if err := SynthesizeTo(&w, tagged); err != nil || !bytes.Equal(w.Bytes(), file) {
		t.Errorf("SynthesizeTo differs from Synthesize (%v)", err)
	}
	// No tags, no chunk; one odd-sized frame is padded.
	if _, ok := chunks["id3 "]; !ok || riffChunks(t, plain)["id3 "] != nil {
		t.Error("id3 chunk written without tags, or missing with them")
	}
	odd := base
	odd.Tags.Artist = "odd"
	file, err = Synthesize(odd)
	if err != nil {
		t.Fatal(err)
	}
	if ids, _ := id3Frames(t, riffChunks(t, file)["id3 "]); len(ids) != 1 || ids[0] != "TPE1" {
		t.Errorf("frames %v, want TPE1", ids)
	}
	// Without Title, the tags' title is the INFO title.
	odd.Tags.Title = "From the tags"
	file, err = Synthesize(odd)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := Measure(bytes.NewReader(file)); err != nil || m.Title != "From the tags" {
		t.Errorf("title %q (%v), want the tags' title", m.Title, err)
	}
}

func TestSynthesizeTagsInvalid(t *testing.T) {
	t.Parallel()
	d := SynthSpec{DurationSeconds: 2, SampleRate: 8000}
	tests := []struct {
		name   string
		modify func(*SynthSpec)
	}{
		{"year", func(s *SynthSpec) { s.Tags.Year = 99 }},
		{"chapter past the end", func(s *SynthSpec) { s.Tags.Chapters = []SynthChapter{{0, 2001 * time.Millisecond, "x"}} }},
		{"empty chapter", func(s *SynthSpec) { s.Tags.Chapters = []SynthChapter{{time.Second, time.Second, "x"}} }},
		{"negative start", func(s *SynthSpec) { s.Tags.Chapters = []SynthChapter{{-time.Millisecond, time.Second, "x"}} }},
		{"too many chapters", func(s *SynthSpec) { s.Tags.Chapters = make([]SynthChapter, 256) }},
		{"cover not an image", func(s *SynthSpec) { s.Cover = []byte("GIF89a") }},
		{"cover too big", func(s *SynthSpec) { s.Cover = append([]byte{0xFF, 0xD8, 0xFF}, make([]byte, MaxSynthCover)...) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := d
			tt.modify(&spec)
			var w bytes.Buffer
			err := SynthesizeTo(&w, spec)
			if !errors.Is(err, ErrInvalidSpec) || w.Len() != 0 {
				t.Errorf("error %v after %d bytes, want ErrInvalidSpec before any", err, w.Len())
			}
			if !errors.Is(CheckSpec(spec), ErrInvalidSpec) {
				t.Error("CheckSpec accepted it")
			}
		})
	}
	jpeg := d
	jpeg.Cover = []byte{0xFF, 0xD8, 0xFF, 0xE0}
	jpeg.Tags.Chapters = []SynthChapter{{0, 2 * time.Second, "all"}}
	if err := CheckSpec(jpeg); err != nil {
		t.Errorf("a JPEG cover and a whole-file chapter: %v", err)
	}
}

// TestSynthesizeFades checks that synthesised files start and end in silence and fade: the first
// and last samples are within a step of zero and the first and last eighth of each fade stay
// under 4% of the file's peak (a sin² fade reaches 3.8% there), whatever the shaping.
func TestSynthesizeFades(t *testing.T) {
	t.Parallel()
	for _, spec := range []SynthSpec{
		{DurationSeconds: 0.5, SampleRate: 8000, LoudnessLUFS: -23, TruePeakDB: peakPtr(-1)},
		{DurationSeconds: 3, SampleRate: 44100, Channels: 2, LoudnessLUFS: -16, TruePeakDB: peakPtr(-0.5)},
		{DurationSeconds: 6, SampleRate: 48000, LoudnessLUFS: -30, TruePeakDB: peakPtr(-3)}, // a click in the first gap
		{DurationSeconds: 25, SampleRate: 16000, Channels: 2, LoudnessLUFS: -14},
	} {
		file, err := Synthesize(spec)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewWAVReader(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		ch := max(spec.Channels, 1)
		x := make([]float64, int(spec.DurationSeconds*float64(spec.SampleRate))*ch)
		if n, _ := r.Read(x); n != len(x) {
			t.Fatalf("read %d samples of %d", n, len(x))
		}
		var peak float64
		for _, v := range x {
			peak = max(peak, math.Abs(v))
		}
		fade := int(math.Round(min(0.2, max(0.05, spec.DurationSeconds/10)) * float64(spec.SampleRate)))
		var head, tail float64
		for i := range fade / 8 * ch {
			head = max(head, math.Abs(x[i]))
			tail = max(tail, math.Abs(x[len(x)-1-i]))
		}
		if math.Abs(x[0]) > 1.0/32768 || math.Abs(x[len(x)-1]) > 1.0/32768 || head > 0.04*peak || tail > 0.04*peak {
			t.Errorf("%+v: first sample %.6f, last %.6f, first eighth of the fade-in %.4f, last of the fade-out %.4f, peak %.4f",
				spec, x[0], x[len(x)-1], head, tail, peak)
		}
	}
}
