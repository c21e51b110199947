package opusdec

import (
	"math"
	"sync"
)

// The numeric kernels of this decoder (in mdct.go, celt.go) are marked //go:norace: they touch only
// their receiver's and arguments' buffers and tables that are written once before use (the shared
// mode's plans are read-only once built, the scratch is the caller's), so the race detector's
// per-access calls would only slow them without guarding anything. A Decoder is used by one
// goroutine, and every hand-off of its input or output between goroutines happens outside these
// functions, where the detector still sees it.

// fftStage is one radix-p pass of a Stockham FFT over n points at stride s; tw holds the
// twiddles exp(-2πi·j·k/n) for j < n/p and 1 <= k < p.
type fftStage struct {
	p, n, s int
	tw      []complex64
}

// fftPlan is a forward complex FFT of a size 60·2^k (RFC 6716's IMDCT sizes), as radix 4, 2,
// 3 and 5 passes.
type fftPlan struct {
	n      int
	stages []fftStage
}

func newFFTPlan(n int) *fftPlan {
	var radices []int
	m := n
	for m%4 == 0 {
		radices = append(radices, 4)
		m /= 4
	}
	for m%2 == 0 {
		radices = append(radices, 2)
		m /= 2
	}
	for m%3 == 0 {
		radices = append(radices, 3)
		m /= 3
	}
	for m%5 == 0 {
		radices = append(radices, 5)
		m /= 5
	}
	if m != 1 {
		panic("opusdec: FFT size not of the form 2^a·3^b·5^c")
	}
	pl := &fftPlan{n: n}
	cur, s := n, 1
	for _, p := range radices {
		st := fftStage{p: p, n: cur, s: s}
		q := cur / p
		st.tw = make([]complex64, q*(p-1))
		for j := range q {
			for k := 1; k < p; k++ {
				a := -2 * math.Pi * float64(j*k) / float64(cur)
				st.tw[j*(p-1)+k-1] = complex64(complex(math.Cos(a), math.Sin(a)))
			}
		}
		pl.stages = append(pl.stages, st)
		cur, s = q, s*p
	}
	return pl
}

// transform computes the DFT of x in place, using y (same length) as scratch.
//
//go:norace
func (pl *fftPlan) transform(x, y []complex64) {
	x, y = x[:pl.n], y[:pl.n]
	src, dst := x, y
	for i := range pl.stages {
		st := &pl.stages[i]
		switch st.p {
		case 4:
			radix4(st, src, dst)
		case 2:
			radix2(st, src, dst)
		case 3:
			radix3(st, src, dst)
		case 5:
			radix5(st, src, dst)
		}
		src, dst = dst, src
	}
	if &src[0] != &x[0] {
		copy(x, src)
	}
}

// scale multiplies by a real factor: Go's complex64 product would do a full complex one.
func scale(z complex64, f float32) complex64 { return complex(real(z)*f, imag(z)*f) }

//go:norace
func radix2(st *fftStage, x, y []complex64) {
	s, m := st.s, st.n/2
	for q := range s { // j = 0: unit twiddles
		a0 := x[q]
		a1 := x[q+s*m]
		y[q] = a0 + a1
		y[q+s] = a0 - a1
	}
	for j := 1; j < m; j++ {
		w := st.tw[j]
		for q := range s {
			a0 := x[q+s*j]
			a1 := x[q+s*(j+m)]
			y[q+s*(2*j)] = a0 + a1
			y[q+s*(2*j+1)] = (a0 - a1) * w
		}
	}
}

//go:norace
func radix4(st *fftStage, x, y []complex64) {
	s, m := st.s, st.n/4
	for q := range s { // j = 0: unit twiddles
		a0 := x[q]
		a1 := x[q+s*m]
		a2 := x[q+s*2*m]
		a3 := x[q+s*3*m]
		t0, t1 := a0+a2, a0-a2
		t2, t3 := a1+a3, a1-a3
		mt3 := complex(imag(t3), -real(t3))
		y[q] = t0 + t2
		y[q+s] = t1 + mt3
		y[q+2*s] = t0 - t2
		y[q+3*s] = t1 - mt3
	}
	for j := 1; j < m; j++ {
		w1, w2, w3 := st.tw[3*j], st.tw[3*j+1], st.tw[3*j+2]
		for q := range s {
			a0 := x[q+s*j]
			a1 := x[q+s*(j+m)]
			a2 := x[q+s*(j+2*m)]
			a3 := x[q+s*(j+3*m)]
			t0, t1 := a0+a2, a0-a2
			t2, t3 := a1+a3, a1-a3
			// -i·t3
			mt3 := complex(imag(t3), -real(t3))
			o := q + s*4*j
			y[o] = t0 + t2
			y[o+s] = (t1 + mt3) * w1
			y[o+2*s] = (t0 - t2) * w2
			y[o+3*s] = (t1 - mt3) * w3
		}
	}
}

