package mp3dec

import (
	"errors"
	"os"
	"slices"
	"testing"
)

// FuzzDecodeFrame feeds arbitrary frames to a decoder after real ones (so the reservoir and the
// filter bank hold state): it must never panic, must append a whole frame of samples or
// nothing, and must fail only with its documented errors.
func FuzzDecodeFrame(f *testing.F) {
	for _, name := range []string{"../audio/testdata/formats/speech_s44.mp3", "testdata/lsf22_mono_32k.mp3", "testdata/s32_dual_crc_128k.mp3",
		"testdata/crafted_is_mixed_44k.mp3", "testdata/crafted_is_mixed_lsf22k.mp3"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, fr := range splitFrames(f, data)[3:6] {
			f.Add(fr)
		}
	}
	base := NewDecoder()
	var out []float64
	for _, p := range splitFrames(f, mustRead(f, "../audio/testdata/formats/speech_s44.mp3"))[1:4] {
		out, _ = base.DecodeFrame(out[:0], p)
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		d := *base // a copy of the state after three real frames
		d.bits.buf = slices.Clone(base.bits.buf)
		var out []float64
		for range 2 { // twice: the second decode reads the first one's main data
			out, err := d.DecodeFrame(out[:0], frame)
			switch {
			case err == nil, errors.Is(err, ErrCorrupt), errors.Is(err, ErrReservoir):
				if len(out) != 576 && len(out) != 1152 && len(out) != 2304 {
					t.Fatalf("%d samples for one frame", len(out))
				}
			case errors.Is(err, ErrNotFrame):
				if len(out) != 0 {
					t.Fatalf("%d samples with ErrNotFrame", len(out))
				}
			default:
				t.Fatalf("undocumented error %v", err)
			}
		}
	})
}

func mustRead(tb testing.TB, name string) []byte {
	tb.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}
