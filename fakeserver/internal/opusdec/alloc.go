package opusdec

// Bit allocation (RFC 6716 section 4.3.3).

// allocation is the result of computeAllocation for one frame.
type allocation struct {
	codedBands   int
	intensity    int
	dualStereo   bool
	balance      int
	pulses       [nbBands]int
	fineQuant    [nbBands]int
	finePriority [nbBands]int
}

func initCaps(caps *[nbBands]int, lm, c int) {
	for i := range nbBands {
		n := (eBands[i+1] - eBands[i]) << uint(lm)
		caps[i] = (int(cacheCaps[nbBands*(2*lm+c-1)+i]) + 64) * c * n >> 2
	}
}

func computeAllocation(start, end int, offsets, caps *[nbBands]int, allocTrim int, total int, c, lm int, d *rangeDecoder, a *allocation) {
	total = max(total, 0)
	skipStart := start
	skipRsv := 0
	if total >= 1<<bitRes {
		skipRsv = 1 << bitRes
	}
	total -= skipRsv
	intensityRsv, dualStereoRsv := 0, 0
	if c == 2 {
		intensityRsv = log2FracTable[end-start]
		if intensityRsv > total {
			intensityRsv = 0
		} else {
			total -= intensityRsv
			if total >= 1<<bitRes {
				dualStereoRsv = 1 << bitRes
			}
			total -= dualStereoRsv
		}
	}
	var thresh, trimOffset, bits1, bits2 [nbBands]int
	for j := start; j < end; j++ {
		w := eBands[j+1] - eBands[j]
		thresh[j] = max(c<<bitRes, (3*w<<uint(lm)<<bitRes)>>4)
		trimOffset[j] = c * w * (allocTrim - 5 - lm) * (end - j - 1) * (1 << uint(lm+bitRes)) >> 6
		if w<<uint(lm) == 1 {
			trimOffset[j] -= c << bitRes
		}
	}
	lo, hi := 1, len(bandAllocation)-1
	for lo <= hi {
		done := false
		psum := 0
		mid := (lo + hi) >> 1
		for j := end - 1; j >= start; j-- {
			w := eBands[j+1] - eBands[j]
			bitsj := c * w * int(bandAllocation[mid][j]) << uint(lm) >> 2
			if bitsj > 0 {
				bitsj = max(0, bitsj+trimOffset[j])
			}
			bitsj += offsets[j]
			if bitsj >= thresh[j] || done {
				done = true
				psum += min(bitsj, caps[j])
			} else if bitsj >= c<<bitRes {
				psum += c << bitRes
			}
		}
		if psum > total {
			hi = mid - 1
		} else {
			lo = mid + 1
		}
	}
	hi = lo
	lo--
	for j := start; j < end; j++ {
		w := eBands[j+1] - eBands[j]
		b1 := c * w * int(bandAllocation[lo][j]) << uint(lm) >> 2
		var b2 int
		if hi >= len(bandAllocation) {
			b2 = caps[j]
		} else {
			b2 = c * w * int(bandAllocation[hi][j]) << uint(lm) >> 2
		}
		if b1 > 0 {
			b1 = max(0, b1+trimOffset[j])
		}
		if b2 > 0 {
			b2 = max(0, b2+trimOffset[j])
		}
		if lo > 0 {
			b1 += offsets[j]
		}
		b2 += offsets[j]
		if offsets[j] > 0 {
			skipStart = j
		}
		b2 = max(0, b2-b1)
		bits1[j], bits2[j] = b1, b2
	}
	interpBits2Pulses(start, end, skipStart, &bits1, &bits2, &thresh, caps, total, skipRsv, intensityRsv, dualStereoRsv, c, lm, d, a)
}

