package audio

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "formats", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMP3SegmentsMatchSequential decodes MP3 files in short parallel segments and requires the
// very same measurement as one sequential decoder: the warm-up frames restore the bit
// reservoir and the filter banks exactly.
func TestMP3SegmentsMatchSequential(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"speech_s44.mp3", "speech_m48.mp3", "tagged.mp3"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data := readFixture(t, name)
			data = data[:len(data)/2] // 1.5 s keeps the test fast under -race
			seq, err := Measure(bytes.NewReader(data), WithWorkers(1), func(o *options) { o.segFrames = 1 << 20 })
			if err != nil {
				t.Fatal(err)
			}
			for _, seg := range []int{1, 7} {
				par, err := Measure(bytes.NewReader(data), WithWorkers(3), func(o *options) { o.segFrames = seg })
				if err != nil {
					t.Fatal(err)
				}
				// The meter sees the same samples in other block sizes, so sums may differ in the
				// last bits; one wrong frame would move them by far more than 1e-9.
				if par.Frames != seq.Frames || par.SamplePeakDB != seq.SamplePeakDB || math.Abs(par.IntegratedLUFS-seq.IntegratedLUFS) > 1e-9 ||
					math.Abs(par.TruePeakDB-seq.TruePeakDB) > 1e-9 || math.Abs(par.LoudnessRange-seq.LoudnessRange) > 1e-9 {
					t.Errorf("segments of %d frames: %+v, sequential %+v", seg, par, seq)
				}
			}
		})
	}
}

// oneByteReader hands out one byte per Read, to exercise buffering at every boundary.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

// seekableOneByteReader is a oneByteReader that passes Seek through, as a file does: Opus
// decodes with internal/opusdec only on a seekable input (measureOpus), so comparing
// with bytes.Reader needs a seekable reader (TestOpusDecodersAgree compares read-once input).
type seekableOneByteReader struct {
	oneByteReader
	s io.Seeker
}

func (o seekableOneByteReader) Seek(off int64, whence int) (int64, error) {
	return o.s.Seek(off, whence)
}

// TestMeasureSniffsWithoutName checks that every fixture is recognised by its bytes alone,
// through a reader that returns one byte at a time, and measures the same as through a file.
func TestMeasureSniffsWithoutName(t *testing.T) {
	t.Parallel()
	for _, ref := range loadFormatRefs(t) {
		t.Run(ref.File, func(t *testing.T) {
			t.Parallel()
			data := readFixture(t, ref.File)
			a, errA := Measure(bytes.NewReader(data))
			br := bytes.NewReader(data)
			b, errB := Measure(seekableOneByteReader{oneByteReader{br}, br})
			if (errA == nil) != (errB == nil) || a.CodecName != ref.CodecName || a.Frames != b.Frames || a.Size != int64(len(data)) || b.Size != int64(len(data)) {
				t.Fatalf("%v %v: %+v / %+v", errA, errB, a, b)
			}
			if errA == nil && (a.IntegratedLUFS != b.IntegratedLUFS || a.TruePeakDB != b.TruePeakDB) {
				t.Errorf("byte-wise reader measured %v/%v, file %v/%v", b.IntegratedLUFS, b.TruePeakDB, a.IntegratedLUFS, a.TruePeakDB)
			}
		})
	}
}

