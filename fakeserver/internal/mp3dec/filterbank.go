package mp3dec

import "math"

// The hybrid filter bank of layer III (ISO/IEC 11172-3 §2.4.3.4): alias reduction, IMDCT with
// overlap-add, frequency inversion and the polyphase synthesis of §2.4.3.2. The transforms are
// computed with fast factorisations whose results equal the standard's sums up to rounding:
//
//   - the 36-point IMDCT of a long block is a DCT-IV of 18 values, computed as a DCT-II of the
//     values divided by 2·cos(π(2n+1)/72) followed by adjacent sums, with the DCT-II split into
//     two 9-point halves;
//   - the 64 values V of each synthesis step are a 32-point DCT-II of the subband samples,
//     rearranged by the cosine's symmetries, and the DCT-II uses Lee's recursive split.

// The numeric kernels of the decoder (here and in bitstream.go, huffman.go, encoding.go and
// stereo.go) are marked //go:norace, and //go:nocheckptr where math's unsafe bit conversions are
// inlined into them: they touch only their receiver's and arguments' buffers and tables written
// once by init, so the race detector's per-access calls would only slow them without guarding
// anything. A Decoder is used by one goroutine, and every hand-off of its input or output
// between goroutines happens outside these functions, where the detector still sees it.

// filterBank is one channel's state between granules.
type filterBank struct {
	overlap [32][18]float64 // second halves of the last granule's IMDCT outputs
	// ring holds the last 16 synthesis vectors V by their 32 independent values X (V is X
	// unfolded, see synthesize), each stored twice (at steps pos and pos+16), so that the
	// vector of age a is at step pos+a without wrapping.
	ring [32 * 32]float64
	pos  int
	sub  [18][32]float64 // this granule's subband samples by time slot
}

// Constant tables of the filter bank, computed once.
var (
	aliasCS, aliasCA [8]float64             // alias-reduction butterflies (Table B.9)
	imdctWindows     [4][36]float64         // the windows of block types 0 to 3
	shortWindow      [12]float64            // the window of each short block
	dct4Pre          [18]float64            // 1 / (2·cos(π(2n+1)/72)): DCT-IV(18) as a DCT-II
	dct9             [9][9]float64          // the 9-point DCT-II matrix
	dct18Odd         [9]float64             // 1 / (2·cos(π(2n+1)/36)): the odd half of DCT-II(18)
	dct4x6           [6][6]float64          // the 6-point DCT-IV of a short block's IMDCT
	leeFactors       [5][16]float64         // 1 / (2·cos(π(2n+1)/(2N))) for N = 32, 16, 8, 4, 2
	windowByPair     = windowCoefficients() // D by pair of outputs, signs of V folded in
)

// windowCoefficients arranges the synthesis window D for synthesize. Output j of a step weighs
// the vectors of even age 2m at value j by D[64m+j] and those of odd age 2m+1 at value 32+j by
// D[64m+32+j] (the standard's U from V, with m = 0..7). In terms of X, for 0 < j < 16, value
// j of V is X[16+j] and value 32+j is −X[16−j]; for output 32−j, value 32−j is −X[16+j] and
// value 64−j is −X[16−j]. So outputs j and 32−j read the same 16 values, and row j holds,
// for each m, the four coefficients of a = X_2m[16+j] and b = X_2m+1[16−j]:
// out[j] += a·D[64m+j] − b·D[64m+32+j], out[32−j] += −a·D[64m+32−j] − b·D[64m+64−j].
// Row 0 holds output 0's coefficients (of X[16] at even and odd ages) and, from entry 16,
// output 16's (of −X[0] at odd ages; value 16 of V is 0).
func windowCoefficients() [16][32]float64 {
	d := synthesisWindow()
	var w [16][32]float64
	for m := range 8 {
		w[0][2*m] = d[64*m]        // output 0, even age: V[0] = X[16]
		w[0][2*m+1] = -d[64*m+32]  // output 0, odd age: V[32] = −X[16]
		w[0][16+2*m] = -d[64*m+48] // output 16, odd age: V[48] = −X[0]
		for j := 1; j < 16; j++ {
			w[j][4*m] = d[64*m+j]
			w[j][4*m+1] = -d[64*m+32+j]
			w[j][4*m+2] = -d[64*m+32-j]
			w[j][4*m+3] = -d[64*m+64-j]
		}
	}
	return w
}

