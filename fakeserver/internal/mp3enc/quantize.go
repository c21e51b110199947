package mp3enc

import (
	"math"

	"github.com/podqa/podqa-go/fakeserver/internal/mp3dec"
)

// The numeric kernels in this file are marked //go:norace (and //go:nocheckptr where math's
// unsafe bit conversions are inlined into them): they touch only their receiver's and arguments'
// buffers and tables written once by init, so the race detector's per-access calls would only
// slow them (most of the encoder's time under -race) without guarding anything. An Encoder is used
// by one goroutine, and every hand-off between goroutines happens outside these functions,
// where the detector still sees it.

// granuleCode is one granule of one channel, quantized and ready to write.
type granuleCode struct {
	ix          [granule]int32 // quantized magnitudes
	neg         [granule]bool
	part23      int
	bigValues   int
	globalGain  int
	tables      [3]int
	region0     int
	region1     int
	count1Table int
	count1End   int    // the line after the count1 region
	edges       [4]int // where the three big_values regions begin and end
	blockType   int
}

// quantize finds the finest global gain whose code fits budget bits.
//
//go:norace
//go:nocheckptr
func quantize(xr [granule]float64, budget int, bands *[23]int, short *[14]int, blockType int) granuleCode {
	var mag [granule]float64 // |xr|^(3/4), so that each trial gain costs a multiplication
	peak := 0.0
	for i, v := range xr {
		m := math.Abs(v)
		peak = max(peak, m)
		if m != 0 {
			mag[i] = math.Sqrt(m * math.Sqrt(m))
		}
	}
	g := granuleCode{blockType: blockType}
	for i, v := range xr {
		g.neg[i] = v < 0
	}
	if peak == 0 {
		g.globalGain = 210
		return g
	}
	// The smallest gain at which the largest value fits the tables: ix = (x/2^((gg-210)/4))^0.75.
	lo := int(math.Ceil(210 + 4*math.Log2(peak/math.Pow(maxIX, 4.0/3))))
	lo = max(lo, 0)
	hi := 255
	best := -1
	for lo <= hi {
		mid := (lo + hi) / 2
		trial := granuleCode{blockType: blockType, neg: g.neg}
		if trial.code(&mag, mid, bands, short) <= budget {
			best, hi = mid, mid-1
		} else {
			lo = mid + 1
		}
	}
	if best < 0 {
		best = 255
	}
	g.code(&mag, best, bands, short)
	return g
}

// code quantizes mag (the lines' magnitudes to the power 3/4) at gain gg, chooses regions and
// tables, and returns the bits the granule's Huffman data takes.
//
//go:norace
func (g *granuleCode) code(mag *[granule]float64, gg int, bands *[23]int, short *[14]int) int {
	g.globalGain = gg
	step := math.Exp2(-float64(gg-210) * 3 / 16) // 2^(-(gg-210)/4), to the power 3/4
	for i, m := range mag {
		v := m*step + 0.4054
		if v > maxIX {
			v = maxIX
		}
		g.ix[i] = int32(v)
	}
	// rzero, count1 and big_values regions, from the end.
	end := granule
	for end > 1 && g.ix[end-1] == 0 && g.ix[end-2] == 0 {
		end -= 2
	}
	g.count1End = end
	c1 := end
	for c1 >= 4 && g.ix[c1-1] <= 1 && g.ix[c1-2] <= 1 && g.ix[c1-3] <= 1 && g.ix[c1-4] <= 1 {
		c1 -= 4
	}
	g.bigValues = c1 / 2
	bits := g.count1Bits(c1)
	// Regions at band edges near a third and two thirds of the big values.
	bv := 2 * g.bigValues
	g.region0, g.region1 = 0, 0
	r0end, r1end := bv, bv
	switch {
	case g.blockType == blockShort: // two regions, the first the three lowest short bands
		r0end = min(3*short[3], bv)
	case g.blockType != blockLong: // start and stop blocks: the first eight long bands
		r0end = min(bands[8], bv)
	case bv > 0:
		b0 := bandAtOrAfter(bands, bv/3)
		b0 = min(max(b0, 1), 16)
		b1 := bandAtOrAfter(bands, 2*bv/3)
		b1 = min(max(b1, b0+1), b0+8, 22)
		g.region0 = b0 - 1
		g.region1 = b1 - b0 - 1
		r0end = min(bands[b0], bv)
		r1end = min(bands[b1], bv)
	}
	g.edges = [4]int{0, r0end, r1end, bv}
	for r := range 3 {
		t, n := bestTable(g.ix[g.edges[r]:g.edges[r+1]])
		g.tables[r] = t
		bits += n
	}
	g.part23 = bits
	return bits
}

