package mp3dec

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/blockref"
	"github.com/podqa/podqa-go/internal/mpegaudio"
)

// TestMatchesFFmpeg decodes every MP3 fixture (those of internal/audio and testdata's: MPEG-1,
// 2 and 2.5, mono, stereo, joint, dual channel, CRC, VBR, short blocks, no reservoir, and the
// crafted ones with intensity stereo, mixed blocks, scfsi and every count1 table) and holds
// every block's RMS and peak to those of ffmpeg's float decoder within 2·10⁻⁵ of full scale
// (ffmpeg computes in float32; single samples differ by about 5·10⁻⁶).
func TestMatchesFFmpeg(t *testing.T) {
	t.Parallel()
	refs, err := blockref.Load("testdata/ffmpeg.json")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../audio/testdata/formats/*.mp3")
	more, _ := filepath.Glob("testdata/*.mp3")
	files = append(files, more...)
	if len(files) != len(refs) {
		t.Fatalf("%d fixtures, %d references: run testdata/gen.sh", len(files), len(refs))
	}
	for _, name := range files {
		ref, ok := refs[filepath.Base(name)]
		if !ok {
			t.Fatalf("no reference for %s: run testdata/gen.sh", name)
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			pcm, channels := decodeFile(t, data)
			if channels != ref.Channels || len(pcm)/channels != ref.Samples {
				t.Fatalf("%d channels × %d samples, ffmpeg %d × %d", channels, len(pcm)/channels, ref.Channels, ref.Samples)
			}
			if err := blockref.Compare(pcm, channels, ref, 2e-5); err != nil {
				t.Fatalf("against ffmpeg: %v", err)
			}
		})
	}
}

// decodeFile decodes every frame of an MP3 file but a leading Xing/Info frame, as ffmpeg's
// demuxer does, requiring each to decode without error.
func decodeFile(t *testing.T, data []byte) ([]float64, int) {
	t.Helper()
	frames := splitFrames(t, data)
	if h, ok := mpegaudio.ParseHeader(frames[0]); ok {
		if _, info := mpegaudio.ParseInfoFrame(frames[0], h); info {
			frames = frames[1:]
		}
	}
	d := NewDecoder()
	var out []float64
	channels := 0
	for i, f := range frames {
		h, _ := mpegaudio.ParseHeader(f)
		channels = h.Channels
		var err error
		if out, err = d.DecodeFrame(out, f); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
	return out, channels
}

// TestReservoirAfterReset decodes a stream from its middle: frames whose main data begins in
// frames not seen fail with ErrReservoir and decode as silence of the right length, and the
// frames after them decode as in the whole stream once the filter bank's memory has refilled.
func TestReservoirAfterReset(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../audio/testdata/formats/speech_s44.mp3")
	if err != nil {
		t.Fatal(err)
	}
	whole, channels := decodeFile(t, data)
	frames := splitFrames(t, data)[1:]
	const from = 40
	d := NewDecoder()
	var part []float64
	reservoir := 0
	for i, f := range frames[from:] {
		n := len(part)
		part, err = d.DecodeFrame(part, f)
		if got := len(part) - n; got != 1152*channels {
			t.Fatalf("frame %d appended %d samples", from+i, got)
		}
		switch {
		case err == nil:
		case errors.Is(err, ErrReservoir) && i == reservoir:
			reservoir++
		default:
			t.Fatalf("frame %d: %v", from+i, err)
		}
	}
	if reservoir == 0 {
		t.Fatal("no frame reached back before the cut; choose a frame that does")
	}
	// From the second frame after the last concealed one, output equals the whole decode.
	start := (reservoir + 1) * 1152 * channels
	for i := start; i < len(part); i++ {
		if w := whole[from*1152*channels+i]; math.Abs(part[i]-w) > 1e-12 {
			t.Fatalf("sample %d: %v, whole stream %v", i, part[i], w)
		}
	}
}

// TestCorruptFrameConcealed breaks one frame's Huffman data: that frame fails with
// ErrCorrupt, every frame still appends its samples, and decoding goes on.
func TestCorruptFrameConcealed(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../audio/testdata/formats/tone_m44.mp3")
	if err != nil {
		t.Fatal(err)
	}
	frames := splitFrames(t, data)[1:]
	broken := append([]byte(nil), frames[30]...)
	h, _ := mpegaudio.ParseHeader(broken)
	// big_values of granule 0 (side information bits 30 to 38 of a mono MPEG-1 frame) to
	// 511, beyond the 288 pairs a granule has.
	si := broken[4:]
	si[3] |= 0x03
	si[4] |= 0xfe
	frames[30] = broken
	d := NewDecoder()
	var out []float64
	for i, f := range frames {
		n := len(out)
		out, err = d.DecodeFrame(out, f)
		if len(out)-n != h.Samples*h.Channels {
			t.Fatalf("frame %d appended %d samples", i, len(out)-n)
		}
		if (err != nil) != (i == 30) || (err != nil && !errors.Is(err, ErrCorrupt)) {
			t.Fatalf("frame %d: error %v", i, err)
		}
	}
	if _, err := d.DecodeFrame(nil, []byte("not a frame")); !errors.Is(err, ErrNotFrame) {
		t.Fatalf("garbage: %v, want ErrNotFrame", err)
	}
}
