package mp3dec

import "encoding/binary"

// The kernels marked //go:norace here touch only their own buffers: see filterbank.go.

// bitReader reads a byte slice as a big-endian bit stream. The bit stream's owner keeps zero
// padding after the data, and callers bound pos against the data's end themselves; reading
// past the slice gives zero bits, never a panic.
type bitReader struct {
	buf []byte // data and padding
	pos int    // in bits
}

// peek returns the next n bits (n ≤ 32) without consuming them.
func (r *bitReader) peek(n int) uint32 {
	i := r.pos >> 3
	if i+8 > len(r.buf) {
		return r.peekSlow(n)
	}
	v := binary.BigEndian.Uint64(r.buf[i:])
	return uint32((v << (r.pos & 7)) >> (64 - n))
}

// peekSlow is peek near or past the end of the slice, with zeros beyond it.
func (r *bitReader) peekSlow(n int) uint32 {
	var b [8]byte
	if i := r.pos >> 3; i < len(r.buf) {
		copy(b[:], r.buf[i:])
	}
	v := binary.BigEndian.Uint64(b[:])
	return uint32((v << (r.pos & 7)) >> (64 - n))
}

// read consumes and returns the next n bits (n ≤ 32); read(0) is 0.
func (r *bitReader) read(n int) int {
	if n == 0 {
		return 0
	}
	v := r.peek(n)
	r.pos += n
	return int(v)
}

// Lookup tables decode a Huffman code from the next bits: the first level is indexed by the
// next rootBits bits; codes longer than that continue in a second-level table indexed by the
// bits after them. An entry is a leaf (x, y and the code's length), a link to a second-level
// table, or 0 for bits that start no code.
const (
	rootBits = 9
	leafFlag = 1 << 31
)

// Entry layout. Leaf: leafFlag | length<<16 | x<<8 | y. Link: offset<<8 | bits of the second
// level (offset into the same slice).
type huffTable struct {
	entries []uint32
	root    int // bits indexing the first level
}

// pairTables are the decoding tables of the pair code tables, by table number (0–24; unused
// numbers are empty).
var pairTables = func() (t [25]huffTable) {
	for n, c := range pairCodes {
		if c.dim == 0 {
			continue
		}
		t[n] = buildHuffTable(c.dim, c.lens, c.codes)
	}
	return t
}()

// quadTableA decodes count1 table A: indexed by the next 6 bits, an entry is length<<4 | index.
var quadTableA = func() (t [64]uint8) {
	for i := range 16 {
		l := int(quadCodesA.lens[i])
		first := int(quadCodesA.codes[i]) << (6 - l)
		for j := range 1 << (6 - l) {
			t[first+j] = uint8(l<<4 | i)
		}
	}
	return t
}()

// buildHuffTable builds the two-level lookup of a code table whose entry x·dim+y codes (x, y).
func buildHuffTable(dim int, lens []uint8, codes []uint16) huffTable {
	maxLen := 0
	for _, l := range lens {
		maxLen = max(maxLen, int(l))
	}
	root := min(rootBits, maxLen)
	t := huffTable{root: root, entries: make([]uint32, 1<<root)}
	// The longest code under each root prefix sizes its second level.
	subBits := map[int]int{}
	for i, l := range lens {
		if int(l) > root {
			p := int(codes[i]) >> (int(l) - root)
			subBits[p] = max(subBits[p], int(l)-root)
		}
	}
	for p := range 1 << root {
		if b, ok := subBits[p]; ok {
			t.entries[p] = uint32(len(t.entries))<<8 | uint32(b)
			t.entries = append(t.entries, make([]uint32, 1<<b)...)
		}
	}
	for i, l8 := range lens {
		l := int(l8)
		leaf := leafFlag | uint32(l)<<16 | uint32(i/dim)<<8 | uint32(i%dim)
		code := int(codes[i])
		if l <= root {
			first := code << (root - l)
			for j := range 1 << (root - l) {
				t.entries[first+j] = leaf
			}
			continue
		}
		link := t.entries[code>>(l-root)]
		off, b := int(link>>8), int(link&0xff)
		rest := code & (1<<(l-root) - 1) // the bits after the root prefix
		first := rest << (b - (l - root))
		for j := range 1 << (b - (l - root)) {
			t.entries[off+first+j] = leaf
		}
	}
	return t
}

// decodePair reads one code of t, returning x, y and false when the bits start no code.
//
//go:norace
func (r *bitReader) decodePair(t *huffTable) (x, y int, ok bool) {
	e := t.entries[r.peek(t.root)]
	if e&leafFlag == 0 {
		if e == 0 {
			return 0, 0, false
		}
		off, b := int(e>>8), int(e&0xff)
		r.pos += t.root
		e = t.entries[off+int(r.peek(b))]
		if e == 0 {
			return 0, 0, false
		}
		r.pos -= t.root
	}
	r.pos += int(e >> 16 & 0x1f)
	return int(e >> 8 & 0xff), int(e & 0xff), true
}

// decodeValues reads one pair of big_values: the code of t, then for each of x and y its
// linbits (when it is 15 and the table has them) and its sign bit (when it is not 0). It
// returns false when the bits start no code. Without linbits to read, the code and both sign
// bits (at most 19 + 2 bits) come from one peek.
//
//go:norace
func (r *bitReader) decodeValues(t *huffTable, linbits int) (x, y int, ok bool) {
	v := r.peek(32)
	e := t.entries[v>>(32-t.root)]
	if e&leafFlag == 0 {
		if e == 0 {
			return 0, 0, false
		}
		off, b := int(e>>8), e&0xff
		e = t.entries[off+int(v<<t.root>>(32-b))]
		if e == 0 {
			return 0, 0, false
		}
	}
	n := int(e >> 16 & 0x1f)
	x, y = int(e>>8&0xff), int(e&0xff)
	if linbits > 0 && (x == 15 || y == 15) {
		r.pos += n
		if x == 15 {
			x += r.read(linbits)
		}
		if x != 0 && r.read(1) == 1 {
			x = -x
		}
		if y == 15 {
			y += r.read(linbits)
		}
		if y != 0 && r.read(1) == 1 {
			y = -y
		}
		return x, y, true
	}
	rest := v << n // the sign bits follow the code
	if x != 0 {
		s := int(rest >> 31)
		x = (x ^ -s) + s
		rest <<= 1
		n++
	}
	if y != 0 {
		s := int(rest >> 31)
		y = (y ^ -s) + s
		n++
	}
	r.pos += n
	return x, y, true
}
