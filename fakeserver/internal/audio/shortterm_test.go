package audio

import (
	"math"
	"testing"
	"unsafe"
)

// TestShortTermSeries: a steady tone then silence gives one value a second, each 3 s window
// ending on a whole second: the tone's loudness while the window holds only tone, gated once it
// holds only silence; 2 bytes a value.
func TestShortTermSeries(t *testing.T) {
	t.Parallel()
	const rate = 8000
	tests := []struct {
		name           string
		toneS, silentS int
		wantLoud       int // values of windows wholly in the tone
		wantGated      int // values of windows wholly in the silence
	}{
		{"under 3 s", 2, 0, 0, 0},
		{"exactly 3 s", 3, 0, 1, 0},
		{"tone then silence", 10, 10, 8, 7},
		{"silence", 0, 5, 0, 3},
	}
	for _, tt := range tests {
		tone := make([]float64, tt.toneS*rate)
		for i := range tone {
			tone[i] = 0.25 * math.Sin(2*math.Pi*997*float64(i)/rate)
		}
		// What the tone alone measures: a steady tone's every window measures the same.
		toneLUFS := math.Inf(-1)
		if tt.toneS > 0 {
			ref, err := NewMeter(rate, 1)
			if err != nil {
				t.Fatal(err)
			}
			ref.Process(tone)
			toneLUFS = ref.Result().IntegratedLUFS
		}
		m, err := NewMeter(rate, 1)
		if err != nil {
			t.Fatal(err)
		}
		m.Process(append(tone, make([]float64, tt.silentS*rate)...))
		res := m.Result()
		seconds := tt.toneS + tt.silentS
		if want := max(seconds-2, 0); len(res.ShortTerm) != want {
			t.Fatalf("%s: %d values, want %d", tt.name, len(res.ShortTerm), want)
		}
		var loud, gated int
		for i := range res.ShortTerm {
			start := i // the window is [start, start+3 s)
			switch {
			case start+3 <= tt.toneS:
				loud++
				if d := math.Abs(res.ShortTerm.LUFS(i) - toneLUFS); d > 0.02 {
					t.Errorf("%s: value %d is %.2f LUFS, the tone %.2f", tt.name, i, res.ShortTerm.LUFS(i), toneLUFS)
				}
			case tt.toneS == 0 || start >= tt.toneS+1:
				// Silence from a second after the tone: the K-weighting filters' ringing is gone.
				gated++
				if res.ShortTerm[i] != ShortTermGated || !math.IsNaN(res.ShortTerm.LUFS(i)) {
					t.Errorf("%s: silent window %d is %d", tt.name, i, res.ShortTerm[i])
				}
			default: // holds the tone's end: quieter than the tone
				if l := res.ShortTerm.LUFS(i); l >= toneLUFS {
					t.Errorf("%s: window %d over the tone's end is %.2f", tt.name, i, l)
				}
			}
		}
		if loud != tt.wantLoud || gated != tt.wantGated {
			t.Errorf("%s: %d loud and %d gated windows, want %d and %d", tt.name, loud, gated, tt.wantLoud, tt.wantGated)
		}
	}
}

// TestShortTermSeriesCost: the series of a minute, scaled to an hour, is at most 16 KiB.
func TestShortTermSeriesCost(t *testing.T) {
	t.Parallel()
	const rate, seconds = 8000, 60
	m, err := NewMeter(rate, 2)
	if err != nil {
		t.Fatal(err)
	}
	samples := make([]float64, 2*rate*seconds)
	for i := range samples {
		samples[i] = 0.1 * math.Sin(float64(i))
	}
	m.Process(samples)
	s := m.Result().ShortTerm
	bytesPerHour := float64(len(s)) * float64(unsafe.Sizeof(s[0])) * 3600 / seconds
	t.Logf("%d values for %d s: %.0f bytes an hour", len(s), seconds, bytesPerHour)
	if len(s) != seconds-2 || bytesPerHour > 16<<10 {
		t.Errorf("%d values, %.0f bytes an hour; want %d values and at most 16 KiB", len(s), bytesPerHour, seconds-2)
	}
}