// bandAtOrAfter returns the first band whose start is at or after line.
func bandAtOrAfter(bands *[23]int, line int) int {
	for b := 0; b < 22; b++ {
		if bands[b] >= line {
			return b
		}
	}
	return 22
}

// count1Bits chooses the count1 table for the quads from line c1 to count1End and returns their
// bits; the region is cut at count1End rounded up to a whole quad.
//
//go:norace
func (g *granuleCode) count1Bits(c1 int) int {
	a, b := 0, 0
	for i := c1; i < g.count1End; i += 4 {
		idx, signs := 0, 0
		for j := range 4 {
			v := int32(0)
			if i+j < granule {
				v = g.ix[i+j]
			}
			idx = idx<<1 | int(v)
			signs += int(v)
		}
		la, _ := mp3dec.QuadCodeA(idx)
		a += la + signs
		b += 4 + signs
	}
	if b < a {
		g.count1Table = 1
		return b
	}
	g.count1Table = 0
	return a
}

// pairTables are the tables tried for values up to 15, by the largest value they hold.
var pairTables = []int{1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15}

// bestTable returns the table coding vals in the fewest bits, and the bits.
//
//go:norace
func bestTable(vals []int32) (int, int) {
	if len(vals) == 0 {
		return 0, 0
	}
	var top int32
	for _, v := range vals {
		top = max(top, v)
	}
	if top == 0 {
		return 0, 0
	}
	bestT, bestN := 0, math.MaxInt
	try := func(t int) {
		if n := pairBits(vals, t); n < bestN {
			bestT, bestN = t, n
		}
	}
	if top <= 15 {
		for _, t := range pairTables {
			if size, _ := mp3dec.PairTableSize(t); int(top) < size {
				try(t)
			}
		}
		return bestT, bestN
	}
	need := 0
	for over := int(top) - 15; over > 0; over >>= 1 {
		need++
	}
	for _, family := range [2]int{16, 24} {
		for t := family; t < family+8; t++ {
			if _, lb := mp3dec.PairTableSize(t); lb >= need {
				try(t)
				break
			}
		}
	}
	return bestT, bestN
}

// pairBits counts the bits of vals coded in pairs with table t.
//
//go:norace
func pairBits(vals []int32, t int) int {
	_, linbits := mp3dec.PairTableSize(t)
	n := 0
	for i := 0; i < len(vals); i += 2 {
		x, y := int(vals[i]), 0
		if i+1 < len(vals) {
			y = int(vals[i+1])
		}
		cx, cy := min(x, 15), min(y, 15)
		l, _, _ := mp3dec.PairCode(t, cx, cy)
		n += l
		if x != 0 {
			n++
		}
		if y != 0 {
			n++
		}
		if linbits > 0 {
			if x >= 15 {
				n += linbits
			}
			if y >= 15 {
				n += linbits
			}
		}
	}
	return n
}

// write appends the granule's Huffman data.
//
//go:norace
func (g *granuleCode) write(w *bitWriter) {
	bv, edges := 2*g.bigValues, g.edges
	for r := range 3 {
		t := g.tables[r]
		if t == 0 {
			continue
		}
		_, linbits := mp3dec.PairTableSize(t)
		for i := edges[r]; i < edges[r+1]; i += 2 {
			x, y := int(g.ix[i]), int(g.ix[i+1])
			cx, cy := min(x, 15), min(y, 15)
			l, code, _ := mp3dec.PairCode(t, cx, cy)
			w.put(int(code), l)
			if linbits > 0 && x >= 15 {
				w.put(x-15, linbits)
			}
			if x != 0 {
				w.put(b2i(g.neg[i]), 1)
			}
			if linbits > 0 && y >= 15 {
				w.put(y-15, linbits)
			}
			if y != 0 {
				w.put(b2i(g.neg[i+1]), 1)
			}
		}
	}
	for i := bv; i < g.count1End; i += 4 {
		idx := 0
		for j := range 4 {
			idx = idx<<1 | int(g.ix[i+j])
		}
		if g.count1Table == 0 {
			l, code := mp3dec.QuadCodeA(idx)
			w.put(int(code), l)
		} else {
			w.put(15-idx, 4)
		}
		for j := range 4 {
			if g.ix[i+j] != 0 {
				w.put(b2i(g.neg[i+j]), 1)
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
