package audio

import "math"

// The kernels marked //go:norace here touch only their own buffers: see doc.go.

// splitmix is a small deterministic pseudo-random generator (SplitMix64).
type splitmix struct{ s uint64 }

func (r *splitmix) next() uint64 {
	r.s += 0x9E3779B97F4A7C15
	z := r.s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// uniform returns a number in [lo, hi).
func (r *splitmix) uniform(lo, hi float64) float64 {
	return lo + (hi-lo)*float64(r.next()>>11)/(1<<53)
}

// intn returns an integer in [0, n).
func (r *splitmix) intn(n int) int { return int(r.next() % uint64(n)) }

// syllable is one voiced syllable of the speech pattern, optionally led by a fricative.
type syllable struct {
	start, dur float64 // seconds
	vowel      int
	amp        float64
	f0a, f0b   float64 // pitch at the start and end, Hz
	fric       float64 // fricative lead-in, seconds (0 for none)
	fricFreq   float64 // Hz
}

// vowels are the first three formants (Hz) of a, e, i, o, u.
var vowels = [5][3]float64{
	{730, 1090, 2440},
	{530, 1840, 2480},
	{270, 2290, 3010},
	{570, 840, 2410},
	{300, 870, 2240},
}

var formantBandwidths = [3]float64{80, 100, 130}

// Layout of the pattern's start, which the synthesiser relies on: a first syllable, then a gap in
// which a transient may be placed, then the second syllable.
const (
	firstSyllableStart = 0.02  // s
	firstSyllableEnd   = 0.20  // s
	transientTime      = 0.235 // s, in the gap: no fade of a file of 0.5 s or more reaches it
	secondSyllable     = 0.27  // s
)

// speechPlan lays out about period seconds of speech: phrases of 3 to 7 syllables of 170 to 300 ms
// (about 4 per second) with short gaps, separated by pauses of 200 to 450 ms.
func speechPlan(period float64) []syllable {
	r := splitmix{s: 0x5EEC4}
	var plan []syllable
	t := firstSyllableStart
	for first := true; t < period-0.6; first = false {
		n := 3 + r.intn(5)
		base := r.uniform(105, 135)
		for i := 0; i < n; i++ {
			s := syllable{
				start: t,
				dur:   r.uniform(0.17, 0.30),
				vowel: r.intn(len(vowels)),
				amp:   r.uniform(0.6, 1),
			}
			if first && i == 0 {
				s.dur = firstSyllableEnd - firstSyllableStart
			}
			if s.start+s.dur > period-0.25 {
				break
			}
			decl := 1 - 0.15*float64(i)/float64(n)
			accent := 1 + 0.2*(s.amp-0.5)
			s.f0a = base * decl * accent
			s.f0b = s.f0a * r.uniform(0.9, 1.05)
			if r.intn(3) == 0 {
				s.fric = r.uniform(0.05, 0.09)
				s.fricFreq = r.uniform(3500, 6000)
			}
			plan = append(plan, s)
			t = s.start + s.dur + r.uniform(0.01, 0.04)
			if first && i == 0 {
				t = secondSyllable
			}
		}
		t += r.uniform(0.2, 0.45)
	}
	return plan
}

// resonator is a two-pole formant resonator with unity gain at 0 Hz (Klatt).
type resonator struct {
	a, b, c float64
	y1, y2  float64
}

func (r *resonator) tune(freq, bw, rate float64) {
	freq = math.Min(freq, 0.45*rate)
	e := math.Exp(-math.Pi * bw / rate)
	r.c = -e * e
	r.b = 2 * e * math.Cos(2*math.Pi*freq/rate)
	r.a = 1 - r.b - r.c
}

func (r *resonator) step(x float64) float64 {
	y := r.a*x + r.b*r.y1 + r.c*r.y2
	r.y2, r.y1 = r.y1, y
	return y
}

// bandpass is a constant-peak-gain band-pass biquad.
type bandpass struct {
	b0, a1, a2     float64
	x1, x2, y1, y2 float64
}

func newBandpass(freq, q, rate float64) bandpass {
	w := 2 * math.Pi * math.Min(freq, 0.42*rate) / rate
	alpha := math.Sin(w) / (2 * q)
	a0 := 1 + alpha
	return bandpass{b0: alpha / a0, a1: -2 * math.Cos(w) / a0, a2: (1 - alpha) / a0}
}

func (f *bandpass) step(x float64) float64 {
	y := f.b0*(x-f.x2) - f.a1*f.y1 - f.a2*f.y2
	f.x2, f.x1 = f.x1, x
	f.y2, f.y1 = f.y1, y
	return y
}

// raisedCosine rises from 0 to 1 as x goes from 0 to 1.
func raisedCosine(x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	return 0.5 - 0.5*math.Cos(math.Pi*x)
}

// renderSpeech renders the first n samples of the plan at rate as mono samples scaled so that the
// largest magnitude is 1: a band-limited sawtooth glottal source through three cascaded formant
// resonators gliding between vowels, with band-pass noise for fricatives.
//
//go:norace
//go:nocheckptr
func renderSpeech(plan []syllable, rate, n int) []float64 {
	out := make([]float64, n)
	fs := float64(rate)
	noise := splitmix{s: 0xF41C}
	prev := 0
	const control = 32 // samples between formant updates
	for _, s := range plan {
		start := int(s.start * fs)
		if start >= n {
			break
		}
		// Fricative lead-in.
		if s.fric > 0 {
			bp := newBandpass(s.fricFreq, 1.5, fs)
			m := int(s.fric * fs)
			for i := 0; i < m && start+i < n; i++ {
				t := float64(i) / fs
				env := raisedCosine(t/0.012) * raisedCosine((s.fric-t)/0.025)
				out[start+i] += 0.6 * s.amp * env * bp.step(noise.uniform(-1, 1))
			}
		}
		// Voiced part, starting as the fricative fades and ringing on 30 ms after the envelope.
		v0 := start + int(0.6*s.fric*fs)
		dur := s.dur - 0.6*s.fric
		m := int((dur + 0.03) * fs)
		var res [3]resonator
		var phase float64
		for i := 0; i < m && v0+i < n; i++ {
			t := float64(i) / fs
			if i%control == 0 {
				glide := raisedCosine(t / (0.35 * dur))
				for k := range res {
					f := vowels[prev][k] + (vowels[s.vowel][k]-vowels[prev][k])*glide
					res[k].tune(f, formantBandwidths[k], fs)
				}
			}
			f0 := s.f0a + (s.f0b-s.f0a)*t/dur
			inc := f0 / fs
			phase += inc
			if phase >= 1 {
				phase--
			}
			saw := 2*phase - 1 - polyBLEP(phase, inc)
			env := raisedCosine(t/0.03) * raisedCosine((dur-t)/0.06)
			y := res[2].step(res[1].step(res[0].step(saw * env)))
			out[v0+i] += s.amp * y
		}
		prev = s.vowel
	}
	var peak float64
	for _, v := range out {
		peak = math.Max(peak, math.Abs(v))
	}
	if peak > 0 {
		for i := range out {
			out[i] /= peak
		}
	}
	return out
}

// polyBLEP is the band-limited step correction of a sawtooth at phase p with increment dt.
func polyBLEP(p, dt float64) float64 {
	switch {
	case p < dt:
		p /= dt
		return p + p - p*p - 1
	case p > 1-dt:
		p = (p - 1) / dt
		return p*p + p + p + 1
	}
	return 0
}
