package vorbisdec

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Bounds of a setup header. The format allows 2^24 entries per codebook and lookup tables of
// 2^24 × 65,535 values; libvorbis' setup headers (q -1 to 10, 8 to 96 kHz, up to 5.1) declare
// at most 13,411 entries in all, 6,561 in one codebook, and 61,254 vector values.
const (
	// MaxCodebookEntries is the most codebook entries a setup header may declare in all.
	MaxCodebookEntries = 1 << 18
	// MaxVQValues is the most vector values (entries × dimensions) the decoder expands the
	// lookup tables of a setup header into, in all.
	MaxVQValues = 1 << 20
)

// fastBits is the width of a codebook's first lookup table: codes of up to fastBits bits
// decode with one table read.
const fastBits = 10

// codebook is one decoded codebook of the setup header.
type codebook struct {
	dims    int
	entries int
	// fast maps the next fastBits bits of the packet to entry<<6 | length, or 0 when the code
	// is longer (or no code starts with those bits).
	fast     []uint32
	fastMask uint64
	// longCodes holds the codes longer than fastBits, left-aligned in 32 bits and sorted, with
	// their entries and lengths; a code is found by binary search.
	longCodes []uint32
	longSyms  []int32
	longLens  []uint8
	// single is the entry of a codebook that has just one used entry (its length in singleLen),
	// or -1.
	single    int32
	singleLen uint
	// vq holds dims values per entry when the codebook has a lookup table (lookup > 0).
	lookup int
	vq     []float32
}

// float32Unpack reads the specification's 32-bit float packing.
func float32Unpack(x uint32) float32 {
	mantissa := float64(x & 0x1fffff)
	if x&0x80000000 != 0 {
		mantissa = -mantissa
	}
	exponent := int((x & 0x7fe00000) >> 21)
	return float32(math.Ldexp(mantissa, exponent-788))
}

// isInf32 reports whether x is infinite (float32Unpack never gives NaN).
func isInf32(x float32) bool { return math.IsInf(float64(x), 0) }

// lookup1Values is the greatest r with r^dims <= entries.
func lookup1Values(entries, dims int) int {
	r := int(math.Floor(math.Pow(float64(entries), 1/float64(dims))))
	pow := func(r int) (int, bool) { // r^dims, and whether it is at most entries
		p := 1
		for range dims {
			p *= r
			if p > entries {
				return p, false
			}
		}
		return p, true
	}
	for r > 0 {
		if _, ok := pow(r); ok {
			break
		}
		r--
	}
	for {
		if _, ok := pow(r + 1); !ok {
			return r
		}
		r++
	}
}

// setupBudget counts the work of reading a setup header against its bounds.
type setupBudget struct {
	entries  int // codebook entries declared so far
	vqValues int // vector values expanded so far
}

// readCodebook reads one codebook (specification section 3.2.1).
func readCodebook(b *bitReader, budget *setupBudget) (*codebook, error) {
	if b.read(24) != 0x564342 {
		return nil, fmt.Errorf("%w: bad codebook sync pattern", ErrCorrupt)
	}
	c := &codebook{dims: int(b.read(16)), entries: int(b.read(24)), single: -1}
	budget.entries += c.entries
	if budget.entries > MaxCodebookEntries {
		return nil, fmt.Errorf("%w: %d codebook entries (at most %d)", ErrTooLarge, budget.entries, MaxCodebookEntries)
	}
	lengths := make([]uint8, c.entries)
	if b.flag() { // ordered
		length := int(b.read(5)) + 1
		for cur := 0; cur < c.entries; {
			num := int(b.read(ilog(uint32(c.entries - cur))))
			if b.over || length > 32 || cur+num > c.entries {
				return nil, fmt.Errorf("%w: bad ordered codebook lengths", ErrCorrupt)
			}
			for i := cur; i < cur+num; i++ {
				lengths[i] = uint8(length)
			}
			cur += num
			length++
		}
	} else {
		sparse := b.flag()
		for i := range lengths {
			if !sparse || b.flag() {
				lengths[i] = uint8(b.read(5) + 1)
			}
			if b.over {
				return nil, fmt.Errorf("%w: codebook cut short", ErrCorrupt)
			}
		}
	}
	c.lookup = int(b.read(4))
	switch c.lookup {
	case 0:
	case 1, 2:
		if err := c.readLookup(b, lengths, budget); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: codebook lookup type %d", ErrCorrupt, c.lookup)
	}
	if b.over {
		return nil, fmt.Errorf("%w: codebook cut short", ErrCorrupt)
	}
	// The tree is built last, so that a lookup table over the bounds is refused first.
	if err := c.buildHuffman(lengths); err != nil {
		return nil, err
	}
	return c, nil
}

