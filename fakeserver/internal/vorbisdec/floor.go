package vorbisdec

import (
	"fmt"
	"math"
	"slices"
)

// The kernels marked //go:norace here touch only their own buffers: see imdct.go.

// floor is a floor configuration of the setup header, of type 0 or type 1.
type floor struct {
	kind int
	f0   *floor0
	f1   *floor1
}

// floor0 is a floor of type 0: an LSP curve (specification section 6).
type floor0 struct {
	order       int
	rate        int
	barkMapSize int
	ampBits     uint
	ampOffset   int
	books       []int
	// barkMap holds, per block size flag, the bark map of the curve (blocksize/2 + 1 values).
	barkMap [2][]int32
}

// floor1 is a floor of type 1: a piecewise linear curve in dB (specification section 7).
type floor1 struct {
	partitionClass []int
	classDims      []int
	classSubs      []uint
	classMaster    []int
	subBooks       [][]int // per class, 1<<subclasses books, -1 for none
	multiplier     int
	xs             []int // X list
	// Derived at setup: the X list in ascending order, and each post's neighbours.
	sorted []int // indexes of xs in ascending order of X
	low    []int
	high   []int
}

func readFloor(b *bitReader, books []*codebook, bs [2]int) (floor, error) {
	kind := int(b.read(16))
	switch kind {
	case 0:
		f, err := readFloor0(b, books, bs)
		return floor{kind: 0, f0: f}, err
	case 1:
		f, err := readFloor1(b, books)
		return floor{kind: 1, f1: f}, err
	}
	return floor{}, fmt.Errorf("%w: floor type %d", ErrCorrupt, kind)
}

func bark(x float64) float64 {
	return 13.1*math.Atan(0.00074*x) + 2.24*math.Atan(0.0000000185*x*x) + 0.0001*x
}

func readFloor0(b *bitReader, books []*codebook, bs [2]int) (*floor0, error) {
	f := &floor0{
		order:       int(b.read(8)),
		rate:        int(b.read(16)),
		barkMapSize: int(b.read(16)),
		ampBits:     uint(b.read(6)),
		ampOffset:   int(b.read(8)),
	}
	nbooks := int(b.read(4)) + 1
	for range nbooks {
		book := int(b.read(8))
		if book >= len(books) || books[book].vq == nil {
			return nil, fmt.Errorf("%w: floor 0 book %d", ErrCorrupt, book)
		}
		f.books = append(f.books, book)
	}
	if b.over || f.order < 1 || f.rate < 1 || f.barkMapSize < 1 || f.ampBits < 1 {
		return nil, fmt.Errorf("%w: bad floor 0 header", ErrCorrupt)
	}
	for flag, size := range bs {
		n := size / 2
		m := make([]int32, n+1)
		scale := float64(f.barkMapSize) / bark(0.5*float64(f.rate))
		for i := range n {
			v := int32(math.Floor(bark(float64(f.rate)*float64(i)/(2*float64(n))) * scale))
			m[i] = min(int32(f.barkMapSize-1), v)
		}
		m[n] = -1
		f.barkMap[flag] = m
	}
	return f, nil
}