func init() {
	coef := [8]float64{-0.6, -0.535, -0.33, -0.185, -0.095, -0.041, -0.0142, -0.0037}
	for i, c := range coef {
		sq := math.Sqrt(1 + c*c)
		aliasCS[i] = 1 / sq
		aliasCA[i] = c / sq
	}
	for i := range 36 {
		imdctWindows[0][i] = math.Sin(math.Pi / 36 * (float64(i) + 0.5))
	}
	for i := range 36 {
		switch {
		case i < 18:
			imdctWindows[1][i] = imdctWindows[0][i]
		case i < 24:
			imdctWindows[1][i] = 1
		case i < 30:
			imdctWindows[1][i] = math.Sin(math.Pi / 12 * (float64(i-18) + 0.5))
		}
		switch {
		case i < 6:
		case i < 12:
			imdctWindows[3][i] = math.Sin(math.Pi / 12 * (float64(i-6) + 0.5))
		case i < 18:
			imdctWindows[3][i] = 1
		default:
			imdctWindows[3][i] = imdctWindows[0][i]
		}
	}
	for i := range 12 {
		shortWindow[i] = math.Sin(math.Pi / 12 * (float64(i) + 0.5))
	}
	for n := range 18 {
		dct4Pre[n] = 1 / (2 * math.Cos(math.Pi*float64(2*n+1)/72))
	}
	for k := range 9 {
		for n := range 9 {
			dct9[k][n] = math.Cos(math.Pi * float64((2*n+1)*k) / 18)
		}
		dct18Odd[k] = 1 / (2 * math.Cos(math.Pi*float64(2*k+1)/36))
	}
	for n := range 6 {
		for k := range 6 {
			dct4x6[n][k] = math.Cos(math.Pi / 24 * float64((2*n+1)*(2*k+1)))
		}
	}
	for l, n := 0, 32; n >= 2; l, n = l+1, n/2 {
		for i := range n / 2 {
			leeFactors[l][i] = 1 / (2 * math.Cos(math.Pi*float64(2*i+1)/float64(2*n)))
		}
	}
}

// reset clears the channel's history, as at the start of a stream.
func (f *filterBank) reset() {
	*f = filterBank{}
}

// granule turns one granule's spectrum into 576 samples, written to out[0], out[stride],
// out[2*stride], ... (stride 2 interleaves two channels). It modifies s.xr.
//
//go:norace
func (f *filterBank) granule(s *spectrum, out []float64, stride int) {
	xr := &s.xr
	// Subbands at and above limit are zero after alias reduction (which moves values up to 8
	// lines into the next subband).
	limit := min((s.lines+8+17)/18, 32)
	longBands := 32 // subbands coded as long blocks
	if s.blockType == 2 {
		longBands = 0
		if s.mixed {
			longBands = 2
		}
	}
	for sb := 1; sb < min(longBands, limit); sb++ {
		for i := range 8 {
			lo, hi := 18*sb-1-i, 18*sb+i
			a, b := xr[lo], xr[hi]
			xr[lo] = a*aliasCS[i] - b*aliasCA[i]
			xr[hi] = b*aliasCS[i] + a*aliasCA[i]
		}
	}
	var buf [36]float64
	for sb := range 32 {
		ov := &f.overlap[sb]
		switch {
		case sb >= limit:
			for i := range 18 {
				f.sub[i][sb] = ov[i]
				ov[i] = 0
			}
		case sb < longBands:
			bt := s.blockType
			if s.blockType == 2 {
				bt = 0 // the long subbands of a mixed block use the normal window
			}
			// The IMDCT's 36 outputs are the DCT-IV y unfolded (see imdct36): y[i+9] and
			// −y[26−i] in the first half, −y[8−i] and −y[i−9] in the second; windowed and
			// overlapped here without writing them out.
			var y [18]float64
			dct4x18((*[18]float64)(xr[18*sb:18*sb+18]), &y)
			w := &imdctWindows[bt]
			for i := range 9 {
				f.sub[i][sb] = y[i+9]*w[i] + ov[i]
				f.sub[9+i][sb] = -y[17-i]*w[9+i] + ov[9+i]
				ov[i] = -y[8-i] * w[18+i]
				ov[9+i] = -y[i] * w[27+i]
			}
		default:
			shortIMDCT((*[18]float64)(xr[18*sb:18*sb+18]), &buf)
			for i := range 18 {
				f.sub[i][sb] = buf[i] + ov[i]
				ov[i] = buf[18+i]
			}
		}
		if sb&1 == 1 { // frequency inversion
			for i := 1; i < 18; i += 2 {
				f.sub[i][sb] = -f.sub[i][sb]
			}
		}
	}
	for t := range 18 {
		f.synthesize(&f.sub[t], out[t*32*stride:], stride)
	}
}

