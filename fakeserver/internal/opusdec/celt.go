package opusdec

import (
	"fmt"
	"math"
)

// The kernels marked //go:norace here touch only their own buffers: see mdct.go.

const decodeBufferSize = 2048 // history kept for the pitch post-filter (periods up to 1022)

// celtDecoder is the state of the CELT layer for one stream (RFC 6716 section 4.3).
type celtDecoder struct {
	m        *mode
	channels int // output channels
	rng      uint32

	mem        [2][decodeBufferSize + overlap]float32
	oldBandE   [2 * nbBands]float32
	oldLogE    [2 * nbBands]float32
	oldLogE2   [2 * nbBands]float32
	preemphMem [2]float32

	postPeriod, postPeriodOld int
	postGain, postGainOld     float32
	postTapset, postTapsetOld int

	// Per-frame work space, kept to decode without allocating.
	x        [2 * shortMdctSize << maxLM]float32
	freq     [shortMdctSize << maxLM]float32
	freq2    [shortMdctSize << maxLM]float32
	norm     [2 * shortMdctSize << maxLM]float32
	scratch  [176]float32
	collapse [2 * nbBands]uint8
	tfRes    [nbBands]int
	fftBuf   [shortMdctSize << maxLM / 2]complex64
	fftTmp   [shortMdctSize << maxLM / 2]complex64
	band     bandCtx
	rd       rangeDecoder
	alloc    allocation
}

func newCELT(channels int) *celtDecoder {
	d := &celtDecoder{m: sharedMode(), channels: channels}
	d.reset()
	return d
}

func (d *celtDecoder) reset() {
	for i := range d.oldLogE {
		d.oldLogE[i] = -28
		d.oldLogE2[i] = -28
	}
}

