package audio

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/podqa/podqa-go/internal/mpegaudio"
)

// TestMP3CorruptFramesConcealed breaks the Huffman data of frames of an MP3 file: the file is
// still measured, those frames count in ConcealedFrames, and the duration is unchanged; a file
// whose every frame is broken fails with ErrMalformed.
func TestMP3CorruptFramesConcealed(t *testing.T) {
	t.Parallel()
	data := readFixture(t, "tone_m44.mp3")
	clean, err := Measure(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	// Offsets of the frames after the Info frame.
	var offsets []int
	for i := 0; i+4 <= len(data); {
		h, ok := mpegaudio.ParseHeader(data[i:])
		if !ok || i+h.Size > len(data) {
			i++
			continue
		}
		offsets = append(offsets, i)
		i += h.Size
	}
	offsets = offsets[1:]
	// big_values of granule 0 (side information bits 30 to 38 of a mono MPEG-1 frame) set to
	// 511, beyond the 288 pairs a granule has.
	breakFrame := func(b []byte, off int) {
		b[off+4+3] |= 0x03
		b[off+4+4] |= 0xfe
	}
	tests := []struct {
		name   string
		frames []int // indexes into offsets
	}{
		{"one frame", []int{40}},
		{"three frames", []int{10, 11, 90}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := bytes.Clone(data)
			for _, k := range tt.frames {
				breakFrame(b, offsets[k])
			}
			m, err := Measure(bytes.NewReader(b), WithWorkers(2), func(o *options) { o.segFrames = 32 })
			if err != nil {
				t.Fatal(err)
			}
			if m.ConcealedFrames != int64(len(tt.frames)) {
				t.Errorf("ConcealedFrames = %d, want %d", m.ConcealedFrames, len(tt.frames))
			}
			if m.Frames != clean.Frames {
				t.Errorf("%d frames of samples, clean file %d", m.Frames, clean.Frames)
			}
		})
	}
	t.Run("every frame", func(t *testing.T) {
		t.Parallel()
		b := bytes.Clone(data)
		for _, off := range offsets {
			breakFrame(b, off)
		}
		_, err := Measure(bytes.NewReader(b))
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("err = %v, want ErrMalformed", err)
		}
	})
}

// TestMeasureMPEG2And25 measures the decoder's MPEG-2 and MPEG-2.5 fixtures end to end: the
// rate and channels come from the stream, and the number of samples is what ffmpeg's decode
// gives (recorded by internal/mp3dec/testdata/gen.sh).
func TestMeasureMPEG2And25(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "mp3dec", "testdata", "ffmpeg.json"))
	if err != nil {
		t.Fatal(err)
	}
	var refs map[string]struct {
		Trimmed int64 `json:"trimmed"`
	}
	if err := json.Unmarshal(raw, &refs); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file     string
		rate, ch int
	}{
		{"lsf16_stereo_32k.mp3", 16000, 2},
		{"lsf22_mono_32k.mp3", 22050, 1},
		{"lsf24_joint_48k.mp3", 24000, 2},
		{"mpeg25_8k_mono_16k.mp3", 8000, 1},
		{"mpeg25_11k_joint_24k.mp3", 11025, 2},
		{"mpeg25_12k_stereo_32k.mp3", 12000, 2},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("..", "mp3dec", "testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			m, err := Measure(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			want := refs[tt.file].Trimmed
			if m.SampleRate != tt.rate || m.Channels != tt.ch || m.Frames != want || want == 0 {
				t.Fatalf("%d Hz, %d channels, %d samples; want %d Hz, %d channels, %d samples", m.SampleRate, m.Channels, m.Frames, tt.rate, tt.ch, want)
			}
			if m.ConcealedFrames != 0 || m.IntegratedLUFS > -5 || m.IntegratedLUFS < -40 {
				t.Fatalf("concealed %d, integrated %.2f LUFS", m.ConcealedFrames, m.IntegratedLUFS)
			}
		})
	}
}
