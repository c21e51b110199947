package aacheader

// bitReader reads a header most significant bit first; reading past the end yields zero bits and
// sets overrun. The decoder has its own reader, with the Huffman decoding on it, for frames.
type bitReader struct {
	buf     []byte
	pos     int // in bits
	overrun bool
}

// peek returns the next n bits (n ≤ 32) without consuming them.
func (r *bitReader) peek(n uint) uint32 {
	var v uint32
	for i := range int(n) {
		p := r.pos + i
		v <<= 1
		if p>>3 < len(r.buf) {
			v |= uint32(r.buf[p>>3]>>(7-uint(p&7))) & 1
		}
	}
	return v
}

// skip consumes n bits.
func (r *bitReader) skip(n uint) {
	r.pos += int(n)
	if r.pos > len(r.buf)*8 {
		r.overrun = true
	}
}

// read consumes and returns the next n bits (n ≤ 32).
func (r *bitReader) read(n uint) uint32 {
	v := r.peek(n)
	r.skip(n)
	return v
}

// bit consumes one bit.
func (r *bitReader) bit() bool { return r.read(1) == 1 }

// left is the number of bits not yet read.
func (r *bitReader) left() int { return len(r.buf)*8 - r.pos }
