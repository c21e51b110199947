package audio

import "math"

// The kernels marked //go:norace here touch only their own buffers: see doc.go.

// biquad holds normalised second-order section coefficients (a0 = 1).
type biquad struct {
	b0, b1, b2, a1, a2 float64
}

// K-weighting analog prototypes (ITU-R BS.1770-4), as derived by libebur128 from the 48 kHz
// coefficients printed in the recommendation.
const (
	shelfF0   = 1681.974450955533
	shelfGain = 3.999843853973347 // dB
	shelfQ    = 0.7071752369554196
	shelfVb   = 0.4996667741545416 // exponent giving the mid-band gain
	rlbF0     = 38.13547087602444
	rlbQ      = 0.5003270373238773
)

// kWeighting designs the BS.1770 pre-filter (stage 1, high shelf) and RLB high-pass (stage 2) for
// sampleRate with the bilinear transform, pre-warped at each corner frequency.
func kWeighting(sampleRate float64) (shelf, highpass biquad) {
	k := math.Tan(math.Pi * shelfF0 / sampleRate)
	vh := math.Pow(10, shelfGain/20)
	vb := math.Pow(vh, shelfVb)
	a0 := 1 + k/shelfQ + k*k
	shelf = biquad{
		b0: (vh + vb*k/shelfQ + k*k) / a0,
		b1: 2 * (k*k - vh) / a0,
		b2: (vh - vb*k/shelfQ + k*k) / a0,
		a1: 2 * (k*k - 1) / a0,
		a2: (1 - k/shelfQ + k*k) / a0,
	}
	k = math.Tan(math.Pi * rlbF0 / sampleRate)
	a0 = 1 + k/rlbQ + k*k
	highpass = biquad{
		b0: 1, b1: -2, b2: 1,
		a1: 2 * (k*k - 1) / a0,
		a2: (1 - k/rlbQ + k*k) / a0,
	}
	return shelf, highpass
}

// kFilter is the state of one channel's K-weighting cascade (transposed direct form II).
type kFilter struct {
	s, h   biquad
	s1, s2 float64
	h1, h2 float64
}

func newKFilter(sampleRate int) kFilter {
	s, h := kWeighting(float64(sampleRate))
	return kFilter{s: s, h: h}
}

// denormalGuard is a tiny constant added to recursive filters' inputs so that their states never
// decay into subnormal numbers (slow to compute) during digital silence. The RLB high-pass
// removes it; it changes loudness by about 10^−40 of full scale.
const denormalGuard = 1e-20

// energy filters x and returns the sum of the squared K-weighted samples.
//
//go:norace
//go:nocheckptr
func (f *kFilter) energy(x []float64) float64 {
	s, h := f.s, f.h
	s1, s2, h1, h2 := f.s1, f.s2, f.h1, f.h2
	var sum float64
	for _, v := range x {
		v += denormalGuard
		y := s.b0*v + s1
		s1 = s.b1*v - s.a1*y + s2
		s2 = s.b2*v - s.a2*y
		// The high-pass numerator is 1, −2, 1 (see kWeighting): its products are exact, so
		// writing them out gives the same bits with three multiplications fewer.
		z := y + h1
		h1 = -2*y - h.a1*z + h2
		h2 = y - h.a2*z
		sum += z * z
	}
	f.s1, f.s2, f.h1, f.h2 = flushDenormal(s1), flushDenormal(s2), flushDenormal(h1), flushDenormal(h2)
	return sum
}

// energy2 is energy for two channels at once, a with x and b with y (of equal length): the two
// cascades' dependency chains interleave, so the pair costs little more than one. Each sum is
// accumulated in the same order as energy's, so the results are the same.
//
//go:norace
//go:nocheckptr
func energy2(a, b *kFilter, x, y []float64) (float64, float64) {
	as, ah, bs, bh := a.s, a.h, b.s, b.h
	as1, as2, ah1, ah2 := a.s1, a.s2, a.h1, a.h2
	bs1, bs2, bh1, bh2 := b.s1, b.s2, b.h1, b.h2
	var sa, sb float64
	y = y[:len(x)]
	for i, v := range x {
		v += denormalGuard
		w := y[i] + denormalGuard
		ya := as.b0*v + as1
		yb := bs.b0*w + bs1
		as1 = as.b1*v - as.a1*ya + as2
		bs1 = bs.b1*w - bs.a1*yb + bs2
		as2 = as.b2*v - as.a2*ya
		bs2 = bs.b2*w - bs.a2*yb
		za := ya + ah1
		zb := yb + bh1
		ah1 = -2*ya - ah.a1*za + ah2
		bh1 = -2*yb - bh.a1*zb + bh2
		ah2 = ya - ah.a2*za
		bh2 = yb - bh.a2*zb
		sa += za * za
		sb += zb * zb
	}
	a.s1, a.s2, a.h1, a.h2 = flushDenormal(as1), flushDenormal(as2), flushDenormal(ah1), flushDenormal(ah2)
	b.s1, b.s2, b.h1, b.h2 = flushDenormal(bs1), flushDenormal(bs2), flushDenormal(bh1), flushDenormal(bh2)
	return sa, sb
}

// flushDenormal zeroes states so small that they only cost time as subnormal numbers.
func flushDenormal(v float64) float64 {
	if math.Abs(v) < 1e-30 {
		return 0
	}
	return v
}
