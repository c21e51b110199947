package audio

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
	"time"
)

// seconds converts a duration in seconds to a time.Duration.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }

func TestSilences(t *testing.T) {
	t.Parallel()
	// Segments are whole tenths of a second long, so they fill whole 100 ms windows; a peak of
	// −57 dBFS is an RMS of −60.01 dBFS (silent), −56.9 dBFS an RMS of −59.91 dBFS (sound).
	tests := []struct {
		name                       string
		rate, channels             int
		segs                       []segment
		leading, trailing, longest float64
	}{
		{"quiet gaps", 48000, 2, []segment{{1.2, math.Inf(-1)}, {2, -20}, {3, -57}, {1, -20}, {0.75, -80}}, 1.2, 0.75, 3},
		{"two gaps, the first longer", 44100, 1, []segment{{0.4, -70}, {1, -20}, {2.4, math.Inf(-1)}, {0.5, -30}, {0.6, -65}, {0.5, -30}}, 0.4, 0, 2.4},
		{"just above the threshold", 11025, 2, []segment{{1, -56.9}, {2, -20}, {1, -56.9}}, 0, 0, 0},
		{"just below the threshold", 22050, 1, []segment{{1, -57}, {2, -20}, {1.4, -57}}, 1, 1.4, 0},
		{"all silent", 8000, 1, []segment{{2.05, -70}}, 2.05, 2.05, 0},
		{"sound in the last partial window", 16000, 1, []segment{{1, math.Inf(-1)}, {0.05, -10}}, 1, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := meter(t, tt.rate, tt.channels, tone(tt.rate, tt.channels, 1000, 0.1, tt.segs...))
			if got.LeadingSilence != seconds(tt.leading) || got.TrailingSilence != seconds(tt.trailing) || got.LongestSilence != seconds(tt.longest) {
				t.Errorf("silences: leading %v, trailing %v, longest %v; want %gs, %gs, %gs",
					got.LeadingSilence, got.TrailingSilence, got.LongestSilence, tt.leading, tt.trailing, tt.longest)
			}
		})
	}
}

func TestClippingRuns(t *testing.T) {
	t.Parallel()
	long := make([]float64, 3000) // one flat run across several chunks
	for i := range long {
		long[i] = -1
	}
	tests := []struct {
		name     string
		samples  []float64
		runs     int64
		clipped  int64
		channels int
	}{
		{"runs of 3 and 4; 2 is not a run", []float64{0, 1, 1, 1, 0.5, -1, -1, 0, 0.995, 0.995, 0.995, 0.995, 0.3}, 2, 7, 1},
		{"near full scale but not flat", []float64{0.999, 0.9991, 0.9992, 0.9993, 0.9994, 0}, 0, 0, 1},
		{"flat but below the clip level", []float64{0.98, 0.98, 0.98, 0.98}, 0, 0, 1},
		{"a run open at the end", []float64{0, 0.5, 1, 1, 1, 1, 1}, 1, 5, 1},
		{"a sign change splits runs", []float64{1, 1, 1, -1, -1, -1}, 2, 6, 1},
		{"a long run", long, 1, 3000, 1},
		{"channels apart", []float64{1, 0, 1, 0, 1, -1, 0, -1, 0, -1}, 2, 6, 2},
		{"interleaved values do not make a run", []float64{1, 1, 1, 1, 0, 0}, 0, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, size := range []int{1, 2, 5, len(tt.samples)} {
				m, err := NewMeter(8000, tt.channels)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < len(tt.samples); i += size {
					m.Process(tt.samples[i:min(i+size, len(tt.samples))])
				}
				got := m.Result()
				if got.ClippingRuns != tt.runs || got.ClippedSamples != tt.clipped {
					t.Errorf("blocks of %d: %d runs of %d samples, want %d of %d", size, got.ClippingRuns, got.ClippedSamples, tt.runs, tt.clipped)
				}
			}
		})
	}
}