// imdct36 is the standard's 36-point IMDCT of 18 values, unwindowed:
// out[i] = Σ in[k]·cos(π/72·(2i+19)·(2k+1)). granule computes the same unfolding inline.
//
//go:norace
func imdct36(in *[18]float64, out *[36]float64) {
	var y [18]float64
	dct4x18(in, &y)
	// out[i] = c(i+9) where c(m) is y[m] for m < 18, −y[35−m] for 18 ≤ m < 36 and −y[m−36] beyond.
	for i := range 9 {
		out[i] = y[i+9]
	}
	for i := 9; i < 27; i++ {
		out[i] = -y[26-i]
	}
	for i := 27; i < 36; i++ {
		out[i] = -y[i-27]
	}
}

// dct4x18 is the DCT-IV of 18 values, y[n] = Σ in[k]·cos(π/72·(2n+1)(2k+1)): with
// x[k] = in[k]/(2cos(π(2k+1)/72)) and V = DCT-II(x), y[n] = V[n] + V[n+1] (V[18] = 0).
//
//go:norace
func dct4x18(in, y *[18]float64) {
	var x [18]float64
	for k := range 18 {
		x[k] = in[k] * dct4Pre[k]
	}
	var v [18]float64
	dct18(&x, &v)
	for n := range 17 {
		y[n] = v[n] + v[n+1]
	}
	y[17] = v[17]
}

// dct18 is the unnormalised DCT-II of 18 values: out[k] = Σ in[n]·cos(π(2n+1)k/36), split into
// its even and odd halves, each a 9-point DCT-II.
//
//go:norace
func dct18(in, out *[18]float64) {
	var a, b, ea, eb [9]float64
	for n := range 9 {
		a[n] = in[n] + in[17-n]
		b[n] = (in[n] - in[17-n]) * dct18Odd[n]
	}
	dct9x(&a, &ea)
	dct9x(&b, &eb)
	for k := range 9 {
		out[2*k] = ea[k]
	}
	for k := range 8 {
		out[2*k+1] = eb[k] + eb[k+1]
	}
	out[17] = eb[8]
}

// dct9x is the 9-point DCT-II, out[k] = Σ in[n]·cos(π(2n+1)k/18). Inputs n and 8−n meet with
// the same cosine, up to the sign (−1)^k, and the middle input's cosine is cos(πk/2).
//
//go:norace
func dct9x(in, out *[9]float64) {
	var p, q [4]float64
	for n := range 4 {
		p[n] = in[n] + in[8-n]
		q[n] = in[n] - in[8-n]
	}
	mid := in[4]
	for k := 0; k < 9; k += 2 {
		row := &dct9[k]
		s := row[0]*p[0] + row[1]*p[1] + row[2]*p[2] + row[3]*p[3]
		switch k % 4 {
		case 0:
			s += mid
		case 2:
			s -= mid
		}
		out[k] = s
	}
	for k := 1; k < 9; k += 2 {
		row := &dct9[k]
		out[k] = row[0]*q[0] + row[1]*q[1] + row[2]*q[2] + row[3]*q[3]
	}
}

