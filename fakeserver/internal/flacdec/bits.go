package flacdec

import (
	"encoding/binary"
	"math/bits"
)

// bitReader reads bits most significant first from buf. cache holds the next bits left-aligned:
// its top n bits are unread, and the bits below them are either the stream's following bits or
// zeros, so counting leading zeros may look past n and stay right whenever it ends within n.
type bitReader struct {
	buf   []byte
	pos   int // next byte of buf to load
	cache uint64
	n     uint
}

// refill tops the cache up to at least 57 bits when 8 bytes remain in buf, else byte by byte as
// far as buf goes.
func (b *bitReader) refill() {
	if b.pos+8 <= len(b.buf) {
		b.cache |= binary.BigEndian.Uint64(b.buf[b.pos:]) >> b.n
		k := (63 - b.n) >> 3
		b.pos += int(k)
		b.n += k << 3
		return
	}
	for b.n <= 56 && b.pos < len(b.buf) {
		b.cache |= uint64(b.buf[b.pos]) << (56 - b.n)
		b.pos++
		b.n += 8
	}
}

// take consumes k bits (k ≤ n, k ≤ 32) and returns them.
func (b *bitReader) take(k uint) uint32 {
	v := b.cache >> (64 - k) // k = 0 gives 0: Go's shifts by 64 or more yield 0
	b.cache <<= k
	b.n -= k
	return uint32(v)
}

// bytePos is the offset in buf of the next unread byte; the reader must be at a byte boundary.
func (b *bitReader) bytePos() int { return b.pos - int(b.n>>3) }

// align drops the bits up to the next byte boundary.
func (b *bitReader) align() {
	k := b.n & 7
	b.cache <<= k
	b.n -= k
}

// leadingZeros counts the zero bits before the first one bit in the cache, possibly past n.
func (b *bitReader) leadingZeros() uint { return uint(bits.LeadingZeros64(b.cache)) }