// TestClippedSine clips a 16-bit sine 6 dB over full scale: every half cycle has one flat top.
func TestClippedSine(t *testing.T) {
	t.Parallel()
	const rate = 8000
	s := tone(rate, 2, 100, 0.3, segment{1, 6})
	for i, v := range s {
		s[i] = max(-1, min(1, v))
	}
	m, err := Measure(bytes.NewReader(encodeWAV(rate, 2, s, wavFormat{tag: wavePCM, bits: 16})))
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(2 * 2 * 100); m.ClippingRuns != want {
		t.Errorf("%d clipping runs, want %d (two half-cycles × 100 Hz × 2 channels)", m.ClippingRuns, want)
	}
	// Each flat top covers the part of the half cycle above −6 dB: two thirds of it.
	if perRun := float64(m.ClippedSamples) / float64(m.ClippingRuns); !near(perRun, rate/200.0*2/3, 1.5) {
		t.Errorf("%.2f samples a run, want about %.2f", perRun, rate/200.0*2/3)
	}
	clean := meter(t, rate, 1, tone(rate, 1, 50, 0, segment{1, -0.05}))
	if clean.ClippingRuns != 0 {
		t.Errorf("a 50 Hz sine peaking at −0.05 dBFS has %d clipping runs", clean.ClippingRuns)
	}
}

func TestNoiseFloor(t *testing.T) {
	t.Parallel()
	// 1 kHz fills every 100 ms window with whole cycles, so each window's RMS is the peak − 3.0103 dB.
	tests := []struct {
		name string
		segs []segment
		want float64
	}{
		{"10% quiet", []segment{{1, -70}, {9, -20}}, -73.0103},
		{"fewer than 10% quiet", []segment{{0.9, -70}, {9.1, -20}}, -23.0103},
		{"several levels", []segment{{0.5, -90}, {0.5, -80}, {0.5, -50}, {8.5, -20}}, -83.0103},
		{"digital silence", []segment{{1, math.Inf(-1)}, {9, -20}}, math.Inf(-1)},
		{"one window", []segment{{0.1, -40}}, -43.0103},
		{"a partial window", []segment{{0.05, -40}}, -43.0103},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := meter(t, 48000, 2, tone(48000, 2, 1000, 0, tt.segs...))
			if !(got.NoiseFloorDB == tt.want || near(got.NoiseFloorDB, tt.want, 0.01)) {
				t.Errorf("noise floor %.4f dBFS, want %.4f", got.NoiseFloorDB, tt.want)
			}
		})
	}
	empty, _ := NewMeter(48000, 1)
	if nf := empty.Result().NoiseFloorDB; !math.IsInf(nf, -1) {
		t.Errorf("no audio: noise floor %v, want −Inf", nf)
	}
}

