package audio

import "math"

// The kernels marked //go:norace here touch only their own buffers: see doc.go.

const (
	tpFactor = 4                   // oversampling factor
	tpTaps   = 24                  // taps in each fractional phase
	tpHist   = tpTaps - 1          // past samples an output needs
	tpBeta   = 7.0                 // Kaiser window shape
	tpLen    = tpFactor*tpTaps + 1 // prototype length: 97, centred on tap 48
	tpCentre = (tpLen - 1) / 2     // 48, a multiple of tpFactor so phase 0 is the identity
	tpPhases = tpFactor - 1        // fractional phases 1/4, 2/4, 3/4
)

// tpFilter is the polyphase interpolator. The output of fractional phase k/4 (k = 1, 2, 3) at
// input position m is the sum over i of h_k[i]·x[m−i], i = 0..23, where h_k[i] is tap 4i+k of the
// prototype. The prototype is symmetric about tap 48, so h_3 is h_1 reversed and h_2 is symmetric;
// scan folds the window accordingly and needs 36 multiplications for the three phases.
type tpFilter struct {
	even [tpTaps / 2]float64 // h_1[j] + h_1[23−j]
	odd  [tpTaps / 2]float64 // h_1[j] − h_1[23−j]
	mid  [tpTaps / 2]float64 // h_2[j] (= h_2[23−j])
	l1   float64             // largest sum of |taps| of a phase: |output| <= l1 * max|input|
	// |output| <= centre·max(|w11|, |w12|) + rest·max|window|: the two central taps of each
	// phase (h_k[11], h_k[12], on window samples w12 and w11) carry about half of l1, so this
	// bound, cheap per output, skips most outputs of a chunk that the chunk's bound lets in.
	centre, rest float64
}

// tpBoundMargin widens the per-output bound so that the rounding of the taps' sums, about
// 1e-16 of them, can never make it skip an output that rounds above the peak.
const tpBoundMargin = 1 + 1e-9

// newTPFilter designs a Kaiser-windowed sinc low-pass at the original Nyquist frequency and splits
// it into phases, each normalised to unity gain at DC.
func newTPFilter() *tpFilter {
	var h [tpFactor][tpTaps]float64
	i0b := besselI0(tpBeta)
	f := &tpFilter{}
	for k := 1; k < tpFactor; k++ {
		var sum, l1 float64
		for i := range tpTaps {
			n := tpFactor*i + k
			r := float64(n-tpCentre) / float64(tpCentre)
			h[k][i] = sinc(float64(n-tpCentre)/tpFactor) * besselI0(tpBeta*math.Sqrt(1-r*r)) / i0b
			sum += h[k][i]
		}
		for i := range tpTaps {
			h[k][i] /= sum
			l1 += math.Abs(h[k][i])
		}
		f.l1 = math.Max(f.l1, l1)
		centre := math.Abs(h[k][11]) + math.Abs(h[k][12])
		f.centre = math.Max(f.centre, centre*tpBoundMargin)
		f.rest = math.Max(f.rest, (l1-centre)*tpBoundMargin)
	}
	for j := range tpTaps / 2 {
		f.even[j] = h[1][tpHist-j] + h[1][j]
		f.odd[j] = h[1][tpHist-j] - h[1][j]
		f.mid[j] = h[2][j]
	}
	return f
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// besselI0 is the modified Bessel function of the first kind, order 0 (power series).
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 50; k++ {
		term *= (x / (2 * float64(k))) * (x / (2 * float64(k)))
		sum += term
		if term < sum*1e-17 {
			break
		}
	}
	return sum
}

// truePeakFilter is the interpolator every meter shares; it is never modified.
var truePeakFilter = newTPFilter()

// tpChunk is how many outputs scan examines under one skip bound.
const tpChunk = 64

