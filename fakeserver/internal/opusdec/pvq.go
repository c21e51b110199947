package opusdec

import "math"

// Pyramid vector quantisation (RFC 6716 section 4.3.4): pulse vectors, their index coding,
// spreading rotations and the split-angle helpers, all in the decoder's direction.

func (m *mode) u(n, k int) uint32 { return m.pvqU[n*(pvqMax+1)+k] }

// decodePulses reads the index of a vector of n integers whose magnitudes sum to k into y and
// returns the sum of their squares (RFC 6716 section 4.3.4.2). U is symmetric, so every
// lookup reads row n, contiguous in k.
func (m *mode) decodePulses(y []int32, n, k int, d *rangeDecoder) float32 {
	const stride = pvqMax + 1
	u := m.pvqU
	i := d.uint(u[n*stride+k] + u[n*stride+k+1])
	var yy int32
	y = y[:n]
	j := 0
	for ; n > 2; n-- {
		row := u[n*stride : n*stride+stride]
		var p uint32
		var val int32
		k0 := k
		if k >= n {
			p = row[k+1]
			neg := i >= p
			if neg {
				i -= p
			}
			if row[n] > i {
				k = n
				for {
					k--
					if p = row[k]; p <= i {
						break
					}
				}
			} else {
				for p = row[k]; p > i; p = row[k] {
					k--
				}
			}
			i -= p
			val = int32(k0 - k)
			if neg {
				val = -val
			}
		} else {
			p = row[k]
			q := row[k+1]
			if p <= i && i < q {
				i -= p
				y[j] = 0
				j++
				continue
			}
			neg := i >= q
			if neg {
				i -= q
			}
			for {
				k--
				if p = row[k]; p <= i {
					break
				}
			}
			i -= p
			val = int32(k0 - k)
			if neg {
				val = -val
			}
		}
		y[j] = val
		j++
		yy += val * val
	}
	// n == 2
	p := uint32(2*k + 1)
	neg := i >= p
	if neg {
		i -= p
	}
	k0 := k
	k = int((i + 1) >> 1)
	if k != 0 {
		i -= uint32(2*k - 1)
	}
	val := int32(k0 - k)
	if neg {
		val = -val
	}
	y[j] = val
	yy += val * val
	// n == 1
	val = int32(k)
	if i != 0 {
		val = -val
	}
	y[j+1] = val
	yy += val * val
	return float32(yy)
}

// expRotation1 applies one pass of 2-D rotations at a stride, forward then backward.
func expRotation1(x []float32, n, stride int, c, s float32) {
	if stride == 1 {
		expRotationAdjacent(x[:n], c, s)
		return
	}
	ms := -s
	for i := 0; i < n-stride; i++ {
		x1 := x[i]
		x2 := x[i+stride]
		x[i+stride] = c*x2 + s*x1
		x[i] = c*x1 + ms*x2
	}
	for i := n - 2*stride - 1; i >= 0; i-- {
		x1 := x[i]
		x2 := x[i+stride]
		x[i+stride] = c*x2 + s*x1
		x[i] = c*x1 + ms*x2
	}
}

// expRotationAdjacent is expRotation1 at stride 1, the same operations in the same order.
// Each rotation's input is the previous one's output, so that value is carried in a register
// rather than stored and loaded again on the loop's critical path.
func expRotationAdjacent(x []float32, c, s float32) {
	if len(x) < 2 {
		return
	}
	ms := -s
	x1 := x[0]
	for i := 1; i < len(x); i++ {
		x2 := x[i]
		x[i-1] = c*x1 + ms*x2
		x1 = c*x2 + s*x1
	}
	x[len(x)-1] = x1
	if len(x) < 3 {
		return
	}
	x2 := x[len(x)-2]
	for i := len(x) - 3; i >= 0; i-- {
		x1 := x[i]
		x[i+1] = c*x2 + s*x1
		x2 = c*x1 + ms*x2
	}
	x[0] = x2
}

var spreadFactor = [3]int{15, 10, 5}

// expRotation undoes the encoder's spreading of a decoded pulse vector (dir < 0).
func expRotation(x []float32, n, dir, stride, k, spread int) {
	if 2*k >= n || spread == 0 {
		return
	}
	factor := spreadFactor[spread-1]
	gain := float32(n) / float32(n+factor*k)
	theta := 0.5 * gain * gain
	c := float32(math.Cos(0.5 * math.Pi * float64(theta)))
	s := float32(math.Cos(0.5 * math.Pi * float64(1-theta)))
	stride2 := 0
	if n >= 8*stride {
		stride2 = 1
		for (stride2*stride2+stride2)*stride+(stride>>2) < n {
			stride2++
		}
	}
	l := n / stride
	for i := range stride {
		xi := x[i*l : i*l+l]
		if dir < 0 {
			if stride2 != 0 {
				expRotation1(xi, l, stride2, s, c)
			}
			expRotation1(xi, l, 1, c, s)
		} else {
			expRotation1(xi, l, 1, c, -s)
			if stride2 != 0 {
				expRotation1(xi, l, stride2, s, -c)
			}
		}
	}
}