// decode decodes one CELT frame of 120<<lm samples per channel from data, with stream
// channels c and the bands below end, into pcm (interleaved, d.channels wide).
func (d *celtDecoder) decode(data []byte, pcm []float32, lm, c, end int) error {
	m := d.m
	cc := d.channels
	n := shortMdctSize << uint(lm)
	mm := 1 << uint(lm)
	start := 0
	dec := &d.rd
	dec.init(data)

	if c == 1 {
		for i := range nbBands {
			d.oldBandE[i] = max(d.oldBandE[i], d.oldBandE[nbBands+i])
		}
	}
	totalBits := len(data) * 8
	tell := dec.tell()
	silence := false
	if tell >= totalBits {
		silence = true
	} else if tell == 1 {
		silence = dec.bitLogp(15)
	}
	if silence {
		tell = len(data) * 8
		dec.nbitsTotal += tell - dec.tell()
	}
	postGain := float32(0)
	postPitch, postTapset := 0, 0
	if start == 0 && tell+16 <= totalBits {
		if dec.bitLogp(1) {
			octave := int(dec.uint(6))
			postPitch = (16 << uint(octave)) + int(dec.bits(uint(4+octave))) - 1
			qg := int(dec.bits(3))
			if dec.tell()+2 <= totalBits {
				postTapset = dec.icdf(tapsetICDF, 2)
			}
			postGain = 0.09375 * float32(qg+1)
		}
		tell = dec.tell()
	}
	transient := false
	if lm > 0 && tell+3 <= totalBits {
		transient = dec.bitLogp(3)
		tell = dec.tell()
	}
	shortBlocks := 0
	if transient {
		shortBlocks = mm
	}
	intra := false
	if tell+3 <= totalBits {
		intra = dec.bitLogp(3)
	}
	d.unquantCoarse(dec, start, end, intra, c, lm)
	d.tfDecode(dec, start, end, transient, lm)

	tell = dec.tell()
	spread := 2
	if tell+4 <= totalBits {
		spread = dec.icdf(spreadICDF, 5)
	}
	var caps, offsets [nbBands]int
	initCaps(&caps, lm, c)
	dynallocLogp := 6
	totalBits <<= bitRes
	tellF := dec.tellFrac()
	for i := start; i < end; i++ {
		width := c * (eBands[i+1] - eBands[i]) << uint(lm)
		quanta := min(width<<bitRes, max(6<<bitRes, width))
		loopLogp := dynallocLogp
		boost := 0
		for tellF+(loopLogp<<bitRes) < totalBits && boost < caps[i] {
			flag := dec.bitLogp(uint(loopLogp))
			tellF = dec.tellFrac()
			if !flag {
				break
			}
			boost += quanta
			totalBits -= quanta
			loopLogp = 1
		}
		offsets[i] = boost
		if boost > 0 {
			dynallocLogp = max(2, dynallocLogp-1)
		}
	}
	allocTrim := 5
	if tellF+(6<<bitRes) <= totalBits {
		allocTrim = dec.icdf(trimICDF, 7)
	}
	bits := (len(data) * 8 << bitRes) - dec.tellFrac() - 1
	antiCollapseRsv := 0
	if transient && lm >= 2 && bits >= (lm+2)<<bitRes {
		antiCollapseRsv = 1 << bitRes
	}
	bits -= antiCollapseRsv
	a := &d.alloc
	computeAllocation(start, end, &offsets, &caps, allocTrim, bits, c, lm, dec, a)
	d.unquantFine(dec, start, end, c)

	for ch := range cc {
		copy(d.mem[ch][:], d.mem[ch][n:])
	}
	x := d.x[:c*n]
	d.quantAllBands(dec, start, end, x, c, n, shortBlocks, spread, a, len(data)*(8<<bitRes)-antiCollapseRsv, lm)

	antiCollapse := false
	if antiCollapseRsv > 0 {
		antiCollapse = dec.bits(1) != 0
	}
	d.unquantFinalise(dec, start, end, len(data)*8-dec.tell(), c)
	if antiCollapse {
		d.antiCollapse(x, lm, c, n, start, end)
	}
	if silence {
		for i := range c * nbBands {
			d.oldBandE[i] = -28
		}
	}
	d.synthesis(x, start, min(end, nbBands), c, cc, transient, lm, n, silence)

	for ch := range cc {
		d.postPeriod = max(d.postPeriod, 15)
		d.postPeriodOld = max(d.postPeriodOld, 15)
		combFilter(d.mem[ch][:], decodeBufferSize-n, d.postPeriodOld, d.postPeriod, shortMdctSize, d.postGainOld, d.postGain, d.postTapsetOld, d.postTapset, &m.window)
		if lm != 0 {
			combFilter(d.mem[ch][:], decodeBufferSize-n+shortMdctSize, d.postPeriod, postPitch, n-shortMdctSize, d.postGain, postGain, d.postTapset, postTapset, &m.window)
		}
	}
	d.postPeriodOld, d.postGainOld, d.postTapsetOld = d.postPeriod, d.postGain, d.postTapset
	d.postPeriod, d.postGain, d.postTapset = postPitch, postGain, postTapset
	if lm != 0 {
		d.postPeriodOld, d.postGainOld, d.postTapsetOld = d.postPeriod, d.postGain, d.postTapset
	}
	if c == 1 {
		copy(d.oldBandE[nbBands:], d.oldBandE[:nbBands])
	}
	if !transient {
		d.oldLogE2 = d.oldLogE
		d.oldLogE = d.oldBandE
	} else {
		for i := range d.oldLogE {
			d.oldLogE[i] = min(d.oldLogE[i], d.oldBandE[i])
		}
	}
	for ch := range 2 {
		for i := range start {
			d.oldBandE[ch*nbBands+i] = 0
			d.oldLogE[ch*nbBands+i] = -28
			d.oldLogE2[ch*nbBands+i] = -28
		}
		for i := end; i < nbBands; i++ {
			d.oldBandE[ch*nbBands+i] = 0
			d.oldLogE[ch*nbBands+i] = -28
			d.oldLogE2[ch*nbBands+i] = -28
		}
	}
	d.rng = dec.rng
	d.deemphasis(pcm, n)
	if dec.tell() > 8*len(data) {
		return fmt.Errorf("%w: CELT frame read past its end", ErrInvalidPacket)
	}
	return nil
}

