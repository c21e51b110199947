package opusdec

// Band decoding (RFC 6716 section 4.3.4): split angles, recursive band partitions, stereo,
// folding from lower bands and time-frequency resolution changes.

// bandCtx is the state shared by the band decoders of one frame.
type bandCtx struct {
	m             *mode
	d             *rangeDecoder
	i             int // band
	intensity     int
	spread        int
	tfChange      int
	remainingBits int
	seed          uint32
	iy            [176]int32
	tmp           [176]float32
}

func lcgRand(seed uint32) uint32 { return 1664525*seed + 1013904223 }

var exp2Table8 = [8]int{16384, 17866, 19483, 21247, 23170, 25267, 27554, 30048}

func computeQN(n, b, offset, pulseCap int, stereo bool) int {
	n2 := 2*n - 1
	if stereo && n == 2 {
		n2--
	}
	qb := sdiv(b+n2*offset, n2)
	qb = min(b-pulseCap-(4<<bitRes), qb)
	qb = min(8<<bitRes, qb)
	if qb < (1 << bitRes >> 1) {
		return 1
	}
	qn := exp2Table8[qb&7] >> uint(14-(qb>>bitRes))
	return (qn + 1) >> 1 << 1
}

// sdiv is C's truncating signed division.
func sdiv(a, b int) int { return a / b }

// splitResult is what computeTheta decodes about a split.
type splitResult struct {
	inv         bool
	imid, iside int
	delta       int
	itheta      int
	qalloc      int
}

func (ctx *bandCtx) computeTheta(n int, b *int, bb, b0, lm int, stereo bool, fill *uint32) splitResult {
	d := ctx.d
	i := ctx.i
	pulseCap := logN[i] + lm*(1<<bitRes)
	off := qthetaOffset
	if stereo && n == 2 {
		off = qthetaTwoPh
	}
	offset := (pulseCap >> 1) - off
	qn := computeQN(n, *b, offset, pulseCap, stereo)
	if stereo && i >= ctx.intensity {
		qn = 1
	}
	tell := d.tellFrac()
	itheta := 0
	inv := false
	if qn != 1 {
		switch {
		case stereo && n > 2:
			const p0 = 3
			x0 := qn / 2
			ft := uint32(p0*(x0+1) + x0)
			fs := int(d.decode(ft))
			var x int
			if fs < (x0+1)*p0 {
				x = fs / p0
			} else {
				x = x0 + 1 + (fs - (x0+1)*p0)
			}
			var fl, fh int
			if x <= x0 {
				fl, fh = p0*x, p0*(x+1)
			} else {
				fl, fh = (x-1-x0)+(x0+1)*p0, (x-x0)+(x0+1)*p0
			}
			d.update(uint32(fl), uint32(fh), ft)
			itheta = x
		case b0 > 1 || stereo:
			itheta = int(d.uint(uint32(qn + 1)))
		default:
			ft := ((qn >> 1) + 1) * ((qn >> 1) + 1)
			fm := int(d.decode(uint32(ft)))
			var fs, fl int
			if fm < ((qn >> 1) * ((qn >> 1) + 1) >> 1) {
				itheta = int((isqrt32(8*uint32(fm)+1) - 1) >> 1)
				fs = itheta + 1
				fl = itheta * (itheta + 1) >> 1
			} else {
				itheta = (2*(qn+1) - int(isqrt32(8*uint32(ft-fm-1)+1))) >> 1
				fs = qn + 1 - itheta
				fl = ft - ((qn + 1 - itheta) * (qn + 2 - itheta) >> 1)
			}
			d.update(uint32(fl), uint32(fl+fs), uint32(ft))
		}
		itheta = itheta * 16384 / qn
	} else if stereo {
		if *b > 2<<bitRes && ctx.remainingBits > 2<<bitRes {
			inv = d.bitLogp(2)
		}
		itheta = 0
	}
	qalloc := d.tellFrac() - tell
	*b -= qalloc
	var r splitResult
	switch itheta {
	case 0:
		r.imid, r.iside = 32767, 0
		*fill &= 1<<uint(bb) - 1
		r.delta = -16384
	case 16384:
		r.imid, r.iside = 0, 32767
		*fill &= (1<<uint(bb) - 1) << uint(bb)
		r.delta = 16384
	default:
		r.imid = int(bitexactCos(int32(itheta)))
		r.iside = int(bitexactCos(int32(16384 - itheta)))
		r.delta = int(fracMul16(int32((n-1)<<7), bitexactLog2Tan(int32(r.iside), int32(r.imid))))
	}
	r.inv = inv
	r.itheta = itheta
	r.qalloc = qalloc
	return r
}

