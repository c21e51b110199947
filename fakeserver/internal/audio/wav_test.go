package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"
)

func u32(v uint32) *uint32 { return &v }

func TestWAVRoundTrip(t *testing.T) {
	t.Parallel()
	const rate, channels = 44100, 2
	signal := tone(rate, channels, 1000, 0.2, segment{1.5, -6})
	want := meter(t, rate, channels, signal)
	tests := []struct {
		name  string
		f     wavFormat
		codec string
		tol   float64 // dB, from the quantisation
	}{
		{"u8", wavFormat{tag: wavePCM, bits: 8}, "pcm_u8", 0.05},
		{"s16", wavFormat{tag: wavePCM, bits: 16}, "pcm_s16le", 0.001},
		{"s24", wavFormat{tag: wavePCM, bits: 24}, "pcm_s24le", 1e-5},
		{"s32", wavFormat{tag: wavePCM, bits: 32}, "pcm_s32le", 1e-5},
		{"f32", wavFormat{tag: waveFloat, bits: 32}, "pcm_f32le", 1e-5},
		{"f64", wavFormat{tag: waveFloat, bits: 64}, "pcm_f64le", 1e-9},
		{"extensible s16", wavFormat{tag: waveExtensible, subtag: wavePCM, bits: 16, mask: 3}, "pcm_s16le", 0.001},
		{"extensible s24 in 32", wavFormat{tag: waveExtensible, subtag: wavePCM, bits: 32, validBits: 24, mask: 3}, "pcm_s32le", 1e-5},
		{"extensible f32", wavFormat{tag: waveExtensible, subtag: waveFloat, bits: 32}, "pcm_f32le", 1e-5},
		{"extensible f64", wavFormat{tag: waveExtensible, subtag: waveFloat, bits: 64}, "pcm_f64le", 1e-9},
		{"title and junk chunk", wavFormat{tag: wavePCM, bits: 16, title: "Episode 1: Héllo", extra: true}, "pcm_s16le", 0.001},
		{"title after data", wavFormat{tag: wavePCM, bits: 24, title: "Trailing", titleAfter: true}, "pcm_s24le", 1e-5},
		{"data size 0 means to EOF", wavFormat{tag: wavePCM, bits: 16, dataSize: u32(0)}, "pcm_s16le", 0.001},
		{"data size 0xFFFFFFFF means to EOF", wavFormat{tag: waveFloat, bits: 32, dataSize: u32(0xFFFFFFFF)}, "pcm_f32le", 1e-5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := encodeWAV(rate, channels, signal, tt.f)
			got, err := Measure(bytes.NewReader(file))
			if err != nil {
				t.Fatal(err)
			}
			if got.Frames != want.Frames || got.Duration != 1500*time.Millisecond || got.Channels != channels ||
				got.SampleRate != rate || got.CodecName != tt.codec || got.FormatName != "wav" ||
				got.Size != int64(len(file)) || got.BitRate != int64(rate*channels*tt.f.bits) || got.BitsPerSample != tt.f.bits {
				t.Errorf("got %+v", got)
			}
			if got.Title != tt.f.title {
				t.Errorf("title %q, want %q", got.Title, tt.f.title)
			}
			for _, c := range []struct {
				name      string
				got, want float64
			}{
				{"integrated", got.IntegratedLUFS, want.IntegratedLUFS},
				{"sample peak", got.SamplePeakDB, want.SamplePeakDB},
				{"true peak", got.TruePeakDB, want.TruePeakDB},
				{"range", got.LoudnessRange, want.LoudnessRange},
			} {
				if !near(c.got, c.want, tt.tol) {
					t.Errorf("%s %.6f, want %.6f ±%g", c.name, c.got, c.want, tt.tol)
				}
			}
		})
	}
}