func (d *celtDecoder) unquantCoarse(dec *rangeDecoder, start, end int, intra bool, c, lm int) {
	prob := &eProbModel[lm][b2i(intra)]
	var prev [2]float32
	coef, beta := predCoef[lm], betaCoef[lm]
	if intra {
		coef, beta = 0, betaIntra
	}
	budget := len(dec.buf) * 8
	for i := start; i < end; i++ {
		for ch := range c {
			tell := dec.tell()
			var qi int
			switch {
			case budget-tell >= 15:
				pi := 2 * min(i, 20)
				qi = laplaceDecode(dec, uint32(prob[pi])<<7, uint32(prob[pi+1])<<6)
			case budget-tell >= 2:
				qi = dec.icdf(smallEnergyICDF, 2)
				qi = (qi >> 1) ^ -(qi & 1)
			case budget-tell >= 1:
				qi = -b2i(dec.bitLogp(1))
			default:
				qi = -1
			}
			q := float32(qi)
			k := i + ch*nbBands
			old := max(-9, d.oldBandE[k])
			d.oldBandE[k] = coef*old + prev[ch] + q
			prev[ch] = prev[ch] + q - beta*q
		}
	}
}

// laplaceDecode decodes a coarse energy residual (RFC 6716 section 4.3.2.1).
func laplaceDecode(dec *rangeDecoder, fs, decay uint32) int {
	val := 0
	fm := dec.decodeBin(15)
	fl := uint32(0)
	if fm >= fs {
		val++
		fl = fs
		fs = ((32768-2*16-fs)*(16384-decay))>>15 + 1
		for fs > 1 && fm >= fl+2*fs {
			fs *= 2
			fl += fs
			fs = ((fs-2)*decay)>>15 + 1
			val++
		}
		if fs <= 1 {
			di := (fm - fl) >> 1
			val += int(di)
			fl += 2 * di
		}
		if fm < fl+fs {
			val = -val
		} else {
			fl += fs
		}
	}
	dec.update(fl, min(fl+fs, 32768), 32768)
	return val
}

func (d *celtDecoder) tfDecode(dec *rangeDecoder, start, end int, transient bool, lm int) {
	budget := len(dec.buf) * 8
	tell := dec.tell()
	logp := 4
	if transient {
		logp = 2
	}
	tfSelectRsv := lm > 0 && tell+logp+1 <= budget
	if tfSelectRsv {
		budget--
	}
	tfChanged, curr := 0, 0
	for i := start; i < end; i++ {
		if tell+logp <= budget {
			curr ^= b2i(dec.bitLogp(uint(logp)))
			tell = dec.tell()
			tfChanged |= curr
		}
		d.tfRes[i] = curr
		if transient {
			logp = 4
		} else {
			logp = 5
		}
	}
	tfSelect := 0
	t := 4 * b2i(transient)
	if tfSelectRsv && tfSelectTable[lm][t+tfChanged] != tfSelectTable[lm][t+2+tfChanged] {
		tfSelect = b2i(dec.bitLogp(1))
	}
	for i := start; i < end; i++ {
		d.tfRes[i] = int(tfSelectTable[lm][t+2*tfSelect+d.tfRes[i]])
	}
}

func (d *celtDecoder) unquantFine(dec *rangeDecoder, start, end, c int) {
	a := &d.alloc
	for i := start; i < end; i++ {
		fq := a.fineQuant[i]
		if fq <= 0 {
			continue
		}
		for ch := range c {
			q2 := dec.bits(uint(fq))
			off := (float32(q2)+0.5)*float32(int(1)<<uint(14-fq))*(1.0/16384) - 0.5
			d.oldBandE[i+ch*nbBands] += off
		}
	}
}

