package vorbisdec

import (
	"math"
	"math/bits"
)

// The numeric kernels of this decoder (in imdct.go, decoder.go, floor.go) are marked //go:norace:
// they touch only their receiver's and arguments' buffers and tables that are written once before
// use (each Decoder has its own transforms), so the race detector's per-access calls would only
// slow them without guarding anything. A Decoder is used by one goroutine, and every hand-off of
// its input or output between goroutines happens outside these functions, where the detector still
// sees it.

// imdct computes the inverse MDCT of one block size through a complex FFT of a quarter of
// the block: the N/2 coefficients are a DCT-IV of size M = N/2, which folds into M/2 complex
// values, and the N outputs unfold from the DCT-IV's M by its symmetries.
type imdct struct {
	n     int       // block size N
	twPre []float32 // cos and sin of -π(k+1/8)/M, interleaved
	// FFT twiddles of the stages after the first two, stage by stage: for butterflies of
	// half size h, the cos and then the sin of -πk/h for k < h.
	twRe, twIm []float32
	bitrev     []uint16
	re, im     []float32
	u          []float32 // DCT-IV output, M values
	log2Quar   uint
}

func newIMDCT(n int) *imdct {
	m := n / 2
	q := n / 4
	t := &imdct{n: n, twPre: make([]float32, 2*q), bitrev: make([]uint16, q),
		re: make([]float32, q), im: make([]float32, q), u: make([]float32, m)}
	for k := range q {
		a := -math.Pi * (float64(k) + 0.125) / float64(m)
		t.twPre[2*k] = float32(math.Cos(a))
		t.twPre[2*k+1] = float32(math.Sin(a))
	}
	for h := 4; h < q; h *= 2 {
		for k := range h {
			a := -math.Pi * float64(k) / float64(h)
			t.twRe = append(t.twRe, float32(math.Cos(a)))
			t.twIm = append(t.twIm, float32(math.Sin(a)))
		}
	}
	t.log2Quar = uint(bits.TrailingZeros(uint(q)))
	for k := range q {
		t.bitrev[k] = uint16(bits.Reverse32(uint32(k)) >> (32 - t.log2Quar))
	}
	return t
}

// dct4 computes u[m] = Σ_k x[k] cos(π/M (m+½)(k+½)) for the M = N/2 coefficients x into t.u.
//
//go:norace
func (t *imdct) dct4(x []float32) {
	m := t.n / 2
	q := t.n / 4
	re, im := t.re, t.im
	// Pre-twiddle, stored in bit-reversed order for the in-place FFT.
	for k := range q {
		a, b := x[2*k], x[m-1-2*k]
		c, s := t.twPre[2*k], t.twPre[2*k+1]
		r := t.bitrev[k]
		re[r] = a*c - b*s
		im[r] = a*s + b*c
	}
	t.fft()
	u := t.u
	for p := range q {
		c, s := t.twPre[2*p], t.twPre[2*p+1]
		a, b := re[p], im[p]
		u[2*p] = a*c - b*s
		u[m-1-2*p] = -(a*s + b*c)
	}
}