// TestWAVSamples checks decoded values exactly, including the extremes of each format.
func TestWAVSamples(t *testing.T) {
	t.Parallel()
	signal := []float64{0, 0.5, -0.5, -1, 1 - 1.0/(1<<23)}
	tests := []struct {
		name string
		f    wavFormat
		want []float64
	}{
		{"u8", wavFormat{tag: wavePCM, bits: 8}, []float64{0, 0.5, -0.5, -1, 127.0 / 128}},
		{"s16", wavFormat{tag: wavePCM, bits: 16}, []float64{0, 0.5, -0.5, -1, 32767.0 / 32768}},
		{"s24", wavFormat{tag: wavePCM, bits: 24}, signal},
		{"s32", wavFormat{tag: wavePCM, bits: 32}, signal},
		{"f64", wavFormat{tag: waveFloat, bits: 64}, signal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := NewWAVReader(bytes.NewReader(encodeWAV(8000, 1, signal, tt.f)))
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float64, 16)
			n, err := r.Read(got)
			if err != nil || n != len(signal) {
				t.Fatalf("Read = %d, %v", n, err)
			}
			for i := range tt.want {
				if got[i] != tt.want[i] {
					t.Errorf("sample %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
			if n, err := r.Read(got); n != 0 || err != io.EOF {
				t.Errorf("Read after the end = %d, %v", n, err)
			}
		})
	}
}

func TestWAVTruncatedAndPadded(t *testing.T) {
	t.Parallel()
	signal := tone(8000, 1, 440, 0, segment{1, -10})
	file := encodeWAV(8000, 1, signal, wavFormat{tag: wavePCM, bits: 16})
	// Cut mid-frame: measure the whole frames there are.
	cut := file[:len(file)-1001]
	got, err := Measure(bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(len(signal) - 501); got.Frames != want || got.Size != int64(len(cut)) {
		t.Errorf("truncated: %d frames, size %d; want %d frames, size %d", got.Frames, got.Size, want, len(cut))
	}
	// An odd-sized 8-bit data chunk is padded, and a title follows it.
	odd := tone(8000, 1, 440, 0, segment{0.5, -10})[:3999]
	file = encodeWAV(8000, 1, odd, wavFormat{tag: wavePCM, bits: 8, title: "odd", titleAfter: true})
	got, err = Measure(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if got.Frames != 3999 || got.Title != "odd" || got.Size != int64(len(file)) {
		t.Errorf("odd: %+v", got)
	}
	// A data size that is not a whole number of frames.
	file = encodeWAV(8000, 2, make([]float64, 100), wavFormat{tag: wavePCM, bits: 16, dataSize: u32(199), title: "x", titleAfter: true})
	got, err = Measure(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if got.Frames != 49 {
		t.Errorf("199-byte data chunk of 4-byte frames: %d frames, want 49", got.Frames)
	}
}

func TestWAVMalformed(t *testing.T) {
	t.Parallel()
	good := encodeWAV(8000, 1, make([]float64, 100), wavFormat{tag: wavePCM, bits: 16})
	patch := func(off int, v any) []byte {
		b := bytes.Clone(good)
		var w bytes.Buffer
		_ = binary.Write(&w, binary.LittleEndian, v)
		copy(b[off:], w.Bytes())
		return b
	}
	// Offsets in good: RIFF 0, WAVE 8, "fmt " 12, size 16, tag 20, channels 22, rate 24,
	// byte rate 28, block align 32, bits 34, "data" 36, size 40, samples 44.
	dataFirst := append([]byte("RIFF\x00\x00\x00\x00WAVE"), good[36:]...)
	dataFirst = append(dataFirst, good[12:36]...)
	tests := []struct {
		name  string
		input []byte
		want  error
	}{
		// Measure reads every format: input that is no WAV file is another format or none.
		{"empty", nil, ErrUnknownFormat},
		{"wrong magic", patch(0, []byte("RIFX")), ErrUnknownFormat},
		{"not WAVE", patch(8, []byte("AVI ")), ErrUnknownFormat},
		{"mp3", []byte("ID3\x04\x00\x00\x00\x00\x00\x00\xff\xfb\x90\x00"), ErrMalformed},
		{"truncated header", good[:10], ErrUnknownFormat},
		{"truncated fmt", good[:30], ErrMalformedWAV},
		{"no chunks", good[:12], ErrMalformedWAV},
		{"no data chunk", good[:36], ErrMalformedWAV},
		{"data before fmt", dataFirst, ErrMalformedWAV},
		{"short fmt", patch(16, uint32(12)), ErrMalformedWAV},
		{"absurd fmt size", patch(16, uint32(0xFFFFFFF0)), ErrMalformedWAV},
		{"absurd chunk size", append(append(bytes.Clone(good[:12]), "junk\xf0\xff\xff\xff"...), good[12:]...), ErrMalformedWAV},
		{"zero channels", patch(22, uint16(0)), ErrUnsupportedFormat},
		{"nine channels", patch(22, uint16(9)), ErrUnsupportedFormat},
		{"zero sample rate", patch(24, uint32(0)), ErrUnsupportedFormat},
		{"absurd sample rate", patch(24, uint32(0xFFFFFFFF)), ErrUnsupportedFormat},
		{"12-bit", patch(34, uint16(12)), ErrUnsupportedFormat},
		{"zero bits", patch(34, uint16(0)), ErrUnsupportedFormat},
		{"16-bit float", patch(20, uint16(3)), ErrUnsupportedFormat},
		{"mp3 in wav", patch(20, uint16(0x55)), ErrUnsupportedFormat},
		{"block align", patch(32, uint16(3)), ErrMalformedWAV},
		{"short extensible", patch(20, uint16(0xFFFE)), ErrMalformedWAV},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Measure(bytes.NewReader(tt.input))
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "audio: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

type failingReader struct{ after int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.after <= 0 {
		return 0, errors.New("connection reset")
	}
	n := min(len(p), f.after)
	clear(p[:n])
	copy(p, "RIFF\x00\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00"[:min(n, 44)])
	f.after -= n
	return n, nil
}

func TestWAVReaderErrorsPassThrough(t *testing.T) {
	t.Parallel()
	for _, after := range []int{5, 44, 1000} {
		if _, err := Measure(&failingReader{after: after}); err == nil || !strings.Contains(err.Error(), "connection reset") {
			t.Errorf("after %d bytes: error %v", after, err)
		}
	}
}

func TestFramesDuration(t *testing.T) {
	t.Parallel()
	if got := framesDuration(3*3600*384000+1, 384000); got != 3*time.Hour+2604*time.Nanosecond {
		t.Errorf("got %v", got)
	}
	if got := framesDuration(22050, 44100); got != 500*time.Millisecond {
		t.Errorf("got %v", got)
	}
}

func TestChannelMaskWeights(t *testing.T) {
	t.Parallel()
	// 5.1 in WAV order with a surround-only signal in the back channels: the weights apply.
	const rate = 48000
	base := tone(rate, 1, 1000, 0, segment{2, -20})
	six := make([]float64, 0, len(base)*6)
	for _, v := range base {
		six = append(six, 0, 0, 0, v, v, 0) // LFE and Ls
	}
	f := wavFormat{tag: waveExtensible, subtag: wavePCM, bits: 24, mask: 0x3F}
	got, err := Measure(bytes.NewReader(encodeWAV(rate, 6, six, f)))
	if err != nil {
		t.Fatal(err)
	}
	mono := meter(t, rate, 1, base)
	if d := got.IntegratedLUFS - mono.IntegratedLUFS; !near(d, 10*math.Log10(1.41), 0.01) {
		t.Errorf("LFE + Ls reads %.3f LU above mono, want %.3f", d, 10*math.Log10(1.41))
	}
}