func TestLevelsOffsetCorrelation(t *testing.T) {
	t.Parallel()
	const rate, n = 48000, 48000
	noise := splitmix{s: 1}
	sine := func(i int) float64 { return math.Sin(2 * math.Pi * 1000 * float64(i) / rate) }
	tests := []struct {
		name     string
		channels int
		frame    func(i int) []float64
		rms      []float64
		dc       []float64
		corr     float64 // NaN: want NaN
		tol      float64 // of the noise case's statistics (about 4 standard errors), else 0
	}{
		{"offset left, inverted right", 2, func(i int) []float64 { return []float64{0.25 + 0.5*sine(i), -0.5 * sine(i)} },
			[]float64{10 * math.Log10(0.25*0.25+0.125), 10 * math.Log10(0.125)}, []float64{0.25, 0}, -1, 0},
		{"dual mono at different gains", 2, func(i int) []float64 { return []float64{0.5 * sine(i), 0.05 * sine(i)} },
			[]float64{-9.0309, -29.0309}, []float64{0, 0}, 1, 0},
		{"independent noise", 2, func(int) []float64 { return []float64{noise.uniform(-0.5, 0.5), noise.uniform(-0.5, 0.5)} },
			[]float64{10 * math.Log10(1.0/12), 10 * math.Log10(1.0/12)}, []float64{0, 0}, 0, 4},
		{"silent right", 2, func(i int) []float64 { return []float64{0.5 * sine(i), 0} },
			[]float64{-9.0309, math.Inf(-1)}, []float64{0, 0}, math.NaN(), 0},
		{"mono", 1, func(i int) []float64 { return []float64{-0.01 + 0.1*sine(i)} },
			[]float64{10 * math.Log10(0.0001+0.005)}, []float64{-0.01}, math.NaN(), 0},
		{"5.1: left and right are the first two", 6, func(i int) []float64 { return []float64{sine(i) / 2, sine(i) / 4, 0, 0, 0, 0} },
			[]float64{-9.0309, -15.0515, math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1)}, make([]float64, 6), 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s []float64
			for i := range n {
				s = append(s, tt.frame(i)...)
			}
			got := meter(t, rate, tt.channels, s)
			rmsTol, dcTol, corrTol := 0.001, 1e-6, 1e-6
			if tt.tol > 0 {
				// Standard errors over n samples of uniform noise: 0.018 dB, 0.0013, 0.0046.
				rmsTol, dcTol, corrTol = tt.tol*0.018, tt.tol*0.0013, tt.tol*0.0046
			}
			for c := range tt.channels {
				if !(got.ChannelRMSDB[c] == tt.rms[c] || near(got.ChannelRMSDB[c], tt.rms[c], rmsTol)) {
					t.Errorf("channel %d RMS %.4f dBFS, want %.4f", c, got.ChannelRMSDB[c], tt.rms[c])
				}
				if !near(got.DCOffset[c], tt.dc[c], dcTol) {
					t.Errorf("channel %d DC offset %.5f, want %.5f", c, got.DCOffset[c], tt.dc[c])
				}
			}
			switch {
			case math.IsNaN(tt.corr):
				if !math.IsNaN(got.Correlation) {
					t.Errorf("correlation %v, want NaN", got.Correlation)
				}
			case !near(got.Correlation, tt.corr, corrTol):
				t.Errorf("correlation %.5f, want %.2f", got.Correlation, tt.corr)
			}
		})
	}
}

// TestStatsStreaming checks that how the samples are split into calls, and asking for a result
// midway, change no statistic.
func TestStatsStreaming(t *testing.T) {
	t.Parallel()
	s := tone(22050, 2, 440, 0.3, segment{0.7, math.Inf(-1)}, segment{1.5, -12}, segment{0.6, -75}, segment{2, 3}, segment{0.3, -90})
	for i := 0; i < len(s); i += 2 {
		s[i] = max(-1, min(1, s[i])) // clipped left
		s[i+1] = -0.5 * s[i]         // the right channel inverted and quieter
	}
	want := meter(t, 22050, 2, s)
	for _, size := range []int{1, 3, 1024, 4410, len(s)} {
		m, _ := NewMeter(22050, 2)
		for i := 0; i < len(s); i += size {
			m.Process(s[i:min(i+size, len(s))])
			if i%(7*size) == 0 {
				m.Result()
			}
		}
		got := m.Result()
		same := got.LeadingSilence == want.LeadingSilence && got.TrailingSilence == want.TrailingSilence &&
			got.LongestSilence == want.LongestSilence && got.ClippingRuns == want.ClippingRuns &&
			got.ClippedSamples == want.ClippedSamples && sameLevel(got.NoiseFloorDB, want.NoiseFloorDB) &&
			near(got.Correlation, want.Correlation, 1e-9)
		for c := range 2 {
			same = same && sameLevel(got.ChannelRMSDB[c], want.ChannelRMSDB[c]) && near(got.DCOffset[c], want.DCOffset[c], 1e-12)
		}
		if !same {
			t.Errorf("blocks of %d: %+v, want %+v", size, got.SignalStats, want.SignalStats)
		}
	}
	if want.ClippingRuns == 0 || want.LongestSilence != seconds(0.6) || want.LeadingSilence != seconds(0.7) ||
		want.TrailingSilence != seconds(0.3) || !near(want.Correlation, -1, 1e-6) {
		t.Errorf("stats %+v: want clipping, a 0.6 s gap, 0.7 s leading, 0.3 s trailing, correlation −1", want.SignalStats)
	}
}

