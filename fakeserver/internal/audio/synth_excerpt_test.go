package audio

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// TestPeriodMultiple: with a period multiple the speech repeats with a period that is a whole
// number of multiples and of 100 ms sub-blocks, at least 10 s, and the file still measures as
// asked (the solver's model stays exact).
func TestPeriodMultiple(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rate, multiple int
		period         int64
	}{
		{44100, 1152 * 49, 2 * 282240}, // MP3 at 44.1 kHz: 12.8 s
		{48000, 1152, 10*48000 + 9600}, // 10.2 s
		{11025, 576 * 49, 141120},      // sub-blocks repeat every 2205 frames here: 12.8 s
		{8000, 576, 86400},             // 10.8 s
		{44100, 0, 441000},             // no multiple: 10 s
	}
	for _, tt := range tests {
		if got := patternPeriod(tt.rate, tt.multiple); got != tt.period {
			t.Errorf("patternPeriod(%d, %d) = %d, want %d", tt.rate, tt.multiple, got, tt.period)
		}
	}
	for _, rate := range []int{44100, 11025} {
		t.Run(fmt.Sprint(rate), func(t *testing.T) {
			t.Parallel()
			spec := SynthSpec{DurationSeconds: 40, SampleRate: rate, Channels: 2, LoudnessLUFS: -20, TruePeakDB: peakPtr(-3), PeriodMultiple: 576 * 49}
			file, err := Synthesize(spec)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Measure(bytes.NewReader(file))
			if err != nil {
				t.Fatal(err)
			}
			if !near(m.IntegratedLUFS, -20, 0.02) || !near(m.TruePeakDB, -3, 0.05) {
				t.Errorf("measured %.3f LUFS %.3f dBTP, want -20 and -3", m.IntegratedLUFS, m.TruePeakDB)
			}
		})
	}
	if err := CheckSpec(SynthSpec{DurationSeconds: 1, PeriodMultiple: MaxPeriodMultiple + 1}); err == nil {
		t.Error("a period multiple over the maximum was accepted")
	}
}

// TestSynthesizeExcerpt: the excerpt is the file less whole periods of its middle: its head is
// the file's head, its tail the file's tail, and it keeps at most two periods and two seconds of
// the middle however long the file; a short file is whole.
func TestSynthesizeExcerpt(t *testing.T) {
	t.Parallel()
	samples := func(spec SynthSpec, excerpt bool) (frames int64, out []float64) {
		t.Helper()
		f := SynthesizeSamples
		if excerpt {
			f = SynthesizeExcerpt
		}
		err := f(spec, func(n int64, _, _ int) error { frames = n; return nil }, func(s []float64) error { out = append(out, s...); return nil })
		if err != nil {
			t.Fatal(err)
		}
		return frames, out
	}
	const rate = 8000
	spec := SynthSpec{DurationSeconds: 300, SampleRate: rate, LoudnessLUFS: -18, TruePeakDB: peakPtr(-2), PeriodMultiple: 576}
	n, whole := samples(spec, false)
	k, part := samples(spec, true)
	period := patternPeriod(rate, 576)
	if k != int64(len(part)) || (n-k)%period != 0 || k > 2*period+6*rate || k < period {
		t.Fatalf("the excerpt has %d frames of the file's %d (period %d)", k, n, period)
	}
	head, tail := 3*rate, 3*rate
	if !slices.Equal(part[:head], whole[:head]) || !slices.Equal(part[len(part)-tail:], whole[len(whole)-tail:]) {
		t.Error("the excerpt's head or tail is not the file's")
	}
	// Every sample of the excerpt is the file's at the same place modulo the period.
	drop := n - k
	for i := range part {
		j := int64(i)
		if j >= k-int64(tail) {
			j += drop
		}
		if part[i] != whole[j] {
			t.Fatalf("excerpt sample %d is not the file's sample %d", i, j)
		}
	}
	short := SynthSpec{DurationSeconds: 12, SampleRate: rate, LoudnessLUFS: -18, PeriodMultiple: 576}
	if n, _ := samples(short, false); func() int64 { k, _ := samples(short, true); return k }() != n {
		t.Error("a short file's excerpt is not the whole file")
	}
}