// shortIMDCT transforms the three short blocks of a subband (in[6w+i] is window w's line i),
// windows them and overlaps them as the standard places them in the 36 outputs: window w's 12
// outputs start at 6 + 6w. A block's 12-point IMDCT, Σ x[k]·cos(π/24·(2i+7)(2k+1)), is the
// 6-point DCT-IV y[n] = Σ x[k]·cos(π/24·(2n+1)(2k+1)) unfolded: output i is c(i+3), where
// c(m) = y[m] below 6, −y[11−m] up to 12 and −y[m−12] beyond; so 36 products make a block,
// not 72.
//
//go:norace
func shortIMDCT(in *[18]float64, out *[36]float64) {
	*out = [36]float64{}
	for w := range 3 {
		x := (*[6]float64)(in[6*w : 6*w+6])
		var y [6]float64
		for n := range 6 {
			row := &dct4x6[n]
			y[n] = x[0]*row[0] + x[1]*row[1] + x[2]*row[2] + x[3]*row[3] + x[4]*row[4] + x[5]*row[5]
		}
		o := (*[12]float64)(out[6+6*w : 18+6*w])
		win := &shortWindow
		o[0] += y[3] * win[0]
		o[1] += y[4] * win[1]
		o[2] += y[5] * win[2]
		o[3] -= y[5] * win[3]
		o[4] -= y[4] * win[4]
		o[5] -= y[3] * win[5]
		o[6] -= y[2] * win[6]
		o[7] -= y[1] * win[7]
		o[8] -= y[0] * win[8]
		o[9] -= y[0] * win[9]
		o[10] -= y[1] * win[10]
		o[11] -= y[2] * win[11]
	}
}

// synthesize runs one step of the polyphase synthesis: 32 subband samples in, 32 samples out,
// written to out[0], out[stride], ...
//
// The standard's V is the 32-point DCT-II X of the samples unfolded:
// V[i] = Σ S[k]·cos((16+i)(2k+1)π/64) = c(16+i), where c(n) = X[n] for n < 32, c(32) = 0,
// c(n) = −X[64−n] up to 64 and −X[n−64] beyond; so only X is kept, and the window reads
// each X value once for the two outputs that use it (windowCoefficients). The products are
// summed in the order of the standard's sum over U, so the result is the one the whole V gives.
//
//go:norace
func (f *filterBank) synthesize(s *[32]float64, out []float64, stride int) {
	f.pos = (f.pos + 15) & 15 // the previous vectors age by one
	x := (*[32]float64)(f.ring[32*f.pos : 32*f.pos+32])
	dct32(s, x)
	copy(f.ring[32*(f.pos+16):32*(f.pos+16)+32], x[:])
	// The vector of age a, value i of X, is r[32a+i].
	r := (*[16 * 32]float64)(f.ring[32*f.pos : 32*f.pos+16*32])
	_ = out[31*stride]
	c := &windowByPair[0]
	var o0, o16 float64
	for m := range 8 {
		o0 += r[64*m+16] * c[2*m]
		o0 += r[64*m+48] * c[2*m+1]
		o16 += r[64*m+32] * c[16+2*m]
	}
	out[0] = o0
	out[16*stride] = o16
	for j := 1; j < 16; j++ {
		c := &windowByPair[j]
		e := r[16+j:]           // even ages: X[16+j] of age 2m at e[64m]
		o := r[48-j : 48-j+449] // odd ages: X[16−j] of age 2m+1 at o[64m]
		e = e[:449]
		lo := e[0]*c[0] + o[0]*c[1]
		hi := e[0]*c[2] + o[0]*c[3]
		lo += e[64] * c[4]
		lo += o[64] * c[5]
		hi += e[64] * c[6]
		hi += o[64] * c[7]
		lo += e[128] * c[8]
		lo += o[128] * c[9]
		hi += e[128] * c[10]
		hi += o[128] * c[11]
		lo += e[192] * c[12]
		lo += o[192] * c[13]
		hi += e[192] * c[14]
		hi += o[192] * c[15]
		lo += e[256] * c[16]
		lo += o[256] * c[17]
		hi += e[256] * c[18]
		hi += o[256] * c[19]
		lo += e[320] * c[20]
		lo += o[320] * c[21]
		hi += e[320] * c[22]
		hi += o[320] * c[23]
		lo += e[384] * c[24]
		lo += o[384] * c[25]
		hi += e[384] * c[26]
		hi += o[384] * c[27]
		lo += e[448] * c[28]
		lo += o[448] * c[29]
		hi += e[448] * c[30]
		hi += o[448] * c[31]
		out[j*stride] = lo
		out[(32-j)*stride] = hi
	}
}

