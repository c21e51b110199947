package audio

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// fuzzMeasure checks that Measure returns a measurement or one of its sentinel errors for any
// input, never hangs on it or panics (decoder panics would surface as ErrMalformed, which the
// fuzzer reports so that they can be fixed at their source).
func fuzzMeasure(f *testing.F, hint string, seeds ...string) {
	for _, s := range seeds {
		data := readFixture(f, s)
		f.Add(data)
		f.Add(data[:min(len(data), 4096)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := MeasureFile(bytes.NewReader(data), hint, WithWorkers(2))
		if err != nil {
			if !errors.Is(err, ErrUnknownFormat) && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnsupportedCodec) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if m.Size != int64(len(data)) {
			t.Fatalf("size %d of %d bytes", m.Size, len(data))
		}
		if m.Frames < 0 || m.Channels < 1 || m.SampleRate <= 0 || math.IsNaN(m.IntegratedLUFS) {
			t.Fatalf("measurement %+v", m)
		}
		if m.Cover != nil && len(m.Cover.Data) > MaxCoverBytes {
			t.Fatalf("cover of %d bytes", len(m.Cover.Data))
		}
	})
}

func FuzzMeasureMP3(f *testing.F) { fuzzMeasure(f, "x.mp3", "speech_m48.mp3", "tagged.mp3") }

func FuzzMeasureFLAC(f *testing.F) { fuzzMeasure(f, "x.flac", "tagged.flac") }

func FuzzMeasureVorbis(f *testing.F) { fuzzMeasure(f, "x.ogg", "tagged.ogg") }

func FuzzMeasureOpus(f *testing.F) { fuzzMeasure(f, "x.opus", "speech_m48.opus", "speech_s44_96.opus") }

func FuzzMeasureMP4(f *testing.F) { fuzzMeasure(f, "x.m4a", "tagged.m4a", "speech_m48_fs.m4a") }

// FuzzMeasureADTS starts from a short stream: 8 bytes of ADTS decode to 1024 samples, so a
// long input of tiny frames takes the meter seconds, and the fuzzer would mostly wait.
func FuzzMeasureADTS(f *testing.F) {
	f.Add(readFixture(f, "tone_m44.aac")[:1500])
	fuzzMeasure(f, "x.aac")
}