// scan returns the largest magnitude among the samples buf[start:] and the interpolated values
// that end at them (each output at m uses buf[m-23..m]); start must be at least tpHist. Chunks
// whose bound l1 * max|input| cannot exceed peak are skipped, so the result is
// max(peak, exact maximum). Samples must be finite.
//
//go:norace
//go:nocheckptr
func (f *tpFilter) scan(buf []float64, start int, peak float64) float64 {
	// Coefficients and each chunk's window are copied to the stack: loads from there are cheap
	// and are not instrumented by the race detector.
	e, o, c := f.even, f.odd, f.mid
	var loc [tpHist + tpChunk]float64
	for c0 := start; c0 < len(buf); c0 += tpChunk {
		c1 := min(c0+tpChunk, len(buf))
		var mb uint64 // the window's largest magnitude, as in deinterleave
		n := 0
		for _, v := range buf[c0-tpHist : c1] {
			loc[n] = v
			n++
			mb = max(mb, math.Float64bits(v)&^signBit)
		}
		m := math.Float64frombits(mb)
		if m*f.l1 <= peak {
			continue
		}
		restBound := f.rest * m
		for i := tpHist; i < n; i++ {
			if v := abs(loc[i]); v > peak {
				peak = v
			}
			j := i - tpHist
			if f.centre*max(abs(loc[j+11]), abs(loc[j+12]))+restBound <= peak {
				continue
			}
			// With a_j = x[m−j] = w[23−j] and b_j = w[j]: phase 1 is Σ h_1[j]·a_j and phase 3
			// is Σ h_1[j]·b_j. Their sum s and difference d fold into 12 taps each, and
			// max(|phase 1|, |phase 3|) = (|s| + |d|) / 2.
			w0, w1, w2, w3, w4, w5 := loc[j], loc[j+1], loc[j+2], loc[j+3], loc[j+4], loc[j+5]
			w6, w7, w8, w9, w10, w11 := loc[j+6], loc[j+7], loc[j+8], loc[j+9], loc[j+10], loc[j+11]
			w12, w13, w14, w15, w16, w17 := loc[j+12], loc[j+13], loc[j+14], loc[j+15], loc[j+16], loc[j+17]
			w18, w19, w20, w21, w22, w23 := loc[j+18], loc[j+19], loc[j+20], loc[j+21], loc[j+22], loc[j+23]
			p0, q0 := w0+w23, w0-w23
			p1, q1 := w1+w22, w1-w22
			p2, q2 := w2+w21, w2-w21
			p3, q3 := w3+w20, w3-w20
			p4, q4 := w4+w19, w4-w19
			p5, q5 := w5+w18, w5-w18
			p6, q6 := w6+w17, w6-w17
			p7, q7 := w7+w16, w7-w16
			p8, q8 := w8+w15, w8-w15
			p9, q9 := w9+w14, w9-w14
			p10, q10 := w10+w13, w10-w13
			p11, q11 := w11+w12, w11-w12
			s0 := e[0]*p0 + e[2]*p2 + e[4]*p4 + e[6]*p6 + e[8]*p8 + e[10]*p10
			s1 := e[1]*p1 + e[3]*p3 + e[5]*p5 + e[7]*p7 + e[9]*p9 + e[11]*p11
			d0 := o[0]*q0 + o[2]*q2 + o[4]*q4 + o[6]*q6 + o[8]*q8 + o[10]*q10
			d1 := o[1]*q1 + o[3]*q3 + o[5]*q5 + o[7]*q7 + o[9]*q9 + o[11]*q11
			m0 := c[0]*p0 + c[2]*p2 + c[4]*p4 + c[6]*p6 + c[8]*p8 + c[10]*p10
			m1 := c[1]*p1 + c[3]*p3 + c[5]*p5 + c[7]*p7 + c[9]*p9 + c[11]*p11
			if v := (abs(s0+s1) + abs(d0+d1)) / 2; v > peak {
				peak = v
			}
			if v := abs(m0 + m1); v > peak {
				peak = v
			}
		}
	}
	return peak
}

// scanChunks is scan(buf, tpHist, peak) for buf = history + chunk, given maxes[k], the largest
// magnitude of the chunk's samples buf[tpHist+k·tpChunk:][:tpChunk]. Each output block's window
// lies within its own samples, the tpHist before them and so within the history or the block
// before, so the larger of the two maxima bounds it, and most blocks are skipped without
// reading their samples again.
//
//go:norace
//go:nocheckptr
func (f *tpFilter) scanChunks(buf []float64, maxes []float64, peak float64) float64 {
	var prev float64
	for _, v := range buf[:tpHist] {
		prev = max(prev, math.Abs(v))
	}
	for k, cm := range maxes {
		bound := max(prev, cm)
		prev = cm
		if bound*f.l1 <= peak {
			continue
		}
		c0 := tpHist + k*tpChunk
		peak = f.scan(buf[:min(c0+tpChunk, len(buf))], c0, peak)
	}
	return peak
}
