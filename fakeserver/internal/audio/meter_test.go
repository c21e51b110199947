package audio

import (
	"math"
	"testing"
)

func TestIntegratedLoudness(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		rate     int
		channels int
		segs     []segment
		want     float64
	}{
		{"1 kHz −23 dBFS", 48000, 2, []segment{{20, -23}}, -23},
		{"1 kHz −33 dBFS", 48000, 2, []segment{{20, -33}}, -33},
		{"gated −36/−23/−36", 48000, 2, []segment{{10, -36}, {60, -23}, {10, -36}}, -23},
		{"gated −72/−36/−23/−36/−72", 48000, 2, []segment{{10, -72}, {10, -36}, {60, -23}, {10, -36}, {10, -72}}, -23},
		{"steps −26/−20/−26", 48000, 2, []segment{{20, -26}, {20.1, -20}, {20, -26}}, -23},
		{"8 kHz", 8000, 2, []segment{{10, -23}}, -23},
		{"22.05 kHz", 22050, 2, []segment{{10, -23}}, -23},
		{"44.1 kHz", 44100, 2, []segment{{10, -23}}, -23},
		{"96 kHz", 96000, 2, []segment{{10, -23}}, -23},
		{"mono", 48000, 1, []segment{{10, -23}}, -23 - 10*math.Log10(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := meter(t, tt.rate, tt.channels, tone(tt.rate, tt.channels, 1000, 0, tt.segs...))
			if !near(got.IntegratedLUFS, tt.want, 0.1) {
				t.Errorf("integrated %.3f LUFS, want %.2f ±0.1", got.IntegratedLUFS, tt.want)
			}
			t.Logf("%s: integrated %.3f LUFS (want %.2f)", tt.name, got.IntegratedLUFS, tt.want)
		})
	}
}

func TestTruePeak(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		rate       int
		freq       float64
		phase      float64
		dbfs       float64
		wantSample float64
		wantTrue   float64
	}{
		{"fs/4 at 45°", 48000, 12000, math.Pi / 4, 0, -3.0103, 0},
		{"fs/4 at 45° −6 dB", 44100, 11025, math.Pi / 4, -6, -9.0103, -6},
		{"full-scale 997 Hz", 48000, 997, 0, 0, 0, 0},
		{"full-scale 1 kHz at 44.1 kHz", 44100, 1000, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tone(tt.rate, 2, tt.freq, tt.phase, segment{2, tt.dbfs})
			fade(s, 2, tt.rate/20)
			got := meter(t, tt.rate, 2, s)
			if !near(got.SamplePeakDB, tt.wantSample, 0.05) {
				t.Errorf("sample peak %.3f dBFS, want %.3f", got.SamplePeakDB, tt.wantSample)
			}
			if !near(got.TruePeakDB, tt.wantTrue, 0.2) {
				t.Errorf("true peak %.3f dBTP, want %.3f ±0.2", got.TruePeakDB, tt.wantTrue)
			}
			t.Logf("%s: sample peak %.3f dBFS, true peak %.3f dBTP (want %.3f)", tt.name, got.SamplePeakDB, got.TruePeakDB, tt.wantTrue)
		})
	}
}

// fade applies a raised-cosine fade in and out of n frames.
func fade(s []float64, channels, n int) {
	frames := len(s) / channels
	for i := 0; i < n && i < frames; i++ {
		g := 0.5 - 0.5*math.Cos(math.Pi*float64(i)/float64(n))
		for c := range channels {
			s[i*channels+c] *= g
			s[(frames-1-i)*channels+c] *= g
		}
	}
}

func TestLoudnessRange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		segs []segment
		want float64
		tol  float64
	}{
		{"−20/−30", []segment{{20, -20}, {20, -30}}, 10, 1},
		{"steady", []segment{{10, -23}}, 0, 0.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := meter(t, 48000, 2, tone(48000, 2, 1000, 0, tt.segs...))
			if !near(got.LoudnessRange, tt.want, tt.tol) {
				t.Errorf("loudness range %.3f LU, want %.1f ±%.1f", got.LoudnessRange, tt.want, tt.tol)
			}
			t.Logf("%s: loudness range %.3f LU", tt.name, got.LoudnessRange)
		})
	}
}

