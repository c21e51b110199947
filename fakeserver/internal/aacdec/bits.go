package aacdec

import "encoding/binary"

// bitReader reads a frame most significant bit first. Reading past the end yields zero bits
// and sets overrun, which the decoder checks where a frame's parts end: a frame that claims
// more bits than it has is corrupt, whatever the zeros decoded to.
type bitReader struct {
	buf     []byte
	pos     int // in bits
	overrun bool
}

// peek returns the next n bits (n ≤ 32) without consuming them.
func (r *bitReader) peek(n uint) uint32 {
	i := r.pos >> 3
	var w uint64
	if i+8 <= len(r.buf) {
		w = binary.BigEndian.Uint64(r.buf[i:])
	} else {
		for k := range 8 {
			w <<= 8
			if i+k < len(r.buf) {
				w |= uint64(r.buf[i+k])
			}
		}
	}
	return uint32(w << uint(r.pos&7) >> (64 - n))
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
	if n == 0 {
		return 0
	}
	v := r.peek(n)
	r.skip(n)
	return v
}

// bit consumes one bit.
func (r *bitReader) bit() bool { return r.read(1) == 1 }

// align skips to the next byte boundary.
func (r *bitReader) align() { r.skip(uint(-r.pos & 7)) }