func readFloor1(b *bitReader, books []*codebook) (*floor1, error) {
	f := &floor1{}
	partitions := int(b.read(5))
	maxClass := -1
	for range partitions {
		c := int(b.read(4))
		f.partitionClass = append(f.partitionClass, c)
		maxClass = max(maxClass, c)
	}
	bookOK := func(book int) bool { return book < len(books) }
	for range maxClass + 1 {
		dims := int(b.read(3)) + 1
		subs := uint(b.read(2))
		master := -1
		if subs > 0 {
			master = int(b.read(8))
			if !bookOK(master) {
				return nil, fmt.Errorf("%w: floor 1 master book %d", ErrCorrupt, master)
			}
		}
		sb := make([]int, 1<<subs)
		for k := range sb {
			sb[k] = int(b.read(8)) - 1
			if sb[k] >= 0 && !bookOK(sb[k]) {
				return nil, fmt.Errorf("%w: floor 1 book %d", ErrCorrupt, sb[k])
			}
		}
		f.classDims = append(f.classDims, dims)
		f.classSubs = append(f.classSubs, subs)
		f.classMaster = append(f.classMaster, master)
		f.subBooks = append(f.subBooks, sb)
	}
	f.multiplier = int(b.read(2)) + 1
	rangeBits := uint(b.read(4))
	f.xs = []int{0, 1 << rangeBits}
	for _, c := range f.partitionClass {
		for range f.classDims[c] {
			f.xs = append(f.xs, int(b.read(rangeBits)))
		}
	}
	if b.over {
		return nil, fmt.Errorf("%w: floor 1 header cut short", ErrCorrupt)
	}
	if len(f.xs) > 65 {
		return nil, fmt.Errorf("%w: floor 1 with %d posts (at most 65)", ErrCorrupt, len(f.xs))
	}
	f.sorted = make([]int, len(f.xs))
	for i := range f.sorted {
		f.sorted[i] = i
	}
	slices.SortStableFunc(f.sorted, func(a, b int) int { return f.xs[a] - f.xs[b] })
	for i := 1; i < len(f.sorted); i++ {
		if f.xs[f.sorted[i]] == f.xs[f.sorted[i-1]] {
			return nil, fmt.Errorf("%w: floor 1 X list repeats %d", ErrCorrupt, f.xs[f.sorted[i]])
		}
	}
	f.low = make([]int, len(f.xs))
	f.high = make([]int, len(f.xs))
	for i := 2; i < len(f.xs); i++ {
		lo, hi := 0, 1 // X[0] = 0 is below and X[1] = 2^rangeBits above every other post
		for j := range i {
			x := f.xs[j]
			if x < f.xs[i] && x > f.xs[lo] {
				lo = j
			}
			if x > f.xs[i] && x < f.xs[hi] {
				hi = j
			}
		}
		f.low[i], f.high[i] = lo, hi
	}
	return f, nil
}

// floor1Ranges are the Y ranges of the four floor 1 multipliers.
var floor1Ranges = [4]int{256, 128, 86, 64}

// decode reads the posts of one channel into ys and returns false when the floor is
// unused (the channel is silent) or the packet ends within it.
func (f *floor1) decode(b *bitReader, books []*codebook, ys []int) bool {
	if !b.flag() {
		return false
	}
	yRange := floor1Ranges[f.multiplier-1]
	w := ilog(uint32(yRange - 1))
	ys[0] = int(b.read(w))
	ys[1] = int(b.read(w))
	off := 2
	for _, class := range f.partitionClass {
		dims := f.classDims[class]
		subs := f.classSubs[class]
		mask := 1<<subs - 1
		cval := 0
		if subs > 0 {
			cval = books[f.classMaster[class]].decode(b)
			if cval < 0 {
				return false
			}
		}
		for j := range dims {
			book := f.subBooks[class][cval&mask]
			cval >>= subs
			if book < 0 {
				ys[off+j] = 0
				continue
			}
			v := books[book].decode(b)
			if v < 0 {
				return false
			}
			ys[off+j] = v
		}
		off += dims
	}
	return !b.over
}

// renderPoint is the specification's render_point: Y at x on the line between two posts.
func renderPoint(x0, y0, x1, y1, x int) int {
	dy := y1 - y0
	adx := x1 - x0
	ady := dy
	if ady < 0 {
		ady = -ady
	}
	off := ady * (x - x0) / adx
	if dy < 0 {
		return y0 - off
	}
	return y0 + off
}

// apply computes the floor 1 curve of one channel from its posts into out (blocksize/2
// values), multiplying out by it: out holds the residue on entry and the spectrum on return.
// final and step2 are scratch of len(xs).
func (f *floor1) apply(ys, final []int, step2 []bool, out []float32) {
	yRange := floor1Ranges[f.multiplier-1]
	final[0], final[1] = ys[0], ys[1]
	step2[0], step2[1] = true, true
	for i := 2; i < len(f.xs); i++ {
		lo, hi := f.low[i], f.high[i]
		predicted := renderPoint(f.xs[lo], final[lo], f.xs[hi], final[hi], f.xs[i])
		val := ys[i]
		highRoom := yRange - predicted
		lowRoom := predicted
		room := min(highRoom, lowRoom) * 2
		if val == 0 {
			step2[i] = false
			final[i] = predicted
			continue
		}
		step2[lo], step2[hi], step2[i] = true, true, true
		switch {
		case val >= room && highRoom > lowRoom:
			final[i] = val - lowRoom + predicted
		case val >= room:
			final[i] = predicted - val + highRoom - 1
		case val&1 == 1:
			final[i] = predicted - (val+1)/2
		default:
			final[i] = predicted + val/2
		}
	}
	n := len(out)
	lx, ly := 0, final[f.sorted[0]]*f.multiplier
	for _, i := range f.sorted[1:] {
		if !step2[i] {
			continue
		}
		hx, hy := f.xs[i], final[i]*f.multiplier
		if lx < n {
			renderLine(lx, ly, hx, hy, out)
		}
		lx, ly = hx, hy
	}
	if lx < n {
		g := inverseDB[clampDB(ly)]
		for i := lx; i < n; i++ {
			out[i] *= g
		}
	}
}

