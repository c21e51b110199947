package audio

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"testing"
)

func peakPtr(v float64) *float64 { return &v }

func TestSynthesizeAccuracy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		seconds  float64
		rate     int
		channels int
		lufs     float64
		peak     *float64
		full     bool // only the full run checks it: -short keeps one of each kind
	}{
		{6, 44100, 1, -16, nil, false},
		{6, 44100, 2, -16, nil, true},
		{6, 48000, 1, -23, nil, true},
		{6, 48000, 2, -23, peakPtr(-1), false},
		{6, 22050, 1, -14, nil, true},
		{6, 22050, 2, -14, peakPtr(-3), false},
		{6, 44100, 1, -23, peakPtr(-3), true},
		{6, 48000, 2, -14, peakPtr(-1), true},
		{6, 22050, 1, -16, peakPtr(-1), true},
		{6, 44100, 2, -23, peakPtr(-1), true},
		{25, 44100, 1, -16, peakPtr(-3), true}, // long enough to repeat the speech pattern
		{25, 48000, 2, -14, nil, true},
		{25, 22050, 1, -23, peakPtr(-1), false},
		{0.5, 44100, 1, -16, nil, false},
		{0.5, 48000, 2, -23, peakPtr(-1), false},
		{8, 8000, 1, -40, peakPtr(0), false},
		{2, 96000, 2, -6, nil, false},
		{8, 44100, 1, -6, peakPtr(0), false},
		{8, 11025, 2, -30, peakPtr(-20), false},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%gs %d Hz %dch %g LUFS", tt.seconds, tt.rate, tt.channels, tt.lufs)
		if tt.peak != nil {
			name += fmt.Sprintf(" %g dBTP", *tt.peak)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if tt.full && testing.Short() {
				// -short keeps mono and stereo, every rate, with and without a peak, the long
				// (pattern-repeating), half-second and extreme cases; the rest repeat those paths.
				t.Skip("-short: the full run checks this rate, layout and target too")
			}
			spec := SynthSpec{DurationSeconds: tt.seconds, SampleRate: tt.rate, Channels: tt.channels, LoudnessLUFS: tt.lufs, TruePeakDB: tt.peak, Title: "Episode " + name}
			file, err := Synthesize(spec)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Measure(bytes.NewReader(file))
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(math.Round(tt.seconds * float64(tt.rate))); m.Frames != want || m.Channels != tt.channels || m.SampleRate != tt.rate ||
				m.CodecName != "pcm_s16le" || m.Title != spec.Title || m.Size != int64(len(file)) {
				t.Errorf("measured %+v", m)
			}
			if !near(m.IntegratedLUFS, tt.lufs, 0.1) {
				t.Errorf("loudness %.3f LUFS, want %g ±0.1", m.IntegratedLUFS, tt.lufs)
			}
			switch {
			case tt.peak != nil && !near(m.TruePeakDB, *tt.peak, 0.2):
				t.Errorf("true peak %.3f dBTP, want %g ±0.2", m.TruePeakDB, *tt.peak)
			case tt.peak == nil && m.TruePeakDB > -1:
				t.Errorf("true peak %.3f dBTP, want at most −1", m.TruePeakDB)
			}
			t.Logf("%s: loudness %.3f LUFS, true peak %.3f dBTP, range %.2f LU", name, m.IntegratedLUFS, m.TruePeakDB, m.LoudnessRange)
		})
	}
}

// TestSynthModel checks that the solver's model of a file is what the meter measures.
func TestSynthModel(t *testing.T) {
	t.Parallel()
	for _, seconds := range []float64{3, 21.37} {
		s, err := planSynth(SynthSpec{DurationSeconds: seconds, SampleRate: 22050, Channels: 2, LoudnessLUFS: -18, TruePeakDB: peakPtr(-2)})
		if err != nil {
			t.Fatal(err)
		}
		lufs, tp := s.evaluate()
		var b bytes.Buffer
		if err := s.write(&b, SynthSpec{}); err != nil {
			t.Fatal(err)
		}
		m, err := Measure(&b)
		if err != nil {
			t.Fatal(err)
		}
		if !near(m.IntegratedLUFS, lufs, 1e-9) || !near(m.TruePeakDB, tp, 1e-12) {
			t.Errorf("%gs (explicit %v): model %.12f LUFS %.12f dBTP, measured %.12f LUFS %.12f dBTP",
				seconds, s.explicit, lufs, tp, m.IntegratedLUFS, m.TruePeakDB)
		}
	}
}

func TestSynthesizeDeterministic(t *testing.T) {
	t.Parallel()
	spec := SynthSpec{DurationSeconds: 14.3, SampleRate: 16000, Channels: 2, LoudnessLUFS: -19, TruePeakDB: peakPtr(-2.5), Title: "Same"}
	a, err := Synthesize(spec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Synthesize(spec)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("the same spec gave different bytes")
	}
	var w bytes.Buffer
	if err := SynthesizeTo(&w, spec); err != nil || !bytes.Equal(a, w.Bytes()) {
		t.Errorf("SynthesizeTo differs from Synthesize (%v)", err)
	}
}