func bits2pulses(band, lm, b int) int {
	lm++
	cache := cacheBits[cacheIndex[lm*nbBands+band]:]
	lo, hi := 0, int(cache[0])
	b--
	for range logMaxPseudo {
		mid := (lo + hi + 1) >> 1
		if int(cache[mid]) >= b {
			hi = mid
		} else {
			lo = mid
		}
	}
	lov := -1
	if lo != 0 {
		lov = int(cache[lo])
	}
	if b-lov <= int(cache[hi])-b {
		return lo
	}
	return hi
}

func pulses2bits(band, lm, q int) int {
	if q == 0 {
		return 0
	}
	lm++
	return int(cacheBits[int(cacheIndex[lm*nbBands+band])+q]) + 1
}

// quantPartition decodes one (possibly recursively split) partition of a band.
func (ctx *bandCtx) quantPartition(x []float32, n, b, bb int, lowband []float32, lm int, gain float32, fill uint32) uint32 {
	i := ctx.i
	b0 := bb
	var cm uint32
	ci := int(cacheIndex[(lm+1)*nbBands+i])
	if lm != -1 && ci >= 0 && b > int(cacheBits[ci+int(cacheBits[ci])])+12 && n > 2 {
		n >>= 1
		y := x[n:]
		lm--
		if bb == 1 {
			fill = fill&1 | fill<<1
		}
		bb = (bb + 1) >> 1
		sp := ctx.computeTheta(n, &b, bb, b0, lm, false, &fill)
		mid := float32(sp.imid) / 32768
		side := float32(sp.iside) / 32768
		delta := sp.delta
		if b0 > 1 && sp.itheta&0x3fff != 0 {
			if sp.itheta > 8192 {
				delta -= delta >> uint(4-lm)
			} else {
				delta = min(0, delta+(n<<bitRes>>uint(5-lm)))
			}
		}
		mbits := max(0, min(b, (b-delta)/2))
		sbits := b - mbits
		ctx.remainingBits -= sp.qalloc
		var next []float32
		if lowband != nil {
			next = lowband[n:]
		}
		rebalance := ctx.remainingBits
		if mbits >= sbits {
			cm = ctx.quantPartition(x, n, mbits, bb, lowband, lm, gain*mid, fill)
			rebalance = mbits - (rebalance - ctx.remainingBits)
			if rebalance > 3<<bitRes && sp.itheta != 0 {
				sbits += rebalance - (3 << bitRes)
			}
			cm |= ctx.quantPartition(y, n, sbits, bb, next, lm, gain*side, fill>>uint(bb)) << uint(b0>>1)
		} else {
			cm = ctx.quantPartition(y, n, sbits, bb, next, lm, gain*side, fill>>uint(bb)) << uint(b0>>1)
			rebalance = sbits - (rebalance - ctx.remainingBits)
			if rebalance > 3<<bitRes && sp.itheta != 16384 {
				mbits += rebalance - (3 << bitRes)
			}
			cm |= ctx.quantPartition(x, n, mbits, bb, lowband, lm, gain*mid, fill)
		}
		return cm
	}
	q := bits2pulses(i, lm, b)
	curr := pulses2bits(i, lm, q)
	ctx.remainingBits -= curr
	for ctx.remainingBits < 0 && q > 0 {
		ctx.remainingBits += curr
		q--
		curr = pulses2bits(i, lm, q)
		ctx.remainingBits -= curr
	}
	if q != 0 {
		return ctx.m.algUnquant(x, n, getPulses(q), ctx.spread, bb, ctx.d, gain, ctx.iy[:])
	}
	mask := uint32(1)<<uint(bb) - 1
	fill &= mask
	if fill == 0 {
		clear(x[:n])
		return 0
	}
	if lowband == nil {
		for j := range n {
			ctx.seed = lcgRand(ctx.seed)
			x[j] = float32(int32(ctx.seed) >> 20)
		}
		cm = mask
	} else {
		for j := range n {
			ctx.seed = lcgRand(ctx.seed)
			tmp := float32(1.0 / 256)
			if ctx.seed&0x8000 == 0 {
				tmp = -tmp
			}
			x[j] = lowband[j] + tmp
		}
		cm = fill
	}
	renormalise(x[:n], gain)
	return cm
}