func interpBits2Pulses(start, end, skipStart int, bits1, bits2, thresh, caps *[nbBands]int, total, skipRsv, intensityRsv, dualStereoRsv, c, lm int, d *rangeDecoder, a *allocation) {
	allocFloor := c << bitRes
	stereo := 0
	if c > 1 {
		stereo = 1
	}
	logM := lm << bitRes
	lo, hi := 0, 1<<allocSteps
	for range allocSteps {
		mid := (lo + hi) >> 1
		psum := 0
		done := false
		for j := end - 1; j >= start; j-- {
			tmp := bits1[j] + (mid * bits2[j] >> allocSteps)
			if tmp >= thresh[j] || done {
				done = true
				psum += min(tmp, caps[j])
			} else if tmp >= allocFloor {
				psum += allocFloor
			}
		}
		if psum > total {
			hi = mid
		} else {
			lo = mid
		}
	}
	psum := 0
	done := false
	bits := &a.pulses
	for j := end - 1; j >= start; j-- {
		tmp := bits1[j] + (lo * bits2[j] >> allocSteps)
		if tmp < thresh[j] && !done {
			if tmp >= allocFloor {
				tmp = allocFloor
			} else {
				tmp = 0
			}
		} else {
			done = true
		}
		tmp = min(tmp, caps[j])
		bits[j] = tmp
		psum += tmp
	}
	codedBands := end
	for ; ; codedBands-- {
		j := codedBands - 1
		if j <= skipStart {
			total += skipRsv
			break
		}
		left := total - psum
		percoeff := left / (eBands[codedBands] - eBands[start])
		left -= (eBands[codedBands] - eBands[start]) * percoeff
		rem := max(left-(eBands[j]-eBands[start]), 0)
		bandWidth := eBands[codedBands] - eBands[j]
		bandBits := bits[j] + percoeff*bandWidth + rem
		if bandBits >= max(thresh[j], allocFloor+(1<<bitRes)) {
			if d.bitLogp(1) {
				break
			}
			psum += 1 << bitRes
			bandBits -= 1 << bitRes
		}
		psum -= bits[j] + intensityRsv
		if intensityRsv > 0 {
			intensityRsv = log2FracTable[j-start]
		}
		psum += intensityRsv
		if bandBits >= allocFloor {
			psum += allocFloor
			bits[j] = allocFloor
		} else {
			bits[j] = 0
		}
	}
	a.intensity = 0
	if intensityRsv > 0 {
		a.intensity = start + int(d.uint(uint32(codedBands+1-start)))
	}
	if a.intensity <= start {
		total += dualStereoRsv
		dualStereoRsv = 0
	}
	a.dualStereo = false
	if dualStereoRsv > 0 {
		a.dualStereo = d.bitLogp(1)
	}
	left := total - psum
	percoeff := left / (eBands[codedBands] - eBands[start])
	left -= (eBands[codedBands] - eBands[start]) * percoeff
	for j := start; j < codedBands; j++ {
		bits[j] += percoeff * (eBands[j+1] - eBands[j])
	}
	for j := start; j < codedBands; j++ {
		tmp := min(left, eBands[j+1]-eBands[j])
		bits[j] += tmp
		left -= tmp
	}
	balance := 0
	j := start
	for ; j < codedBands; j++ {
		n0 := eBands[j+1] - eBands[j]
		n := n0 << uint(lm)
		bit := bits[j] + balance
		var excess int
		if n > 1 {
			excess = max(bit-caps[j], 0)
			bits[j] = bit - excess
			den := c * n
			if c == 2 && n > 2 && !a.dualStereo && j < a.intensity {
				den++
			}
			nClogN := den * (logN[j] + logM)
			offset := (nClogN >> 1) - den*fineOffset
			if n == 2 {
				offset += den << bitRes >> 2
			}
			if bits[j]+offset < den*2<<bitRes {
				offset += nClogN >> 2
			} else if bits[j]+offset < den*3<<bitRes {
				offset += nClogN >> 3
			}
			eb := max(0, bits[j]+offset+(den<<(bitRes-1)))
			eb = eb / den >> bitRes
			if c*eb > bits[j]>>bitRes {
				eb = bits[j] >> uint(stereo) >> bitRes
			}
			eb = min(eb, maxFineBits)
			a.fineQuant[j] = eb
			a.finePriority[j] = b2i(eb*(den<<bitRes) >= bits[j]+offset)
			bits[j] -= c * eb << bitRes
		} else {
			excess = max(0, bit-(c<<bitRes))
			bits[j] = bit - excess
			a.fineQuant[j] = 0
			a.finePriority[j] = 1
		}
		if excess > 0 {
			extraFine := min(excess>>uint(stereo+bitRes), maxFineBits-a.fineQuant[j])
			a.fineQuant[j] += extraFine
			extraBits := extraFine * c << bitRes
			a.finePriority[j] = b2i(extraBits >= excess-balance)
			excess -= extraBits
		}
		balance = excess
	}
	a.balance = balance
	for ; j < end; j++ {
		a.fineQuant[j] = bits[j] >> uint(stereo) >> bitRes
		bits[j] = 0
		a.finePriority[j] = b2i(a.fineQuant[j] < 1)
	}
	a.codedBands = codedBands
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
