package flacdec

// crc8Table and crc16Table are the frame header's CRC-8 (polynomial x^8+x^2+x+1) and the frame's
// CRC-16 (x^16+x^15+x^2+1), both with initial value 0 and no reflection.
var (
	crc8Table  = makeCRC8Table()
	crc16Table = makeCRC16Table()
)

func makeCRC8Table() (t [256]uint8) {
	for i := range t {
		c := uint8(i)
		for range 8 {
			if c&0x80 != 0 {
				c = c<<1 ^ 0x07
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}

func makeCRC16Table() (t [8][256]uint16) {
	for i := range t[0] {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x8005
			} else {
				c <<= 1
			}
		}
		t[0][i] = c
	}
	// Slicing by 8: t[k][i] is the CRC of byte i followed by k zero bytes.
	for k := 1; k < 8; k++ {
		for i := range t[k] {
			p := t[k-1][i]
			t[k][i] = p<<8 ^ t[0][p>>8]
		}
	}
	return t
}

func crc8(b []byte) uint8 {
	var c uint8
	for _, v := range b {
		c = crc8Table[c^v]
	}
	return c
}

func crc16(b []byte) uint16 {
	t := &crc16Table
	var c uint16
	for len(b) >= 8 {
		c = t[7][b[0]^byte(c>>8)] ^ t[6][b[1]^byte(c)] ^ t[5][b[2]] ^ t[4][b[3]] ^
			t[3][b[4]] ^ t[2][b[5]] ^ t[1][b[6]] ^ t[0][b[7]]
		b = b[8:]
	}
	for _, v := range b {
		c = c<<8 ^ t[0][byte(c>>8)^v]
	}
	return c
}