// quantBandN1 decodes a one-sample band (a sign per channel).
func (ctx *bandCtx) quantBandN1(x, y, lowbandOut []float32) uint32 {
	for c, v := range [2][]float32{x, y} {
		if c == 1 && y == nil {
			break
		}
		sign := uint32(0)
		if ctx.remainingBits >= 1<<bitRes {
			sign = ctx.d.bits(1)
			ctx.remainingBits -= 1 << bitRes
		}
		if sign != 0 {
			v[0] = -1
		} else {
			v[0] = 1
		}
	}
	if lowbandOut != nil {
		lowbandOut[0] = x[0]
	}
	return 1
}

var bitInterleaveTable = [16]uint32{0, 1, 1, 1, 2, 3, 3, 3, 2, 3, 3, 3, 2, 3, 3, 3}
var bitDeinterleaveTable = [16]uint32{
	0x00, 0x03, 0x0C, 0x0F, 0x30, 0x33, 0x3C, 0x3F,
	0xC0, 0xC3, 0xCC, 0xCF, 0xF0, 0xF3, 0xFC, 0xFF,
}

// quantBand decodes a mono band (or one channel of a dual-stereo band).
func (ctx *bandCtx) quantBand(x []float32, n, b, bb int, lowband []float32, lm int, lowbandOut []float32, gain float32, scratch []float32, fill uint32) uint32 {
	n0 := n
	nb := n
	b0 := bb
	timeDivide := 0
	recombine := 0
	longBlocks := b0 == 1
	tfChange := ctx.tfChange
	nb /= bb
	if n == 1 {
		return ctx.quantBandN1(x, nil, lowbandOut)
	}
	if tfChange > 0 {
		recombine = tfChange
	}
	if scratch != nil && lowband != nil && (recombine != 0 || (nb&1 == 0 && tfChange < 0) || b0 > 1) {
		copy(scratch[:n], lowband[:n])
		lowband = scratch
	}
	for k := range recombine {
		if lowband != nil {
			haar1(lowband, n>>uint(k), 1<<uint(k))
		}
		fill = bitInterleaveTable[fill&0xF] | bitInterleaveTable[fill>>4]<<2
	}
	bb >>= uint(recombine)
	nb <<= uint(recombine)
	for nb&1 == 0 && tfChange < 0 {
		if lowband != nil {
			haar1(lowband, nb, bb)
		}
		fill |= fill << uint(bb)
		bb <<= 1
		nb >>= 1
		timeDivide++
		tfChange++
	}
	b0 = bb
	nb0 := nb
	if b0 > 1 && lowband != nil {
		deinterleaveHadamard(lowband, ctx.tmp[:], nb>>uint(recombine), b0<<uint(recombine), longBlocks)
	}
	cm := ctx.quantPartition(x, n, b, bb, lowband, lm, gain, fill)
	if b0 > 1 {
		interleaveHadamard(x, ctx.tmp[:], nb>>uint(recombine), b0<<uint(recombine), longBlocks)
	}
	nb = nb0
	bb = b0
	for range timeDivide {
		bb >>= 1
		nb <<= 1
		cm |= cm >> uint(bb)
		haar1(x, nb, bb)
	}
	for k := range recombine {
		cm = bitDeinterleaveTable[cm]
		haar1(x, n0>>uint(k), 1<<uint(k))
	}
	bb <<= uint(recombine)
	if lowbandOut != nil {
		s := float32(sqrt32(float32(n0)))
		for j := range n0 {
			lowbandOut[j] = s * x[j]
		}
	}
	return cm & (1<<uint(bb) - 1)
}

