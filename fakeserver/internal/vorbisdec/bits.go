package vorbisdec

import "encoding/binary"

// bitReader reads a packet's bits least significant first, as Vorbis packs them. It keeps up
// to 64 bits in acc; reading past the end of the packet yields zero bits and sets over, which
// the decoder treats as the end-of-packet condition of the specification.
type bitReader struct {
	data []byte
	pos  int    // next byte of data to load into acc
	acc  uint64 // bits not yet consumed, the next one in bit 0
	n    uint   // number of valid bits in acc
	over bool   // a read went past the end of the packet
}

func (b *bitReader) reset(data []byte) {
	*b = bitReader{data: data}
}

// refill loads whole bytes into acc until it holds at least 57 bits or the packet ends.
func (b *bitReader) refill() {
	if b.pos+8 <= len(b.data) {
		// Bits of a byte loaded only in part are loaded again, at the same place, next time.
		b.acc |= binary.LittleEndian.Uint64(b.data[b.pos:]) << b.n
		adv := (63 - b.n) >> 3
		b.pos += int(adv)
		b.n += adv * 8
		return
	}
	for b.n <= 56 && b.pos < len(b.data) {
		b.acc |= uint64(b.data[b.pos]) << b.n
		b.pos++
		b.n += 8
	}
}

// read returns the next k bits (k at most 32) as an unsigned number.
func (b *bitReader) read(k uint) uint32 {
	if b.n < k {
		b.refill()
		if b.n < k {
			v := uint32(b.acc)
			b.acc, b.n, b.over = 0, 0, true
			return v & uint32(1<<k-1)
		}
	}
	v := uint32(b.acc & (1<<k - 1))
	b.acc >>= k
	b.n -= k
	return v
}

// flag reads one bit.
func (b *bitReader) flag() bool { return b.read(1) == 1 }

// ilog is the number of bits needed to write x (0 for 0), the specification's ilog.
func ilog(x uint32) uint {
	n := uint(0)
	for x > 0 {
		n++
		x >>= 1
	}
	return n
}