func clampDB(y int) int { return min(max(y, 0), 255) }

// renderLine is the specification's render_line, multiplying out[x] by the curve's amplitude
// for x from x0 up to x1 (not included) or the end of out.
//
//go:norace
func renderLine(x0, y0, x1, y1 int, out []float32) {
	dy := y1 - y0
	adx := x1 - x0
	if adx <= 0 {
		return
	}
	ady := dy
	if ady < 0 {
		ady = -ady
	}
	base := dy / adx
	sy := base + 1
	if dy < 0 {
		sy = base - 1
	}
	absBase := base
	if absBase < 0 {
		absBase = -absBase
	}
	ady -= absBase * adx
	end := min(x1, len(out))
	y := y0
	err := 0
	if y0 >= 0 && y0 <= 255 && y1 >= 0 && y1 <= 255 {
		// Every point of the line lies between its ends: no clamping.
		db := &inverseDB
		out[x0] *= db[uint8(y)]
		for x := x0 + 1; x < end; x++ {
			err += ady
			if err >= adx {
				err -= adx
				y += sy
			} else {
				y += base
			}
			out[x] *= db[uint8(y)]
		}
		return
	}
	out[x0] *= inverseDB[clampDB(y)]
	for x := x0 + 1; x < end; x++ {
		err += ady
		if err >= adx {
			err -= adx
			y += sy
		} else {
			y += base
		}
		out[x] *= inverseDB[clampDB(y)]
	}
}

// decode reads the LSP coefficients of one channel into coefs and returns the amplitude, or
// 0 when the floor is unused or the packet ends within it.
func (f *floor0) decode(b *bitReader, books []*codebook, coefs []float32) (int, bool) {
	amp := int(b.read(f.ampBits))
	if amp == 0 || b.over {
		return 0, false
	}
	bn := int(b.read(ilog(uint32(len(f.books)))))
	if bn >= len(f.books) || b.over {
		return 0, false
	}
	book := books[f.books[bn]]
	var last float32
	for i := 0; i < f.order; {
		e := book.decode(b)
		if e < 0 {
			return 0, false
		}
		for _, v := range book.vector(e) {
			if i < f.order {
				coefs[i] = v + last
			}
			i++
		}
		last = coefs[min(i, f.order)-1]
	}
	return amp, true
}

// apply multiplies out (blocksize/2 residue values) by the floor 0 curve.
func (f *floor0) apply(amp int, coefs []float32, long int, out []float32) {
	m := f.barkMap[long]
	n := len(out)
	var cosCoef [256]float64 // order is at most 255
	for j := range f.order {
		cosCoef[j] = math.Cos(float64(coefs[j]))
	}
	for i := 0; i < n; {
		w := math.Pi * float64(m[i]) / float64(f.barkMapSize)
		cw := math.Cos(w)
		var p, q float64
		if f.order%2 == 1 {
			p = 1 - cw*cw
			for j := 0; j <= (f.order-3)/2; j++ {
				d := cosCoef[2*j+1] - cw
				p *= 4 * d * d
			}
			q = 0.25
			for j := 0; j <= (f.order-1)/2; j++ {
				d := cosCoef[2*j] - cw
				q *= 4 * d * d
			}
		} else {
			p = (1 - cw) / 2
			q = (1 + cw) / 2
			for j := 0; j <= (f.order-2)/2; j++ {
				d := cosCoef[2*j+1] - cw
				p *= 4 * d * d
				d = cosCoef[2*j] - cw
				q *= 4 * d * d
			}
		}
		maxAmp := float64(int(1)<<f.ampBits - 1)
		v := float32(math.Exp(0.11512925 * (float64(amp)*float64(f.ampOffset)/(maxAmp*math.Sqrt(p+q)) - float64(f.ampOffset))))
		cond := m[i]
		for i < n && m[i] == cond {
			out[i] *= v
			i++
		}
	}
}