func (d *celtDecoder) unquantFinalise(dec *rangeDecoder, start, end, bitsLeft, c int) {
	a := &d.alloc
	for prio := range 2 {
		for i := start; i < end && bitsLeft >= c; i++ {
			if a.fineQuant[i] >= maxFineBits || a.finePriority[i] != prio {
				continue
			}
			for ch := range c {
				q2 := dec.bits(1)
				off := (float32(q2) - 0.5) * float32(int(1)<<uint(14-a.fineQuant[i]-1)) * (1.0 / 16384)
				d.oldBandE[i+ch*nbBands] += off
				bitsLeft--
			}
		}
	}
}

func (d *celtDecoder) quantAllBands(dec *rangeDecoder, start, end int, x []float32, c, n, shortBlocks, spread int, a *allocation, totalBits, lm int) {
	mm := 1 << uint(lm)
	bb := 1
	if shortBlocks != 0 {
		bb = mm
	}
	normOffset := mm * eBands[start]
	normLen := mm*eBands[nbBands-1] - normOffset
	norm := d.norm[:normLen]
	norm2 := d.norm[normLen : 2*normLen]
	ctx := &d.band
	ctx.m = d.m
	ctx.d = dec
	ctx.intensity = a.intensity
	ctx.spread = spread
	ctx.seed = d.rng
	balance := a.balance
	dualStereo := a.dualStereo
	codedBands := a.codedBands
	lowbandOffset := 0
	updateLowband := true
	collapse := d.collapse[:]
	for i := start; i < end; i++ {
		ctx.i = i
		last := i == end-1
		xb := x[mm*eBands[i]:]
		var yb []float32
		if c == 2 {
			yb = x[n+mm*eBands[i]:]
		}
		w := mm*eBands[i+1] - mm*eBands[i]
		tell := dec.tellFrac()
		if i != start {
			balance -= tell
		}
		remaining := totalBits - tell - 1
		ctx.remainingBits = remaining
		b := 0
		if i <= codedBands-1 {
			currBalance := balance / min(3, codedBands-i)
			b = max(0, min(16383, min(remaining+1, a.pulses[i]+currBalance)))
		}
		if (mm*eBands[i]-w >= mm*eBands[start] || i == start+1) && (updateLowband || lowbandOffset == 0) {
			lowbandOffset = i
		}
		ctx.tfChange = d.tfRes[i]
		scratch := d.scratch[:]
		if last {
			scratch = nil
		}
		effLowband := -1
		var xcm, ycm uint32
		if lowbandOffset != 0 && (spread != 3 || bb > 1 || ctx.tfChange < 0) {
			effLowband = max(0, mm*eBands[lowbandOffset]-normOffset-w)
			foldStart := lowbandOffset
			for {
				foldStart--
				if mm*eBands[foldStart] <= effLowband+normOffset {
					break
				}
			}
			foldEnd := lowbandOffset - 1
			for {
				foldEnd++
				if !(foldEnd < i && mm*eBands[foldEnd] < effLowband+normOffset+w) {
					break
				}
			}
			for fi := foldStart; fi < foldEnd; fi++ {
				xcm |= uint32(collapse[fi*c])
				ycm |= uint32(collapse[fi*c+c-1])
			}
			if foldStart >= foldEnd { // the C do-while reads one band at least
				xcm |= uint32(collapse[foldStart*c])
				ycm |= uint32(collapse[foldStart*c+c-1])
			}
		} else {
			xcm = 1<<uint(bb) - 1
			ycm = xcm
		}
		if dualStereo && i == a.intensity {
			dualStereo = false
			for j := range mm*eBands[i] - normOffset {
				norm[j] = 0.5 * (norm[j] + norm2[j])
			}
		}
		var lowband, lowband2, out, out2 []float32
		if effLowband != -1 {
			lowband = norm[effLowband:]
			lowband2 = norm2[effLowband:]
		}
		if !last {
			out = norm[mm*eBands[i]-normOffset:]
			out2 = norm2[mm*eBands[i]-normOffset:]
		}
		if dualStereo {
			xcm = ctx.quantBand(xb, w, b/2, bb, lowband, lm, out, 1, scratch, xcm)
			ycm = ctx.quantBand(yb, w, b/2, bb, lowband2, lm, out2, 1, scratch, ycm)
		} else {
			if yb != nil {
				xcm = ctx.quantBandStereo(xb, yb, w, b, bb, lowband, lm, out, scratch, xcm|ycm)
			} else {
				xcm = ctx.quantBand(xb, w, b, bb, lowband, lm, out, 1, scratch, xcm|ycm)
			}
			ycm = xcm
		}
		collapse[i*c] = uint8(xcm)
		collapse[i*c+c-1] = uint8(ycm)
		balance += a.pulses[i] + tell
		updateLowband = b > w<<bitRes
	}
	d.rng = ctx.seed
}