// sameLevel reports whether two levels in dB are equal up to rounding, −Inf included.
func sameLevel(a, b float64) bool { return a == b || near(a, b, 1e-9) }

// TestMeasureStats checks that Measure reports the meter's statistics of a synthesised file.
func TestMeasureStats(t *testing.T) {
	t.Parallel()
	file, err := Synthesize(SynthSpec{DurationSeconds: 12, SampleRate: 16000, Channels: 2, LoudnessLUFS: -18})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Measure(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if m.LeadingSilence > 300*time.Millisecond || m.TrailingSilence > time.Second || m.LongestSilence > time.Second ||
		m.ClippingRuns != 0 || !near(m.Correlation, 1, 1e-9) || len(m.ChannelRMSDB) != 2 || m.ChannelRMSDB[0] != m.ChannelRMSDB[1] ||
		!(m.NoiseFloorDB < m.ChannelRMSDB[0]) || math.Abs(m.DCOffset[0]) > 1e-3 {
		t.Errorf("synthesised speech: %+v", m.SignalStats)
	}
	t.Logf("speech at −18 LUFS: %+v", m.SignalStats)
}

// FuzzMeterStats feeds arbitrary samples (NaN, infinities and huge values included) to a meter
// in arbitrary blocks and checks that the statistics stay consistent.
func FuzzMeterStats(f *testing.F) {
	seed := func(channels, block byte, samples ...float64) []byte {
		b := []byte{channels, block}
		for _, v := range samples {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		return b
	}
	f.Add(seed(1, 3, 0, 1, 1, 1, 0.5, -1, -1, -1, 0))
	f.Add(seed(2, 7, 0.5, -0.5, 0.25, -0.25, math.NaN(), math.Inf(1), 1e300, -1e300))
	f.Add(seed(6, 1, tone(8000, 6, 440, 0, segment{0.02, -10})...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		channels := 1 + int(data[0])%MaxChannels
		block := 1 + int(data[1])
		var s []float64
		for b := data[2:]; len(b) >= 8; b = b[8:] {
			s = append(s, math.Float64frombits(binary.LittleEndian.Uint64(b)))
		}
		m, err := NewMeter(8000, channels)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(s); i += block {
			m.Process(s[i:min(i+block, len(s))])
		}
		r := m.Result()
		d := framesDuration(r.Frames, 8000)
		if r.LeadingSilence > d || r.TrailingSilence > d || r.LongestSilence > d || r.LongestSilence < 0 ||
			(r.LeadingSilence < d && r.LeadingSilence+r.TrailingSilence+r.LongestSilence > d) {
			t.Fatalf("silences %v, %v, %v in %v", r.LeadingSilence, r.TrailingSilence, r.LongestSilence, d)
		}
		if r.ClippedSamples < MinClipRun*r.ClippingRuns || r.ClippedSamples > r.Frames*int64(channels) {
			t.Fatalf("%d clipping runs of %d samples in %d frames", r.ClippingRuns, r.ClippedSamples, r.Frames)
		}
		if math.IsNaN(r.NoiseFloorDB) || len(r.ChannelRMSDB) != channels || len(r.DCOffset) != channels {
			t.Fatalf("stats %+v", r.SignalStats)
		}
		for c := range channels {
			if math.IsNaN(r.ChannelRMSDB[c]) || math.IsInf(r.ChannelRMSDB[c], 1) || math.IsNaN(r.DCOffset[c]) || math.Abs(r.DCOffset[c]) > maxMagnitude {
				t.Fatalf("channel %d: %+v", c, r.SignalStats)
			}
		}
		if !math.IsNaN(r.Correlation) && (r.Correlation < -1 || r.Correlation > 1 || channels == 1) {
			t.Fatalf("correlation %v with %d channels", r.Correlation, channels)
		}
	})
}
