package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/vorbisdec"
)

// oggPageStarts returns the offsets of the pages of an Ogg file.
func oggPageStarts(t *testing.T, b []byte) []int {
	t.Helper()
	var out []int
	for at := 0; at < len(b); {
		if string(b[at:at+4]) != "OggS" {
			t.Fatalf("no page at %d", at)
		}
		out = append(out, at)
		nseg := int(b[at+26])
		size := 27 + nseg
		for _, s := range b[at+27 : at+27+nseg] {
			size += int(s)
		}
		at += size
	}
	return out
}

// TestVorbisGranules measures speech_s44.ogg with its pages' granule positions and flags
// changed (the pages' CRCs are not checked): the first audio page's granule position sets
// where the stream starts, and only a page flagged as the last cuts the end.
func TestVorbisGranules(t *testing.T) {
	t.Parallel()
	orig, err := os.ReadFile(filepath.Join("testdata", "formats", "speech_s44.ogg"))
	if err != nil {
		t.Fatal(err)
	}
	pages := oggPageStarts(t, orig)
	firstAudio := -1
	for _, at := range pages {
		if g := int64(binary.LittleEndian.Uint64(orig[at+6:])); g > 0 {
			firstAudio = at
			break
		}
	}
	last := pages[len(pages)-1]
	if firstAudio < 0 || firstAudio == last || orig[last+5]&4 == 0 {
		t.Fatal("speech_s44.ogg no longer has a first audio page before its last page")
	}
	const total = 132300 // 3 s at 44.1 kHz, as ffmpeg decodes it
	for _, tc := range []struct {
		name     string
		edit     func(b []byte)
		min, max int64 // frames measured
	}{
		{"as encoded", func([]byte) {}, total, total},
		// The first page ends 100 samples before what its packets decode: they are dropped at
		// the start, and the end is still the last page's granule position (the encoder's
		// padding at the end is longer than 100 samples).
		{"start before zero", func(b []byte) { addGranule(b[firstAudio:], -100) }, total, total},
		// The stream starts at 1,000 on the granule scale: 1,000 fewer samples up to the end.
		{"start after zero", func(b []byte) { addGranule(b[firstAudio:], 1000) }, total - 1000, total - 1000},
		// Without the end-of-stream flag, nothing says where the last packet ends.
		{"no end of stream", func(b []byte) { b[last+5] &^= 4 }, total + 1, total + 1024},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := bytes.Clone(orig)
			tc.edit(b)
			m, err := Measure(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if m.Frames < tc.min || m.Frames > tc.max {
				t.Errorf("%d frames, want %d to %d", m.Frames, tc.min, tc.max)
			}
		})
	}
}

func addGranule(page []byte, d int64) {
	g := int64(binary.LittleEndian.Uint64(page[6:]))
	binary.LittleEndian.PutUint64(page[6:], uint64(g+d))
}

// TestVorbisCorruptSetup: a setup header that breaks the specification is ErrMalformed, and
// the decoder's ErrCorrupt says why.
func TestVorbisCorruptSetup(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "formats", "tagged.ogg"))
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(b, []byte("\x05vorbis"))
	if at < 0 || string(b[at+8:at+11]) != "BCV" {
		t.Fatal("no setup header with a codebook at its start")
	}
	b[at+8] = 'X' // the first codebook's sync pattern
	_, err = Measure(bytes.NewReader(b))
	if !errors.Is(err, ErrMalformed) || !errors.Is(err, vorbisdec.ErrCorrupt) {
		t.Fatalf("%v, want ErrMalformed and vorbisdec.ErrCorrupt", err)
	}
}

// TestClampUnit: samples are limited to ±1, and the NaN a hostile stream can decode to
// becomes -1.
func TestClampUnit(t *testing.T) {
	t.Parallel()
	nan := float32(math.NaN())
	for _, tc := range []struct{ in, want float32 }{
		{0.5, 0.5}, {1, 1}, {-1, -1}, {1.5, 1}, {-3, -1},
		{float32(math.Inf(1)), 1}, {float32(math.Inf(-1)), -1}, {nan, -1},
	} {
		if got := clampUnit(tc.in); got != tc.want {
			t.Errorf("clampUnit(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
