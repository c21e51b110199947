package aacdec

import (
	"math"
	"math/cmplx"
)

// The numeric kernels of this decoder (in filterbank.go, synth.go) are marked //go:norace: they
// touch only their receiver's and arguments' buffers and tables that are written once before use
// (the transforms' plans are shared read-only once built, their scratch is the Decoder's), so the
// race detector's per-access calls would only slow them without guarding anything. A Decoder is
// used by one goroutine, and every hand-off of its input or output between goroutines happens
// outside these functions, where the detector still sees it.

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
	return &imdct{imdctPlan: p, z: make([]complex128, p.n/4)}
}

// transform writes the n samples of spec (n/2 coefficients) into out, scaled by scale·2/n.
//
//go:norace
func (t *imdct) transform(out, spec []float64, scale float64) {
	m := t.n / 2
	h := m / 2
	// DCT-IV: u[i] = Σ spec[k] cos(π/m (i+½)(k+½)).
	// The FFT takes its input in bit-reversed order: the rotation writes it there.
	z, pre, rev := t.z[:h], t.pre[:h], t.fft.rev[:h]
	spec = spec[:m]
	for k, r := range rev {
		z[r] = complex(spec[2*k], spec[m-1-2*k]) * pre[k]
	}
	t.fft.transformBitReversed(z)
	s := scale * 2 / float64(t.n)
	// The DCT-IV u has u[2j] = Re(z[j]·post[j])·s and u[m−1−2j] = −Im(z[j]·post[j])·s; the
	// IMDCT is u unfolded, odd around m and 2m: out[i] = u[i+h] below h, −u[3h−1−i] up to 3h,
	// −u[i−3h] beyond. So u[n] lands at out[3h−1−n] and out[3h+n] (negated) for n < h, and at
	// out[n−h] and out[3h−1−n] (negated) from h: each half of j writes its four places.
	out = out[:2*m]
	post := t.post[:h]
	for j := range h / 2 {
		c := z[j] * post[j]
		v1, v2 := real(c)*s, -imag(c)*s // u[2j] (below h), u[m−1−2j] (from h)
		out[3*h-1-2*j] = -v1
		out[3*h+2*j] = -v1
		out[h-1-2*j] = v2
		out[h+2*j] = -v2
	}
	for j := h / 2; j < h; j++ {
		c := z[j] * post[j]
		v1, v2 := real(c)*s, -imag(c)*s // u[2j] (from h), u[m−1−2j] (below h)
		out[2*j-h] = v1
		out[3*h-1-2*j] = -v1
		out[h+2*j] = -v2
		out[5*h-1-2*j] = -v2
	}
}

// fft is an in-place radix-2 forward FFT of one size (a power of two, at least 4). The first
// two passes, whose twiddle factors are 1 and −i, run as one pass without multiplications;
// the later passes run two at a time (sizes s and 2s over the same four points), so that each
// point is loaded and stored half as often, with their twiddle factors read in order.
type fft struct {
	n      int
	rev    []int // bit reversal of each index
	passes []fftPass
}

// fftPass is one pass over the data: two radix-2 passes of sizes size and 2·size, or one of
// size size when single is set. For k < size/2, tw1[k] is exp(−2πi k/size) and, for a double
// pass, tw2[k] is exp(−2πi k/(2·size)).
type fftPass struct {
	size     int
	single   bool
	tw1, tw2 []complex128
}

func newFFT(n int) fft {
	if n < 4 || n&(n-1) != 0 {
		panic("aacdec: FFT size must be a power of two, at least 4")
	}
	f := fft{n: n, rev: make([]int, n)}
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
	root := func(k, size int) complex128 {
		return cmplx.Exp(complex(0, -2*math.Pi*float64(k)/float64(size)))
	}
	for size := 8; size <= n; {
		p := fftPass{size: size, single: 2*size > n}
		for k := range size / 2 {
			p.tw1 = append(p.tw1, root(k, size))
			if !p.single {
				p.tw2 = append(p.tw2, root(k, 2*size))
			}
		}
		f.passes = append(f.passes, p)
		if p.single {
			break
		}
		size *= 4
	}
	return f
}

// transformBitReversed transforms z in place, its input in bit-reversed order (z[rev[k]] is
// input k), its output in natural order.
//
//go:norace
func (f *fft) transformBitReversed(z []complex128) {
	z = z[:f.n]
	// Passes of size 2 and 4 together: twiddles 1, then 1 and −i.
	for start := 0; start+4 <= len(z); start += 4 {
		q := (*[4]complex128)(z[start : start+4])
		s0, s1 := q[0]+q[1], q[0]-q[1]
		s2, s3 := q[2]+q[3], q[2]-q[3]
		t := complex(imag(s3), -real(s3)) // s3·(−i)
		q[0], q[2] = s0+s2, s0-s2
		q[1], q[3] = s1+t, s1-t
	}
	for _, p := range f.passes {
		half := p.size / 2
		if p.single {
			w := p.tw1[:half]
			for start := 0; start < f.n; start += p.size {
				lo := z[start : start+half]
				hi := z[start+half : start+p.size]
				hi = hi[:len(lo)]
				w := w[:len(lo)]
				for k, a := range lo {
					b := hi[k] * w[k]
					lo[k], hi[k] = a+b, a-b
				}
			}
			continue
		}
		// Points k, k+s/2, k+s, k+3s/2 of a block of 2s: the pass of size s pairs the first two
		// and the last two (twiddle w1), the pass of size 2s pairs the first and third (w2) and
		// the second and fourth (w2·(−i), the twiddle of k+s/2).
		tw1, tw2 := p.tw1[:half], p.tw2[:half]
		for start := 0; start+2*p.size <= f.n; start += 2 * p.size {
			z0 := z[start : start+half]
			z1 := z[start+half : start+2*half]
			z2 := z[start+2*half : start+3*half]
			z3 := z[start+3*half : start+4*half]
			z1, z2, z3 = z1[:len(z0)], z2[:len(z0)], z3[:len(z0)]
			tw1, tw2 := tw1[:len(z0)], tw2[:len(z0)]
			for k, a := range z0 {
				w1, w2 := tw1[k], tw2[k]
				b := z1[k] * w1
				c, d := z2[k], z3[k]*w1
				a, b = a+b, a-b
				c, d = c+d, c-d
				c *= w2
				d *= w2
				d = complex(imag(d), -real(d)) // d·(−i)
				z0[k], z2[k] = a+c, a-c
				z1[k], z3[k] = b+d, b-d
			}
		}
	}
}
