package audio

import (
	"bytes"
	"errors"
	"io"
	"math"
	"testing"
)

func FuzzReadWAV(f *testing.F) {
	s := tone(8000, 2, 1000, 0, segment{0.06, -6}) // small seeds keep executions fast
	for _, w := range []wavFormat{
		{tag: wavePCM, bits: 8},
		{tag: wavePCM, bits: 16, title: "seed", extra: true},
		{tag: wavePCM, bits: 24, title: "after", titleAfter: true},
		{tag: wavePCM, bits: 32, dataSize: u32(0)},
		{tag: waveFloat, bits: 32, dataSize: u32(0xFFFFFFFF)},
		{tag: waveFloat, bits: 64},
		{tag: waveExtensible, subtag: wavePCM, bits: 24, mask: 3},
		{tag: waveExtensible, subtag: waveFloat, bits: 32},
	} {
		f.Add(encodeWAV(8000, 2, s, w))
	}
	f.Add(encodeWAV(8000, 1, s[:101], wavFormat{tag: wavePCM, bits: 8}))
	f.Add(encodeWAV(8000, 2, tone(8000, 2, 1000, 0, segment{0.5, -6}), wavFormat{tag: wavePCM, bits: 8}))
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVE"))
	f.Add([]byte("RF64\xff\xff\xff\xffWAVEds64\x1c\x00\x00\x00" + string(make([]byte, 28))))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Measure(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrUnknownFormat) && !errors.Is(err, ErrUnsupportedCodec) && !errors.Is(err, ErrMalformed) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if m.Size != int64(len(data)) {
			t.Fatalf("size %d of %d bytes", m.Size, len(data))
		}
		if m.Frames < 0 || m.Frames*int64(m.Channels*m.BitsPerSample/8) > int64(len(data)) {
			t.Fatalf("%d frames in %d bytes", m.Frames, len(data))
		}
		for _, v := range []float64{m.IntegratedLUFS, m.TruePeakDB, m.SamplePeakDB, m.LoudnessRange} {
			if math.IsNaN(v) || math.IsInf(v, 1) {
				t.Fatalf("measured %+v", m)
			}
		}
		if m.TruePeakDB < m.SamplePeakDB {
			t.Fatalf("true peak %v below sample peak %v", m.TruePeakDB, m.SamplePeakDB)
		}
		// The streaming reader gives the same samples whatever the read size.
		r1, err1 := NewWAVReader(bytes.NewReader(data))
		r2, err2 := NewWAVReader(bytes.NewReader(data))
		if err1 != nil || err2 != nil {
			t.Fatalf("reader errors %v, %v after Measure succeeded", err1, err2)
		}
		a, b := readAll(t, r1, 3), readAll(t, r2, 997)
		if len(a) != len(b) || int64(len(a)) != m.Frames*int64(m.Channels) {
			t.Fatalf("read %d and %d samples, measured %d frames", len(a), len(b), m.Frames)
		}
		for i := range a {
			if a[i] != b[i] && !(a[i] != a[i] && b[i] != b[i]) {
				t.Fatalf("sample %d: %v vs %v", i, a[i], b[i])
			}
		}
	})
}

func readAll(t *testing.T, r *WAVReader, frames int) []float64 {
	buf := make([]float64, frames*r.Format().Channels)
	var out []float64
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
	}
}