func TestSynthesizeDefaults(t *testing.T) {
	t.Parallel()
	file, err := Synthesize(SynthSpec{DurationSeconds: 2})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Measure(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if m.SampleRate != 44100 || m.Channels != 1 || !near(m.IntegratedLUFS, -16, 0.1) || m.TruePeakDB > -1 || m.Title != "" {
		t.Errorf("defaults measured %+v", m)
	}
	// The fade-in: the first 50 ms are quieter than full level.
	if v := math.Abs(float64(int16(uint16(file[44]) | uint16(file[45])<<8))); v > 10 {
		t.Errorf("first sample %v, want a fade-in from silence", v)
	}
}

func TestSynthesizeInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		spec SynthSpec
	}{
		{"too short", SynthSpec{DurationSeconds: 0.4}},
		{"too long", SynthSpec{DurationSeconds: 3*3600 + 1}},
		{"NaN duration", SynthSpec{DurationSeconds: math.NaN()}},
		{"rate", SynthSpec{DurationSeconds: 1, SampleRate: 4000}},
		{"channels", SynthSpec{DurationSeconds: 1, Channels: 3}},
		{"too quiet", SynthSpec{DurationSeconds: 1, LoudnessLUFS: -41}},
		{"too loud", SynthSpec{DurationSeconds: 1, LoudnessLUFS: -5}},
		{"NaN loudness", SynthSpec{DurationSeconds: 1, LoudnessLUFS: math.NaN()}},
		{"peak above 0", SynthSpec{DurationSeconds: 1, TruePeakDB: peakPtr(0.5)}},
		{"peak below −20", SynthSpec{DurationSeconds: 1, TruePeakDB: peakPtr(-21)}},
		{"peak below loudness", SynthSpec{DurationSeconds: 4, LoudnessLUFS: -10, TruePeakDB: peakPtr(-12)}},
		{"peak too near loudness", SynthSpec{DurationSeconds: 4, LoudnessLUFS: -6, TruePeakDB: peakPtr(-4), SampleRate: 8000}},
		{"peak too far above loudness", SynthSpec{DurationSeconds: 0.5, LoudnessLUFS: -40, TruePeakDB: peakPtr(0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var w bytes.Buffer
			err := SynthesizeTo(&w, tt.spec)
			if !errors.Is(err, ErrInvalidSpec) {
				t.Fatalf("error %v, want ErrInvalidSpec", err)
			}
			if w.Len() != 0 {
				t.Errorf("wrote %d bytes before failing", w.Len())
			}
			t.Log(err)
		})
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestSynthesizeWriteError(t *testing.T) {
	t.Parallel()
	if err := SynthesizeTo(&failWriter{}, SynthSpec{DurationSeconds: 1, SampleRate: 8000}); err == nil || err.Error() != "disk full" {
		t.Errorf("header: %v", err)
	}
	s, err := planSynth(SynthSpec{DurationSeconds: 20, SampleRate: 8000})
	if err != nil {
		t.Fatal(err)
	}
	// In the head, the repeated middle, and the tail.
	for _, n := range []int{100, 30000, 300000} {
		if err := s.write(&failWriter{n: n}, SynthSpec{}); err == nil || err.Error() != "disk full" {
			t.Errorf("after %d bytes: %v", n, err)
		}
	}
}

func TestInfoChunk(t *testing.T) {
	t.Parallel()
	for _, title := range []string{"", "a", "ab", "with\x00nul", string(bytes.Repeat([]byte("é"), 3000))} {
		c := infoChunk(title)
		if title == "" {
			if c != nil {
				t.Errorf("empty title gave a chunk")
			}
			continue
		}
		got, ok := infoTitle(c[8:])
		if !ok || len(got) > maxTitle || len(c)%2 != 0 {
			t.Errorf("title %.20q: chunk of %d bytes read back as %.20q, %v", title, len(c), got, ok)
		}
	}
}

func TestCheckSpecAgreesWithSynthesize(t *testing.T) {
	t.Parallel()
	loud := -6.0
	for _, spec := range []SynthSpec{
		{DurationSeconds: 1, LoudnessLUFS: -16},
		{DurationSeconds: 0.1, LoudnessLUFS: -16},
		{DurationSeconds: 1, LoudnessLUFS: loud, SampleRate: 8000},
		{DurationSeconds: 1, LoudnessLUFS: -60},
	} {
		_, synthErr := Synthesize(spec)
		if err := CheckSpec(spec); (err == nil) != (synthErr == nil) {
			t.Errorf("%+v: CheckSpec %v, Synthesize %v", spec, err, synthErr)
		}
	}
}

// TestQuantizeRoundsAsMathRound: the synthesiser's rounding to 16 bits is math.Round's, clamped
// (NaN to 0), value for value: at the halves, next to them, at the clamps, at the signed zeros
// and at NaN and the infinities.
func TestQuantizeRoundsAsMathRound(t *testing.T) {
	t.Parallel()
	want := func(v float64) int16 {
		r := math.Round(v * 32768)
		switch {
		case r > 32767:
			return 32767
		case r < -32768:
			return -32768
		case r != r:
			return 0
		}
		return int16(r)
	}
	var vals []float64
	for _, x := range []float64{0, math.Copysign(0, -1), 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994,
		-0.49999999999999994, 32766.5, 32767.4, 32767.5, -32767.5, -32768.4, -32768.5, -32769, 1e300, -1e300,
		math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), math.NaN()} {
		vals = append(vals, x/32768, math.Nextafter(x, math.Inf(1))/32768, math.Nextafter(x, math.Inf(-1))/32768)
	}
	for i := range 200001 {
		vals = append(vals, float64(i-100000)/100000*1.01, float64(i-100000)/3+0.5/32768)
	}
	for _, v := range vals {
		if got, w := quantize(v), want(v); got != w {
			t.Errorf("quantize(%v) = %d, math.Round gives %d", v, got, w)
		}
	}
}