const (
	sin60  = 0.86602540378443864676
	cos72  = 0.30901699437494742410
	cos144 = -0.80901699437494742410
	sin72  = 0.95105651629515357212
	sin144 = 0.58778525229247312917
)

//go:norace
func radix3(st *fftStage, x, y []complex64) {
	s, m := st.s, st.n/3
	for q := range s { // j = 0: unit twiddles
		a0 := x[q]
		a1 := x[q+s*m]
		a2 := x[q+s*2*m]
		t := a1 + a2
		d := a1 - a2
		m1 := a0 - scale(t, 0.5)
		m2 := complex(sin60*imag(d), -sin60*real(d))
		y[q] = a0 + t
		y[q+s] = m1 + m2
		y[q+2*s] = m1 - m2
	}
	for j := 1; j < m; j++ {
		w1, w2 := st.tw[2*j], st.tw[2*j+1]
		for q := range s {
			a0 := x[q+s*j]
			a1 := x[q+s*(j+m)]
			a2 := x[q+s*(j+2*m)]
			t := a1 + a2
			d := a1 - a2
			m1 := a0 - scale(t, 0.5)
			// -i·sin60·d
			m2 := complex(sin60*imag(d), -sin60*real(d))
			o := q + s*3*j
			y[o] = a0 + t
			y[o+s] = (m1 + m2) * w1
			y[o+2*s] = (m1 - m2) * w2
		}
	}
}

//go:norace
func radix5(st *fftStage, x, y []complex64) {
	s, m := st.s, st.n/5
	for q := range s { // j = 0: unit twiddles
		a0 := x[q]
		a1 := x[q+s*m]
		a2 := x[q+s*2*m]
		a3 := x[q+s*3*m]
		a4 := x[q+s*4*m]
		t1, t2 := a1+a4, a2+a3
		t3, t4 := a1-a4, a2-a3
		m1 := a0 + scale(t1, cos72) + scale(t2, cos144)
		m2 := a0 + scale(t1, cos144) + scale(t2, cos72)
		u1 := scale(t3, sin72) + scale(t4, sin144)
		u2 := scale(t3, sin144) - scale(t4, sin72)
		n1 := complex(imag(u1), -real(u1))
		n2 := complex(imag(u2), -real(u2))
		y[q] = a0 + t1 + t2
		y[q+s] = m1 + n1
		y[q+2*s] = m2 + n2
		y[q+3*s] = m2 - n2
		y[q+4*s] = m1 - n1
	}
	for j := 1; j < m; j++ {
		tw := st.tw[4*j : 4*j+4]
		for q := range s {
			a0 := x[q+s*j]
			a1 := x[q+s*(j+m)]
			a2 := x[q+s*(j+2*m)]
			a3 := x[q+s*(j+3*m)]
			a4 := x[q+s*(j+4*m)]
			t1, t2 := a1+a4, a2+a3
			t3, t4 := a1-a4, a2-a3
			m1 := a0 + scale(t1, cos72) + scale(t2, cos144)
			m2 := a0 + scale(t1, cos144) + scale(t2, cos72)
			u1 := scale(t3, sin72) + scale(t4, sin144)
			u2 := scale(t3, sin144) - scale(t4, sin72)
			n1 := complex(imag(u1), -real(u1))
			n2 := complex(imag(u2), -real(u2))
			o := q + s*5*j
			y[o] = a0 + t1 + t2
			y[o+s] = (m1 + n1) * tw[0]
			y[o+2*s] = (m2 + n2) * tw[1]
			y[o+3*s] = (m2 - n2) * tw[2]
			y[o+4*s] = (m1 - n1) * tw[3]
		}
	}
}

// imdct is the inverse MDCT of one size (N = 1920>>shift inputs spread at a stride) computed
// with an N/4-point complex FFT, with the low-overlap window's TDAC folded in as RFC 6716's
// reference decoder does it.
type imdct struct {
	n    int // MDCT size (twice the number of coefficients)
	trig []float32
	fft  *fftPlan
}