// TestMeasureErrors checks the sentinel of each kind of undecodable input.
func TestMeasureErrors(t *testing.T) {
	t.Parallel()
	mp3 := readFixture(t, "tone_m44.mp3")
	flac := readFixture(t, "tone_m44.flac")
	ogg := readFixture(t, "tone_s48.ogg")
	opus := readFixture(t, "step_s48.opus")
	m4a := readFixture(t, "tagged.m4a")
	heAAC := bytes.Replace(m4a, []byte{0x12, 0x08, 0x56, 0xe5, 0x00}, []byte{0x12, 0x08, 0x56, 0xe5, 0x80}, 1) // SBR present
	mainADTS := readFixture(t, "tone_m44.aac")
	mainADTS[2] &^= 0xc0 // profile 0: AAC Main
	// MPEG-1 layer II frames (mp2) of 128 kbit/s at 44.1 kHz: 417 bytes each.
	mp2 := bytes.Repeat(append([]byte{0xFF, 0xFD, 0x80, 0x00}, make([]byte, 413)...), 8)
	corruptFLAC := bytes.Clone(flac)
	for i := len(flac) / 2; i < len(flac)/2+64; i++ {
		corruptFLAC[i] ^= 0x5A
	}
	tests := []struct {
		name  string
		input []byte
		hint  string
		want  error
	}{
		{"empty", nil, "", ErrUnknownFormat},
		{"text", []byte("hello, this is not audio at all"), "x.mp3", ErrUnknownFormat},
		{"zeros named mp3", make([]byte, 5000), "x.mp3", ErrUnknownFormat},
		{"mp2", mp2, "", ErrUnsupportedCodec},
		{"ID3 then nothing", mp3[:45], "", ErrMalformed},
		{"FLAC header only", flac[:30], "", ErrMalformed},
		{"FLAC corrupt frame", corruptFLAC, "", ErrMalformed},
		{"Ogg Vorbis cut in headers", ogg[:200], "", ErrMalformed},
		{"Opus cut in headers", opus[:40], "", ErrMalformed},
		{"Ogg of another codec", append([]byte("OggS\x00\x02"), make([]byte, 60)...), "", ErrUnsupportedCodec},
		{"MP4 without moov", m4a[:32], "", ErrMalformed},
		{"HE-AAC in M4A", heAAC, "", ErrUnsupportedCodec},
		{"AAC Main in ADTS", mainADTS, "", ErrUnsupportedCodec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := MeasureFile(bytes.NewReader(tt.input), tt.hint)
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			// A refused AAC stream names its profile, for the report's reason.
			if profile, ok := map[string]string{"HE-AAC in M4A": "profile HE-AAC", "AAC Main in ADTS": "profile Main"}[tt.name]; ok &&
				!strings.Contains(err.Error(), profile) {
				t.Errorf("error %q does not name the %s", err, profile)
			}
			if !strings.HasPrefix(err.Error(), "audio: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

// TestMeasureTruncated measures files cut in the middle of their audio: the part that is
// there, or a malformed error, never a panic.
func TestMeasureTruncated(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"speech_s44.mp3", "tone_m44.flac", "tone_s48.ogg", "step_s48.opus", "tone_m44_f32.wav"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data := readFixture(t, name)
			full, err := Measure(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			half, err := Measure(bytes.NewReader(data[:len(data)*2/3]))
			if err != nil {
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("error %v", err)
				}
				return
			}
			if half.Frames <= 0 || half.Frames >= full.Frames {
				t.Errorf("truncated file measured %d frames of %d", half.Frames, full.Frames)
			}
		})
	}
}

// TestMeasureCorruptMP3 damages the coded data of an MP3 file in many places, decoding in
// small parallel segments: each result is a measurement or ErrMalformed, and a failing segment
// stops the pipeline without leaving it blocked.
func TestMeasureCorruptMP3(t *testing.T) {
	t.Parallel()
	data := readFixture(t, "speech_s44.mp3")
	data = data[:len(data)/3]
	for seed := range 6 {
		bad := bytes.Clone(data)
		// A deterministic scatter of flipped bytes after the first frames.
		for i := range 60 {
			pos := 2000 + (seed*7919+i*104729)%(len(bad)-2000)
			bad[pos] ^= byte(0x55 + seed)
		}
		m, err := Measure(bytes.NewReader(bad), WithWorkers(2), func(o *options) { o.segFrames = 4 })
		t.Logf("seed %d: %d frames, %v", seed, m.Frames, err)
		switch {
		case err == nil && m.Frames <= 0:
			t.Errorf("seed %d: no audio measured", seed)
		case err != nil && !errors.Is(err, ErrMalformed):
			t.Errorf("seed %d: error %v", seed, err)
		}
	}
}
