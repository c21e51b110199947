package audio

import "math"

const (
	absoluteGate  = -70.0 // LUFS
	relativeGate  = -10.0 // LU, integrated loudness
	lraGate       = -20.0 // LU, loudness range
	histBinsPerLU = 100
	histLow       = absoluteGate
	histPageSize  = 100
	histPages     = 100 // bins cover −70 to +30 LUFS; louder blocks share the top bin
)

// lufs converts a K-weighted, channel-weighted mean square to loudness.
func lufs(power float64) float64 {
	return -0.691 + 10*math.Log10(power)
}

// histogram counts block loudness values in 0.01 LU bins, keeping each bin's exact power sum.
// Pages of bins are allocated when first used, so memory is bounded and independent of duration.
type histogram struct {
	pages [histPages]*histPage
	n     uint64
	sum   float64
}

type histPage struct {
	n   [histPageSize]uint64
	sum [histPageSize]float64
}

func binOf(loudness float64) int {
	x := math.Floor((loudness - histLow) * histBinsPerLU)
	switch {
	case !(x >= 0): // also NaN
		return 0
	case x >= histPages*histPageSize:
		return histPages*histPageSize - 1
	}
	return int(x)
}

// add records a block of the given power; blocks at or below the absolute gate are ignored.
func (h *histogram) add(power float64) {
	l := lufs(power)
	if !(l > absoluteGate) || math.IsInf(power, 0) {
		return
	}
	b := binOf(l)
	p := h.pages[b/histPageSize]
	if p == nil {
		p = new(histPage)
		h.pages[b/histPageSize] = p
	}
	p.n[b%histPageSize]++
	p.sum[b%histPageSize] += power
	h.n++
	h.sum += power
}

// each calls fn for the non-empty bins from quietest to loudest, with their count and power sum.
func (h *histogram) each(fn func(bin int, n uint64, sum float64)) {
	for pi, p := range h.pages {
		if p == nil {
			continue
		}
		for i, n := range p.n {
			if n > 0 {
				fn(pi*histPageSize+i, n, p.sum[i])
			}
		}
	}
}

// gated returns, for blocks louder than threshold, their count and power sum. Blocks in the bin
// holding the threshold are kept or dropped together, by the loudness of their mean power.
func (h *histogram) gated(threshold float64) (n uint64, sum float64) {
	tb := -1
	if threshold >= histLow {
		tb = binOf(threshold)
	}
	h.each(func(b int, bn uint64, bs float64) {
		if b > tb || (b == tb && lufs(bs/float64(bn)) > threshold) {
			n += bn
			sum += bs
		}
	})
	return n, sum
}

// integrated is the BS.1770 gated loudness of the recorded 400 ms blocks, or −Inf.
func (h *histogram) integrated() float64 {
	if h.n == 0 {
		return math.Inf(-1)
	}
	n, sum := h.gated(lufs(h.sum/float64(h.n)) + relativeGate)
	if n == 0 {
		return math.Inf(-1)
	}
	return lufs(sum / float64(n))
}

// loudnessRange is the EBU Tech 3342 loudness range of the recorded 3 s blocks.
func (h *histogram) loudnessRange() float64 {
	if h.n == 0 {
		return 0
	}
	threshold := lufs(h.sum/float64(h.n)) + lraGate
	n, _ := h.gated(threshold)
	if n == 0 {
		return 0
	}
	lowRank := uint64(float64(n-1)*0.10 + 0.5)
	highRank := uint64(float64(n-1)*0.95 + 0.5)
	tb := binOf(threshold)
	var seen uint64
	var low, high float64
	h.each(func(b int, bn uint64, bs float64) {
		l := lufs(bs / float64(bn))
		if b < tb || (b == tb && !(l > threshold)) {
			return
		}
		if lowRank >= seen && lowRank < seen+bn {
			low = l
		}
		if highRank >= seen && highRank < seen+bn {
			high = l
		}
		seen += bn
	})
	return math.Max(0, high-low)
}

// blockGate turns a sequence of 100 ms sub-block energies into gating blocks: 400 ms blocks
// (integrated loudness) and, when shortTerm is set, 3 s blocks (loudness range), both every 100 ms.
// With shortTerm it also keeps every tenth 3 s block's loudness: the short-term series.
type blockGate struct {
	rate      int64
	shortTerm bool
	ring      [30]float64 // the latest sub-block energies, by index mod 30
	next      int64       // index of the next sub-block
	blocks    histogram
	short     *histogram
	series    ShortTermSeries
}

// ShortTermSeries is the short-term loudness of audio once a second (BS.1770 / EBU R128 short
// term: a 3 s window): value i is the loudness of the 3 s ending at 3+i seconds, in hundredths
// of a LU, or ShortTermGated where the window is at or under the absolute gate (−70 LUFS).
// Audio shorter than 3 s has none. It costs 2 bytes a second: 7,200 bytes an hour.
type ShortTermSeries []int16

// ShortTermGated marks a window of a ShortTermSeries at or under the absolute gate.
const ShortTermGated = math.MinInt16

// LUFS returns value i in LUFS, NaN where gated.
func (s ShortTermSeries) LUFS(i int) float64 {
	if s[i] == ShortTermGated {
		return math.NaN()
	}
	return float64(s[i]) / 100
}

// shortTermValue rounds a 3 s block's loudness to the series' hundredths of a LU.
func shortTermValue(power float64) int16 {
	l := lufs(power)
	if !(l > absoluteGate) {
		return ShortTermGated
	}
	return int16(math.Round(min(l, math.MaxInt16/100.0) * 100))
}

func newBlockGate(sampleRate int, shortTerm bool) *blockGate {
	g := &blockGate{rate: int64(sampleRate), shortTerm: shortTerm}
	if shortTerm {
		g.short = new(histogram)
	}
	return g
}

// boundary is the first frame of sub-block j: 100 ms sub-blocks, rounded to whole frames.
func boundary(j, sampleRate int64) int64 {
	return (j*sampleRate + 5) / 10
}

// add records the channel-weighted sum of squared K-weighted samples of the next sub-block.
func (g *blockGate) add(energy float64) {
	j := g.next
	g.ring[j%30] = energy
	g.next++
	if j >= 3 {
		e := g.ring[(j-3)%30] + g.ring[(j-2)%30] + g.ring[(j-1)%30] + g.ring[j%30]
		g.blocks.add(e / float64(boundary(j+1, g.rate)-boundary(j-3, g.rate)))
	}
	if g.shortTerm && j >= 29 {
		var e float64
		for i := j - 29; i <= j; i++ {
			e += g.ring[i%30]
		}
		power := e / float64(boundary(j+1, g.rate)-boundary(j-29, g.rate))
		g.short.add(power)
		if (j-29)%10 == 0 { // the window ends on a whole second
			g.series = append(g.series, shortTermValue(power))
		}
	}
}