// mode holds the derived tables shared by every decoder.
type mode struct {
	window [overlap]float32
	mdct   [maxLM + 1]imdct // by shift
	pvqU   []uint32         // U(n,k) for n, k <= pvqMax
}

const pvqMax = 178

var sharedMode = sync.OnceValue(newMode)

func newMode() *mode {
	m := &mode{}
	for i := range overlap {
		s := math.Sin(0.5 * math.Pi * (float64(i) + 0.5) / overlap)
		m.window[i] = float32(math.Sin(0.5 * math.Pi * s * s))
	}
	n := 2 * shortMdctSize << maxLM
	for shift := 0; shift <= maxLM; shift++ {
		nn := n >> uint(shift)
		md := imdct{n: nn, trig: make([]float32, nn/2), fft: newFFTPlan(nn / 4)}
		for i := range md.trig {
			md.trig[i] = float32(math.Cos(2 * math.Pi * (float64(i) + 0.125) / float64(nn)))
		}
		m.mdct[shift] = md
	}
	// U(n,k): U(0,0)=1, U(n,0)=U(0,k)=0 otherwise, U(n,k)=U(n-1,k)+U(n,k-1)+U(n-1,k-1). Values
	// past 32 bits wrap, but the decoder only uses those that fit (the pulse cache keeps V(N,K)
	// under 2^32), and modular sums of exact values are exact.
	u := make([]uint32, (pvqMax+1)*(pvqMax+1))
	u[0] = 1
	for i := 1; i <= pvqMax; i++ {
		for k := 1; k <= pvqMax; k++ {
			u[i*(pvqMax+1)+k] = u[(i-1)*(pvqMax+1)+k] + u[i*(pvqMax+1)+k-1] + u[(i-1)*(pvqMax+1)+k-1]
		}
	}
	m.pvqU = u
	return m
}

// backward computes the IMDCT of the coefficients in[0], in[stride], ... into out, where
// out[:overlap/2] holds the previous block's raw tail on entry and out[:n/2+overlap/2] the
// windowed, overlap-added result (its last overlap/2 samples raw) on return. buf and scratch
// are FFT work space of n/4 points.
//
//go:norace
func (md *imdct) backward(in []float32, stride int, out []float32, window *[overlap]float32, buf, scratch []complex64) {
	n2 := md.n >> 1
	n4 := md.n >> 2
	t := md.trig
	z := buf[:n4]
	// Pre-rotation, real and imaginary swapped so that a forward FFT does the inverse.
	ta, tb := t[:n4], t[n4:n2]
	tb = tb[:len(ta)]
	if stride == 1 {
		a := in[:n2]
		for i := range ta {
			x1 := a[2*i]
			x2 := a[n2-1-2*i]
			yr := x2*ta[i] + x1*tb[i]
			yi := x1*ta[i] - x2*tb[i]
			z[i] = complex(yi, yr)
		}
	} else {
		for i := range ta {
			x1 := in[2*i*stride]
			x2 := in[(n2-1-2*i)*stride]
			yr := x2*ta[i] + x1*tb[i]
			yi := x1*ta[i] - x2*tb[i]
			z[i] = complex(yi, yr)
		}
	}
	md.fft.transform(z, scratch)
	// Post-rotation, from both ends at once.
	y := out[overlap/2 : overlap/2+n2]
	for i := 0; i < (n4+1)>>1; i++ {
		a := z[i]
		b := z[n4-1-i]
		re, im := imag(a), real(a)
		t0, t1 := t[i], t[n4+i]
		yr0 := re*t0 + im*t1
		yi0 := re*t1 - im*t0
		re2, im2 := imag(b), real(b)
		t0, t1 = t[n4-i-1], t[n2-i-1]
		yr1 := re2*t0 + im2*t1
		yi1 := re2*t1 - im2*t0
		y[2*i] = yr0
		y[n2-1-2*i] = yi0
		y[n2-2-2*i] = yr1
		y[2*i+1] = yi1
	}
	// TDAC with the previous block's tail, in place.
	for i := range overlap / 2 {
		x1 := out[overlap-1-i]
		x2 := out[i]
		w1, w2 := window[i], window[overlap-1-i]
		out[i] = w2*x2 - w1*x1
		out[overlap-1-i] = w1*x2 + w2*x1
	}
}