func (d *celtDecoder) antiCollapse(x []float32, lm, c, size, start, end int) {
	seed := d.rng
	a := &d.alloc
	for i := start; i < end; i++ {
		n0 := eBands[i+1] - eBands[i]
		depth := (1 + a.pulses[i]) / n0 >> uint(lm)
		thresh := 0.5 * float32(math.Exp2(-0.125*float64(depth)))
		sqrt1 := 1 / sqrt32(float32(n0<<uint(lm)))
		for ch := range c {
			prev1 := d.oldLogE[ch*nbBands+i]
			prev2 := d.oldLogE2[ch*nbBands+i]
			if c == 1 {
				prev1 = max(prev1, d.oldLogE[nbBands+i])
				prev2 = max(prev2, d.oldLogE2[nbBands+i])
			}
			ediff := max(0, d.oldBandE[ch*nbBands+i]-min(prev1, prev2))
			r := 2 * float32(math.Exp2(-float64(ediff)))
			if lm == 3 {
				r *= 1.41421356
			}
			r = min(thresh, r) * sqrt1
			xb := x[ch*size+eBands[i]<<uint(lm):]
			renorm := false
			for k := range 1 << uint(lm) {
				if d.collapse[i*c+ch]&(1<<uint(k)) == 0 {
					for j := range n0 {
						seed = lcgRand(seed)
						if seed&0x8000 != 0 {
							xb[j<<uint(lm)+k] = r
						} else {
							xb[j<<uint(lm)+k] = -r
						}
					}
					renorm = true
				}
			}
			if renorm {
				renormalise(xb[:n0<<uint(lm)], 1)
			}
		}
	}
}

func (d *celtDecoder) denormalise(x []float32, freq []float32, bandE []float32, end, mm, n int, silence bool) {
	bound := mm * eBands[end]
	if silence {
		bound = 0
		end = 0
	}
	j := 0
	for i := range end {
		g := float32(math.Exp2(float64(min(32, bandE[i]+eMeans[i]))))
		for ; j < mm*eBands[i+1]; j++ {
			freq[j] = x[j] * g
		}
	}
	clear(freq[bound:n])
}

func (d *celtDecoder) synthesis(x []float32, start, end, c, cc int, transient bool, lm, n int, silence bool) {
	mm := 1 << uint(lm)
	bb, nb, shift := 1, n, maxLM-lm
	if transient {
		bb, nb, shift = mm, shortMdctSize, maxLM
	}
	md := &d.m.mdct[shift]
	freq := d.freq[:n]
	imdct := func(ch int) {
		out := d.mem[ch][decodeBufferSize-n:]
		for b := range bb {
			md.backward(freq[b:], bb, out[nb*b:], &d.m.window, d.fftBuf[:], d.fftTmp[:])
		}
	}
	switch {
	case cc == 2 && c == 1:
		d.denormalise(x, freq, d.oldBandE[:], end, mm, n, silence)
		// The IMDCT does not change its input, so one denormalised spectrum serves both.
		imdct(0)
		imdct(1)
	case cc == 1 && c == 2:
		d.denormalise(x, freq, d.oldBandE[:], end, mm, n, silence)
		f2 := d.freq2[:n]
		d.denormalise(x[n:], f2, d.oldBandE[nbBands:], end, mm, n, silence)
		for i := range n {
			freq[i] = 0.5*freq[i] + 0.5*f2[i]
		}
		imdct(0)
	default:
		for ch := range cc {
			d.denormalise(x[ch*n:], freq, d.oldBandE[ch*nbBands:], end, mm, n, silence)
			imdct(ch)
		}
	}
}