// quantBandStereo decodes a band of both channels coded as mid and side.
func (ctx *bandCtx) quantBandStereo(x, y []float32, n, b, bb int, lowband []float32, lm int, lowbandOut, scratch []float32, fill uint32) uint32 {
	if n == 1 {
		return ctx.quantBandN1(x, y, lowbandOut)
	}
	origFill := fill
	sp := ctx.computeTheta(n, &b, bb, bb, lm, true, &fill)
	mid := float32(sp.imid) / 32768
	side := float32(sp.iside) / 32768
	var cm uint32
	if n == 2 {
		mbits := b
		sbits := 0
		if sp.itheta != 0 && sp.itheta != 16384 {
			sbits = 1 << bitRes
		}
		mbits -= sbits
		c := sp.itheta > 8192
		ctx.remainingBits -= sp.qalloc + sbits
		x2, y2 := x, y
		if c {
			x2, y2 = y, x
		}
		sign := float32(1)
		if sbits != 0 && ctx.d.bits(1) != 0 {
			sign = -1
		}
		cm = ctx.quantBand(x2, n, mbits, bb, lowband, lm, lowbandOut, 1, scratch, origFill)
		y2[0] = -sign * x2[1]
		y2[1] = sign * x2[0]
		x[0] *= mid
		x[1] *= mid
		y[0] *= side
		y[1] *= side
		t := x[0]
		x[0] = t - y[0]
		y[0] = t + y[0]
		t = x[1]
		x[1] = t - y[1]
		y[1] = t + y[1]
	} else {
		mbits := max(0, min(b, (b-sp.delta)/2))
		sbits := b - mbits
		ctx.remainingBits -= sp.qalloc
		rebalance := ctx.remainingBits
		if mbits >= sbits {
			cm = ctx.quantBand(x, n, mbits, bb, lowband, lm, lowbandOut, 1, scratch, fill)
			rebalance = mbits - (rebalance - ctx.remainingBits)
			if rebalance > 3<<bitRes && sp.itheta != 0 {
				sbits += rebalance - (3 << bitRes)
			}
			cm |= ctx.quantBand(y, n, sbits, bb, nil, lm, nil, side, nil, fill>>uint(bb))
		} else {
			cm = ctx.quantBand(y, n, sbits, bb, nil, lm, nil, side, nil, fill>>uint(bb))
			rebalance = sbits - (rebalance - ctx.remainingBits)
			if rebalance > 3<<bitRes && sp.itheta != 16384 {
				mbits += rebalance - (3 << bitRes)
			}
			cm |= ctx.quantBand(x, n, mbits, bb, lowband, lm, lowbandOut, 1, scratch, fill)
		}
		stereoMerge(x[:n], y[:n], mid)
	}
	if sp.inv {
		for j := range n {
			y[j] = -y[j]
		}
	}
	return cm
}

func stereoMerge(x, y []float32, mid float32) {
	var xp, side float32
	for j := range x {
		xp += y[j] * x[j]
		side += y[j] * y[j]
	}
	xp *= mid
	el := mid*mid + side - 2*xp
	er := mid*mid + side + 2*xp
	if er < 6e-4 || el < 6e-4 {
		copy(y, x)
		return
	}
	lgain := 1 / sqrt32(el)
	rgain := 1 / sqrt32(er)
	for j := range x {
		l := mid * x[j]
		r := y[j]
		x[j] = lgain * (l - r)
		y[j] = rgain * (l + r)
	}
}