// dct32 is the unnormalised DCT-II of 32 values, out[k] = Σ in[n]·cos(π(2n+1)k/64), by
// B. G. Lee's split: a block of N values x becomes a[i] = x[i] + x[N−1−i] and
// b[i] = (x[i] − x[N−1−i]) / (2cos(π(2i+1)/(2N))); the DCT of a gives the block's even
// outputs, and with Y the DCT of b its odd outputs are Y[k] + Y[k+1]. Each size has its own
// function on arrays so that the compiler can drop bounds checks.
//
//go:norace
func dct32(in, out *[32]float64) {
	var a, b, ea, eb [16]float64
	f := &leeFactors[0]
	for i := range 16 {
		x, y := in[i], in[31-i]
		a[i] = x + y
		b[i] = (x - y) * f[i]
	}
	dct16(&a, &ea)
	dct16(&b, &eb)
	for k := range 16 {
		out[2*k] = ea[k]
	}
	for k := range 15 {
		out[2*k+1] = eb[k] + eb[k+1]
	}
	out[31] = eb[15]
}

//go:norace
func dct16(in, out *[16]float64) {
	var a, b, ea, eb [8]float64
	f := &leeFactors[1]
	for i := range 8 {
		x, y := in[i], in[15-i]
		a[i] = x + y
		b[i] = (x - y) * f[i]
	}
	dct8(&a, &ea)
	dct8(&b, &eb)
	for k := range 8 {
		out[2*k] = ea[k]
	}
	for k := range 7 {
		out[2*k+1] = eb[k] + eb[k+1]
	}
	out[15] = eb[7]
}

// dct8 is the last level of the split written out, its two 4-point DCTs inline: the small
// sizes cost more in calls and array copies than in arithmetic.
//
//go:norace
func dct8(in, out *[8]float64) {
	f, f4, g := &leeFactors[2], &leeFactors[3], leeFactors[4][0]
	a0, a1, a2, a3 := in[0]+in[7], in[1]+in[6], in[2]+in[5], in[3]+in[4]
	b0, b1, b2, b3 := (in[0]-in[7])*f[0], (in[1]-in[6])*f[1], (in[2]-in[5])*f[2], (in[3]-in[4])*f[3]
	ea0, ea1, ea2, ea3 := dct4(a0, a1, a2, a3, f4, g)
	eb0, eb1, eb2, eb3 := dct4(b0, b1, b2, b3, f4, g)
	out[0], out[2], out[4], out[6] = ea0, ea1, ea2, ea3
	out[1], out[3], out[5], out[7] = eb0+eb1, eb1+eb2, eb2+eb3, eb3
}

// dct4 is the 4-point DCT-II of x0..x3 by the same split; f is leeFactors[3] and g the
// 2-point factor 1/(2cos(π/4)).
func dct4(x0, x1, x2, x3 float64, f *[16]float64, g float64) (y0, y1, y2, y3 float64) {
	a0, a1 := x0+x3, x1+x2
	b0, b1 := (x0-x3)*f[0], (x1-x2)*f[1]
	// Two-point DCTs: [p+q, (p−q)/(2cos(π/4))].
	e0, e1 := a0+a1, (a0-a1)*g
	o0, o1 := b0+b1, (b0-b1)*g
	return e0, o0 + o1, e1, o1
}