// fft is an in-place radix-2 decimation-in-time FFT of re, im (already in bit-reversed order).
//
//go:norace
func (t *imdct) fft() {
	q := t.n / 4
	re, im := t.re[:q], t.im[:q]
	// First two stages together: radix 4 butterflies without multiplications.
	if q >= 4 {
		for i := 0; i+3 < q; i += 4 {
			r0, i0 := re[i]+re[i+1], im[i]+im[i+1]
			r1, i1 := re[i]-re[i+1], im[i]-im[i+1]
			r2, i2 := re[i+2]+re[i+3], im[i+2]+im[i+3]
			r3, i3 := re[i+2]-re[i+3], im[i+2]-im[i+3]
			// twiddle -i for the odd pair: (r3, i3) * -i = (i3, -r3)
			re[i], im[i] = r0+r2, i0+i2
			re[i+2], im[i+2] = r0-r2, i0-i2
			re[i+1], im[i+1] = r1+i3, i1-r3
			re[i+3], im[i+3] = r1-i3, i1+r3
		}
	} else if q == 2 {
		re[0], re[1] = re[0]+re[1], re[0]-re[1]
		im[0], im[1] = im[0]+im[1], im[0]-im[1]
		return
	}
	// The later stages two at a time (radix 2²): butterflies of half size h and then 2h over
	// each block of 4h values, with one pass over memory. The twiddles of the stage of half
	// size h start at h-4 in twRe and twIm.
	half := 4
	for ; 2*half < q; half *= 4 {
		w1r, w1i := t.twRe[half-4:2*half-4], t.twIm[half-4:2*half-4]
		w2r, w2i := t.twRe[2*half-4:3*half-4], t.twIm[2*half-4:3*half-4]
		for start := 0; start < q; start += 4 * half {
			ar, ai := re[start:start+half], im[start:start+half]
			br, bi := re[start+half:start+2*half], im[start+half:start+2*half]
			cr, ci := re[start+2*half:start+3*half], im[start+2*half:start+3*half]
			dr, di := re[start+3*half:start+4*half], im[start+3*half:start+4*half]
			ai, br, bi, cr, ci, dr, di = ai[:len(ar)], br[:len(ar)], bi[:len(ar)], cr[:len(ar)], ci[:len(ar)], dr[:len(ar)], di[:len(ar)]
			w1r, w1i, w2r, w2i := w1r[:len(ar)], w1i[:len(ar)], w2r[:len(ar)], w2i[:len(ar)]
			for k := range ar {
				c1, s1 := w1r[k], w1i[k]
				// First stage: (a, b) and (c, d) with the twiddle of half size h.
				xr := br[k]*c1 - bi[k]*s1
				xi := br[k]*s1 + bi[k]*c1
				a1r, a1i := ar[k]+xr, ai[k]+xi
				b1r, b1i := ar[k]-xr, ai[k]-xi
				xr = dr[k]*c1 - di[k]*s1
				xi = dr[k]*s1 + di[k]*c1
				c1r, c1i := cr[k]+xr, ci[k]+xi
				d1r, d1i := cr[k]-xr, ci[k]-xi
				// Second stage: (a1, c1) with the twiddle w of half size 2h at k, and (b1, d1)
				// with the one at k+h, which is -i·w.
				c2, s2 := w2r[k], w2i[k]
				yr := c1r*c2 - c1i*s2
				yi := c1r*s2 + c1i*c2
				ar[k], ai[k] = a1r+yr, a1i+yi
				cr[k], ci[k] = a1r-yr, a1i-yi
				zr := d1r*c2 - d1i*s2
				zi := d1r*s2 + d1i*c2
				// -i·(zr + i·zi) = zi - i·zr
				br[k], bi[k] = b1r+zi, b1i-zr
				dr[k], di[k] = b1r-zi, b1i+zr
			}
		}
	}
	// One radix-2 stage is left when the number of stages after the first two is odd.
	if half < q {
		wr, wi := t.twRe[half-4:2*half-4], t.twIm[half-4:2*half-4]
		for start := 0; start < q; start += 2 * half {
			lr, li := re[start:start+half], im[start:start+half]
			hr, hi := re[start+half:start+2*half], im[start+half:start+2*half]
			hr, hi, li = hr[:len(lr)], hi[:len(lr)], li[:len(lr)]
			wr, wi := wr[:len(lr)], wi[:len(lr)]
			for k, lv := range lr {
				c, s := wr[k], wi[k]
				xr := hr[k]*c - hi[k]*s
				xi := hr[k]*s + hi[k]*c
				hr[k], hi[k] = lv-xr, li[k]-xi
				lr[k], li[k] = lv+xr, li[k]+xi
			}
		}
	}
}