func TestMeterSilenceAndEdges(t *testing.T) {
	t.Parallel()
	silent := meter(t, 44100, 2, make([]float64, 2*44100*2))
	if !math.IsInf(silent.IntegratedLUFS, -1) || !math.IsInf(silent.TruePeakDB, -1) || !math.IsInf(silent.SamplePeakDB, -1) || silent.LoudnessRange != 0 {
		t.Errorf("silence measured %+v", silent)
	}
	short := meter(t, 44100, 1, tone(44100, 1, 1000, 0, segment{0.39, -10}))
	if !math.IsInf(short.IntegratedLUFS, -1) {
		t.Errorf("390 ms measured %v LUFS, want -Inf", short.IntegratedLUFS)
	}
	weird := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -1e300, 0.5}
	var s []float64
	for i := 0; i < 48000; i++ {
		s = append(s, weird[i%len(weird)])
	}
	res := meter(t, 48000, 1, s)
	for _, v := range []float64{res.IntegratedLUFS, res.TruePeakDB, res.SamplePeakDB, res.LoudnessRange} {
		if math.IsNaN(v) {
			t.Errorf("non-finite input measured %+v", res)
		}
	}
}

func TestMeterConfig(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ rate, ch int }{{7349, 1}, {384001, 1}, {48000, 0}, {48000, 9}} {
		if _, err := NewMeter(c.rate, c.ch); err == nil {
			t.Errorf("NewMeter(%d, %d) accepted", c.rate, c.ch)
		}
	}
	// AAC's lowest rate (D19 of issue 32: 7,350 Hz ADTS decoded but was not metered).
	if _, err := NewMeter(7350, 1); err != nil {
		t.Errorf("NewMeter(7350, 1): %v", err)
	}
	m, _ := NewMeter(48000, 2)
	if err := m.SetChannelWeights([]float64{1}); err == nil {
		t.Error("one weight for two channels accepted")
	}
	if err := m.SetChannelWeights([]float64{1, math.NaN()}); err == nil {
		t.Error("NaN weight accepted")
	}
	got := ChannelWeights(6, 0)
	want := []float64{1, 1, 1, 0, 1.41, 1.41}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("5.1 weights %v, want %v", got, want)
			break
		}
	}
	// Quad with a mask: FL FR BL BR.
	got = ChannelWeights(4, 0x1|0x2|0x10|0x20)
	want = []float64{1, 1, 1.41, 1.41}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("quad weights %v, want %v", got, want)
			break
		}
	}
}

func TestMonoVersusDualMono(t *testing.T) {
	t.Parallel()
	mono := meter(t, 48000, 1, tone(48000, 1, 1000, 0, segment{5, -20}))
	dual := meter(t, 48000, 2, tone(48000, 2, 1000, 0, segment{5, -20}))
	d := dual.IntegratedLUFS - mono.IntegratedLUFS
	if !near(d, 3.0103, 0.01) {
		t.Errorf("dual mono is %.3f LU louder than mono, want 3.01", d)
	}
	t.Logf("dual mono is %.3f LU louder than mono", d)
}

// TestMeterBlockSizes checks that how samples are split into calls does not change the result.
func TestMeterBlockSizes(t *testing.T) {
	t.Parallel()
	s := tone(16000, 2, 440, 0.3, segment{1.5, -12}, segment{2, -30})
	want := meter(t, 16000, 2, s)
	for _, size := range []int{1, 3, 1024, 4410, len(s)} {
		m, _ := NewMeter(16000, 2)
		for i := 0; i < len(s); i += size {
			m.Process(s[i:min(i+size, len(s))])
		}
		if got := m.Result(); got.Frames != want.Frames || !near(got.IntegratedLUFS, want.IntegratedLUFS, 1e-9) ||
			!near(got.LoudnessRange, want.LoudnessRange, 1e-9) || got.TruePeakDB != want.TruePeakDB || got.SamplePeakDB != want.SamplePeakDB {
			t.Errorf("blocks of %d: %+v, want %+v", size, got, want)
		}
	}
}