// readLookup reads the vector lookup table and expands it into dims values per used entry.
func (c *codebook) readLookup(b *bitReader, lengths []uint8, budget *setupBudget) error {
	minimum := float32Unpack(b.read(32))
	delta := float32Unpack(b.read(32))
	if isInf32(minimum) || isInf32(delta) {
		return fmt.Errorf("%w: lookup table values beyond float range", ErrCorrupt)
	}
	valueBits := uint(b.read(4)) + 1
	sequence := b.flag()
	if c.dims == 0 {
		return fmt.Errorf("%w: a vector codebook of no dimensions", ErrCorrupt)
	}
	var nvalues int
	if c.lookup == 1 {
		nvalues = lookup1Values(c.entries, c.dims)
	} else {
		if c.entries > (len(b.data)*8+64)/c.dims {
			return fmt.Errorf("%w: lookup table larger than its packet", ErrCorrupt)
		}
		nvalues = c.entries * c.dims
	}
	// Every value takes valueBits of the packet; refuse before allocating what it cannot hold.
	if nvalues > (len(b.data)*8+64)/int(valueBits) {
		return fmt.Errorf("%w: lookup table larger than its packet", ErrCorrupt)
	}
	budget.vqValues += c.entries * c.dims
	if budget.vqValues > MaxVQValues {
		return fmt.Errorf("%w: lookup tables of over %d values", ErrTooLarge, MaxVQValues)
	}
	mult := make([]float32, nvalues)
	for i := range mult {
		mult[i] = float32(b.read(valueBits))
	}
	if b.over {
		return fmt.Errorf("%w: lookup table cut short", ErrCorrupt)
	}
	c.vq = make([]float32, c.entries*c.dims)
	for e, l := range lengths {
		if l == 0 {
			continue
		}
		v := c.vq[e*c.dims : (e+1)*c.dims]
		var last float32
		if c.lookup == 1 {
			div := 1
			for i := range v {
				off := (e / div) % nvalues
				v[i] = mult[off]*delta + minimum + last
				if sequence {
					last = v[i]
				}
				div *= nvalues
			}
		} else {
			for i := range v {
				v[i] = mult[e*c.dims+i]*delta + minimum + last
				if sequence {
					last = v[i]
				}
			}
		}
	}
	return nil
}

// buildHuffman assigns the codewords of the entries from their lengths (specification
// section 3.2.1: each entry takes the lowest free codeword of its length, in entry order)
// and builds the lookup tables.
func (c *codebook) buildHuffman(lengths []uint8) error {
	used := 0
	maxLen := 0
	for e, l := range lengths {
		if l > 0 {
			used++
			c.single = int32(e)
			c.singleLen = uint(l)
			maxLen = max(maxLen, int(l))
		}
	}
	if used != 1 {
		c.single = -1
	}
	if used <= 1 {
		return nil
	}
	tableBits := min(maxLen, fastBits)
	c.fast = make([]uint32, 1<<tableBits)
	c.fastMask = 1<<tableBits - 1
	codes := make([]uint32, len(lengths))
	var avail [33]uint32 // avail[i]: the free codeword of length i, left-aligned, or 0
	first := true
	for e, l := range lengths {
		if l == 0 {
			continue
		}
		z := int(l)
		if first {
			first = false
			codes[e] = 0
			for i := 1; i <= z; i++ {
				avail[i] = 1 << (32 - i)
			}
			continue
		}
		top := z
		for top > 0 && avail[top] == 0 {
			top--
		}
		if top == 0 {
			return fmt.Errorf("%w: codebook lengths overspecify its Huffman tree", ErrCorrupt)
		}
		code := avail[top]
		avail[top] = 0
		codes[e] = code
		for i := top + 1; i <= z; i++ {
			avail[i] = code + 1<<(32-i)
		}
	}
	nlong := 0
	for e, l := range lengths {
		if l == 0 {
			continue
		}
		if int(l) > tableBits {
			nlong++
			continue
		}
		rev := bits.Reverse32(codes[e])
		for j := rev; j < 1<<tableBits; j += 1 << l {
			c.fast[j] = uint32(e)<<6 | uint32(l)
		}
	}
	if nlong == 0 {
		return nil
	}
	order := make([]int32, 0, nlong)
	for e, l := range lengths {
		if int(l) > tableBits {
			order = append(order, int32(e))
		}
	}
	slices.SortFunc(order, func(a, b int32) int {
		if codes[a] < codes[b] {
			return -1
		}
		if codes[a] > codes[b] {
			return 1
		}
		return 0
	})
	c.longCodes = make([]uint32, nlong)
	c.longSyms = make([]int32, nlong)
	c.longLens = make([]uint8, nlong)
	for i, e := range order {
		c.longCodes[i] = codes[e]
		c.longSyms[i] = e
		c.longLens[i] = lengths[e]
	}
	return nil
}

// decode reads one codeword and returns its entry, or -1 at the end of the packet or for
// bits that start no codeword.
func (c *codebook) decode(b *bitReader) int {
	if b.n < 32 {
		b.refill()
	}
	if c.fast == nil {
		if c.single < 0 {
			return -1
		}
		// One used entry: its codeword is the only one, and reading it takes its length.
		b.read(c.singleLen)
		if b.over {
			return -1
		}
		return int(c.single)
	}
	if e := c.fast[b.acc&c.fastMask]; e != 0 {
		l := uint(e & 63)
		if l > b.n {
			b.acc, b.n, b.over = 0, 0, true
			return -1
		}
		b.acc >>= l
		b.n -= l
		return int(e >> 6)
	}
	return c.decodeLong(b)
}

// decodeLong finds a codeword longer than the first table's width.
func (c *codebook) decodeLong(b *bitReader) int {
	rev := bits.Reverse32(uint32(b.acc))
	// The codeword is the greatest code not above the next 32 bits read as a left-aligned number.
	i, found := slices.BinarySearch(c.longCodes, rev)
	if !found {
		i--
	}
	if i < 0 {
		return -1
	}
	l := uint(c.longLens[i])
	if (rev^c.longCodes[i])>>(32-l) != 0 {
		return -1
	}
	if l > b.n {
		b.acc, b.n, b.over = 0, 0, true
		return -1
	}
	b.acc >>= l
	b.n -= l
	return int(c.longSyms[i])
}

// vector returns the values of an entry of a codebook with a lookup table.
func (c *codebook) vector(e int) []float32 {
	return c.vq[e*c.dims : (e+1)*c.dims]
}