// algUnquant decodes a PVQ codeword of k pulses into x with norm gain and returns the mask of
// short blocks that received a pulse.
func (m *mode) algUnquant(x []float32, n, k, spread, b int, d *rangeDecoder, gain float32, iy []int32) uint32 {
	ryy := m.decodePulses(iy, n, k, d)
	g := gain / float32(math.Sqrt(float64(ryy)))
	for i := range n {
		x[i] = g * float32(iy[i])
	}
	expRotation(x, n, -1, b, k, spread)
	if b <= 1 {
		return 1
	}
	n0 := n / b
	var mask uint32
	for i := range b {
		var t int32
		for _, v := range iy[i*n0 : i*n0+n0] {
			t |= v
		}
		if t != 0 {
			mask |= 1 << uint(i)
		}
	}
	return mask
}

// renormalise scales x to norm gain.
func renormalise(x []float32, gain float32) {
	e := float32(1e-15)
	for _, v := range x {
		e += v * v
	}
	g := gain / float32(math.Sqrt(float64(e)))
	for i := range x {
		x[i] *= g
	}
}

func fracMul16(a, b int32) int32 { return (16384 + int32(int16(a))*int32(int16(b))) >> 15 }

func bitexactCos(x int32) int32 {
	tmp := (4096 + x*x) >> 13
	x2 := tmp
	x2 = (32767 - x2) + fracMul16(x2, -7651+fracMul16(x2, 8277+fracMul16(-626, x2)))
	return 1 + x2
}

func bitexactLog2Tan(isin, icos int32) int32 {
	lc := int32(ilog(uint32(icos)))
	ls := int32(ilog(uint32(isin)))
	icos <<= uint(15 - lc)
	isin <<= uint(15 - ls)
	return (ls-lc)*(1<<11) + fracMul16(isin, fracMul16(isin, -2597)+7932) - fracMul16(icos, fracMul16(icos, -2597)+7932)
}

// isqrt32 is floor(sqrt(v)).
func isqrt32(v uint32) uint32 {
	var g uint32
	bshift := (ilog(v) - 1) >> 1
	if bshift < 0 {
		return 0
	}
	b := uint32(1) << uint(bshift)
	for {
		t := (g<<1 + b) << uint(bshift)
		if t <= v {
			g += b
			v -= t
		}
		b >>= 1
		bshift--
		if bshift < 0 {
			return g
		}
	}
}

func haar1(x []float32, n0, stride int) {
	n0 >>= 1
	const s = float32(0.70710678)
	for i := range stride {
		for j := range n0 {
			a := s * x[stride*2*j+i]
			b := s * x[stride*(2*j+1)+i]
			x[stride*2*j+i] = a + b
			x[stride*(2*j+1)+i] = a - b
		}
	}
}

var orderyTable = [...]int{
	1, 0,
	3, 0, 2, 1,
	7, 0, 4, 3, 6, 1, 5, 2,
	15, 0, 8, 7, 12, 3, 11, 4, 14, 1, 9, 6, 13, 2, 10, 5,
}

func deinterleaveHadamard(x, tmp []float32, n0, stride int, hadamard bool) {
	n := n0 * stride
	if hadamard {
		ordery := orderyTable[stride-2:]
		for i := range stride {
			for j := range n0 {
				tmp[ordery[i]*n0+j] = x[j*stride+i]
			}
		}
	} else {
		for i := range stride {
			for j := range n0 {
				tmp[i*n0+j] = x[j*stride+i]
			}
		}
	}
	copy(x[:n], tmp[:n])
}

func interleaveHadamard(x, tmp []float32, n0, stride int, hadamard bool) {
	n := n0 * stride
	if hadamard {
		ordery := orderyTable[stride-2:]
		for i := range stride {
			for j := range n0 {
				tmp[j*stride+i] = x[ordery[i]*n0+j]
			}
		}
	} else {
		for i := range stride {
			for j := range n0 {
				tmp[j*stride+i] = x[i*n0+j]
			}
		}
	}
	copy(x[:n], tmp[:n])
}
