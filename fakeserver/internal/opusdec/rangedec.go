package opusdec

import "math/bits"

// rangeDecoder is the entropy decoder of RFC 6716 section 4.1: range-coded symbols read from
// the front of a frame and raw bits read from its back. Reads past either end give zeros and
// never fail; the caller compares tell() with the frame's size.
type rangeDecoder struct {
	buf        []byte
	offs       int // next byte read from the front
	endOffs    int // bytes read from the back
	endWindow  uint32
	nendBits   int
	nbitsTotal int
	rng        uint32
	val        uint32
	ext        uint32
	rem        int
}

const (
	codeBits  = 32
	symBits   = 8
	codeTop   = 1 << (codeBits - 1)
	codeBot   = codeTop >> symBits
	codeExtra = (codeBits-2)%symBits + 1
	bitRes    = 3 // allocation works in 1/8 bits
)

// ilog is the number of bits needed to write v (0 for 0).
func ilog(v uint32) int { return bits.Len32(v) }

func (d *rangeDecoder) init(buf []byte) {
	*d = rangeDecoder{buf: buf}
	d.nbitsTotal = codeBits + 1 - ((codeBits-codeExtra)/symBits)*symBits
	d.rng = 1 << codeExtra
	d.rem = d.readByte()
	d.val = d.rng - 1 - uint32(d.rem>>(symBits-codeExtra))
	d.normalize()
}

func (d *rangeDecoder) readByte() int {
	if d.offs < len(d.buf) {
		b := d.buf[d.offs]
		d.offs++
		return int(b)
	}
	return 0
}

func (d *rangeDecoder) readByteFromEnd() uint32 {
	if d.endOffs < len(d.buf) {
		d.endOffs++
		return uint32(d.buf[len(d.buf)-d.endOffs])
	}
	return 0
}

func (d *rangeDecoder) normalize() {
	for d.rng <= codeBot {
		d.nbitsTotal += symBits
		d.rng <<= symBits
		sym := d.rem
		d.rem = d.readByte()
		sym = (sym<<symBits | d.rem) >> (symBits - codeExtra)
		d.val = ((d.val << symBits) + uint32(255&^sym)) & (codeTop - 1)
	}
}

// decode returns the cumulative frequency of the next symbol in a total of ft; update must follow.
func (d *rangeDecoder) decode(ft uint32) uint32 {
	d.ext = d.rng / ft
	s := d.val / d.ext
	return ft - min(s+1, ft)
}

// decodeBin is decode with ft = 1<<b.
func (d *rangeDecoder) decodeBin(b uint) uint32 {
	d.ext = d.rng >> b
	s := d.val / d.ext
	return (1 << b) - min(s+1, 1<<b)
}

func (d *rangeDecoder) update(fl, fh, ft uint32) {
	s := d.ext * (ft - fh)
	d.val -= s
	if fl > 0 {
		d.rng = d.ext * (fh - fl)
	} else {
		d.rng -= s
	}
	d.normalize()
}

// bitLogp decodes a bit whose probability of being 1 is 1/2^logp.
func (d *rangeDecoder) bitLogp(logp uint) bool {
	r := d.rng
	v := d.val
	s := r >> logp
	one := v < s
	if !one {
		d.val = v - s
		d.rng = r - s
	} else {
		d.rng = s
	}
	d.normalize()
	return one
}

// icdf decodes a symbol with an inverse cumulative table of total 1<<ftb.
func (d *rangeDecoder) icdf(table []uint8, ftb uint) int {
	s := d.rng
	v := d.val
	r := s >> ftb
	k := -1
	var t uint32
	for {
		k++
		t = s
		s = r * uint32(table[k])
		if v >= s || k == len(table)-1 {
			break
		}
	}
	d.val = v - s
	d.rng = t - s
	d.normalize()
	return k
}

// uint decodes a value uniform in [0, ft).
func (d *rangeDecoder) uint(ft uint32) uint32 {
	ft--
	ftb := ilog(ft)
	if ftb > 8 {
		ftb -= 8
		ft1 := (ft >> uint(ftb)) + 1
		s := d.decode(ft1)
		d.update(s, s+1, ft1)
		t := s<<uint(ftb) | d.bits(uint(ftb))
		if t <= ft {
			return t
		}
		return ft // corrupt: RFC 6716 4.1.5 saturates
	}
	ft++
	s := d.decode(ft)
	d.update(s, s+1, ft)
	return s
}

// bits reads n raw bits (n <= 24) from the back of the frame.
func (d *rangeDecoder) bits(n uint) uint32 {
	window := d.endWindow
	avail := d.nendBits
	if avail < int(n) {
		for avail <= 32-symBits {
			window |= d.readByteFromEnd() << uint(avail)
			avail += symBits
		}
	}
	ret := window & (1<<n - 1)
	window >>= n
	avail -= int(n)
	d.endWindow = window
	d.nendBits = avail
	d.nbitsTotal += int(n)
	return ret
}

// tell is the number of bits read so far, rounded up.
func (d *rangeDecoder) tell() int { return d.nbitsTotal - ilog(d.rng) }

// tellFrac is tell in 1/8 bits.
func (d *rangeDecoder) tellFrac() int {
	nbits := d.nbitsTotal << bitRes
	l := ilog(d.rng)
	r := d.rng >> uint(l-16)
	for i := bitRes; i > 0; i-- {
		r = r * r >> 15
		b := int(r >> 16)
		l = l<<1 | b
		r >>= uint(b)
	}
	return nbits - l
}