// combFilter applies the pitch post-filter in place to buf[at:at+n], cross-fading over the
// window's overlap from (t0, g0, tapset0) to (t1, g1, tapset1).
//
//go:norace
func combFilter(buf []float32, at, t0, t1, n int, g0, g1 float32, tapset0, tapset1 int, window *[overlap]float32) {
	if g0 == 0 && g1 == 0 {
		return
	}
	t0, t1 = max(t0, 15), max(t1, 15)
	g00, g01, g02 := g0*postGains[tapset0][0], g0*postGains[tapset0][1], g0*postGains[tapset0][2]
	g10, g11, g12 := g1*postGains[tapset1][0], g1*postGains[tapset1][1], g1*postGains[tapset1][2]
	x1 := buf[at-t1+1]
	x2 := buf[at-t1]
	x3 := buf[at-t1-1]
	x4 := buf[at-t1-2]
	ov := overlap
	if g0 == g1 && t0 == t1 && tapset0 == tapset1 {
		ov = 0
	}
	i := 0
	for ; i < ov; i++ {
		p := at + i
		x0 := buf[p-t1+2]
		f := window[i] * window[i]
		buf[p] = buf[p] +
			(1-f)*g00*buf[p-t0] +
			(1-f)*g01*(buf[p-t0+1]+buf[p-t0-1]) +
			(1-f)*g02*(buf[p-t0+2]+buf[p-t0-2]) +
			f*g10*x2 +
			f*g11*(x1+x3) +
			f*g12*(x0+x4)
		x4, x3, x2, x1 = x3, x2, x1, x0
	}
	if g1 == 0 {
		return
	}
	// The rest at constant taps: y[i] += g10·y[i-T] + g11·(y[i-T±1]) + g12·(y[i-T±2]), with
	// the delayed samples carried in registers.
	y := buf[at+i : at+n]
	z := buf[at+i-t1-2 : at+n-t1+2]
	z4, z3, z2, z1 := z[0], z[1], z[2], z[3]
	z = z[4:]
	z = z[:len(y)]
	for j := range y {
		z0 := z[j]
		y[j] += g10*z2 + g11*(z1+z3) + g12*(z0+z4)
		z4, z3, z2, z1 = z3, z2, z1, z0
	}
}

const preemph = float32(0.8500061035)

// deemphasis undoes the encoder's pre-emphasis and scales to ±1 full scale, interleaving the
// channels into pcm.
//
//go:norace
func (d *celtDecoder) deemphasis(pcm []float32, n int) {
	cc := d.channels
	if cc == 2 {
		x0 := d.mem[0][decodeBufferSize-n : decodeBufferSize]
		x1 := d.mem[1][decodeBufferSize-n : decodeBufferSize]
		x1 = x1[:len(x0)]
		out := pcm[:2*len(x0)]
		m0, m1 := d.preemphMem[0], d.preemphMem[1]
		for j, v := range x0 {
			t0 := v + 1e-30 + m0
			t1 := x1[j] + 1e-30 + m1
			m0, m1 = preemph*t0, preemph*t1
			out[2*j] = t0 * (1.0 / 32768)
			out[2*j+1] = t1 * (1.0 / 32768)
		}
		d.preemphMem[0], d.preemphMem[1] = m0, m1
		return
	}
	for ch := range cc {
		x := d.mem[ch][decodeBufferSize-n : decodeBufferSize]
		m := d.preemphMem[ch]
		for j, v := range x {
			tmp := v + 1e-30 + m
			m = preemph * tmp
			pcm[j*cc+ch] = tmp * (1.0 / 32768)
		}
		d.preemphMem[ch] = m
	}
}

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }
