package aacdec

import (
	"math"
	"math/cmplx"
)

// imdct computes the inverse MDCT of ISO/IEC 14496-3 4.6.11.3.1 for one transform length n
// (2048 or 256): n/2 coefficients in, n samples out,
//
//	x[i] = 2/n · Σ spec[k] · cos(2π/n · (i + n0) · (k + ½)),  n0 = (n/2 + 1)/2,
//
// through a DCT-IV of n/2 points computed with an FFT of n/8 complex points.
// TestIMDCTMatchesDefinition holds it to the sum.
type imdct struct {
	*imdctPlan
	z []complex128
	u []float64 // the DCT-IV
}

// imdctPlan is the part of an imdct that decoders share.
type imdctPlan struct {
	n    int
	pre  []complex128 // rotations of the DCT-IV before and after the FFT, per complex point
	post []complex128
	fft  fft
}

func newIMDCTPlan(n int) *imdctPlan {
	m := n / 2 // coefficients
	p := &imdctPlan{n: n, pre: make([]complex128, m/2), post: make([]complex128, m/2), fft: newFFT(m / 2)}
	for k := range m / 2 {
		p.pre[k] = cmplx.Exp(complex(0, -math.Pi*(float64(k)+0.25)/float64(m)))
		p.post[k] = cmplx.Exp(complex(0, -math.Pi*float64(k)/float64(m)))
	}
	return p
}

func newIMDCT(p *imdctPlan) *imdct {
	return &imdct{imdctPlan: p, z: make([]complex128, p.n/4), u: make([]float64, p.n/2)}
}

// transform writes the n samples of spec (n/2 coefficients) into out, scaled by scale·2/n.
func (t *imdct) transform(out, spec []float64, scale float64) {
	m := t.n / 2
	h := m / 2
	// DCT-IV: u[i] = Σ spec[k] cos(π/m (i+½)(k+½)).
	for k := range h {
		t.z[k] = complex(spec[2*k], spec[m-1-2*k]) * t.pre[k]
	}
	t.fft.transform(t.z)
	s := scale * 2 / float64(t.n)
	for j := range h {
		c := t.z[j] * t.post[j]
		t.u[2*j] = real(c) * s
		t.u[m-1-2*j] = -imag(c) * s
	}
	// The IMDCT is the DCT-IV unfolded: x[i] = u'[i + m/2] with u' odd around m and 2m.
	u := t.u
	for i := range h {
		out[i] = u[i+h]
	}
	for i := h; i < 3*h; i++ {
		out[i] = -u[3*h-1-i]
	}
	for i := 3 * h; i < 2*m; i++ {
		out[i] = -u[i-3*h]
	}
}

// fft is an in-place radix-2 forward FFT of one size (a power of two).
type fft struct {
	n     int
	rev   []int
	roots []complex128 // exp(-2πi k/n), k < n/2
}

func newFFT(n int) fft {
	f := fft{n: n, rev: make([]int, n), roots: make([]complex128, n/2)}
	bits := 0
	for 1<<bits < n {
		bits++
	}
	for i := range n {
		r := 0
		for b := range bits {
			if i&(1<<b) != 0 {
				r |= 1 << (bits - 1 - b)
			}
		}
		f.rev[i] = r
	}
	for k := range n / 2 {
		f.roots[k] = cmplx.Exp(complex(0, -2*math.Pi*float64(k)/float64(n)))
	}
	return f
}

func (f *fft) transform(z []complex128) {
	for i, r := range f.rev {
		if i < r {
			z[i], z[r] = z[r], z[i]
		}
	}
	for size := 2; size <= f.n; size <<= 1 {
		half := size / 2
		step := f.n / size
		for start := 0; start < f.n; start += size {
			for k := range half {
				w := f.roots[k*step]
				a, b := z[start+k], z[start+k+half]*w
				z[start+k], z[start+k+half] = a+b, a-b
			}
		}
	}
}
