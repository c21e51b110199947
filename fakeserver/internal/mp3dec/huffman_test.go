package mp3dec

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestCodeTablesComplete checks the transcribed Huffman tables: each is a complete prefix code
// (no code begins another and the Kraft sum is exactly 1) of the right size, so a mistyped
// length or value shows up here.
func TestCodeTablesComplete(t *testing.T) {
	t.Parallel()
	type table struct {
		name  string
		lens  []uint8
		codes []uint16
		size  int
	}
	var tables []table
	dims := map[int]int{1: 2, 2: 3, 3: 3, 5: 4, 6: 4, 7: 6, 8: 6, 9: 6, 10: 8, 11: 8, 12: 8, 13: 16, 15: 16, 16: 16, 24: 16}
	for n, c := range pairCodes {
		if dims[n] == 0 {
			if c.dim != 0 {
				t.Errorf("table %d has codes", n)
			}
			continue
		}
		if c.dim != dims[n] {
			t.Errorf("table %d is %d×%d, want %d×%d", n, c.dim, c.dim, dims[n], dims[n])
		}
		tables = append(tables, table{fmt.Sprint(n), c.lens, c.codes, dims[n] * dims[n]})
	}
	var codesA []uint16
	for _, c := range quadCodesA.codes {
		codesA = append(codesA, uint16(c))
	}
	tables = append(tables, table{"A", quadCodesA.lens[:], codesA, 16})
	for _, tb := range tables {
		if len(tb.lens) != tb.size || len(tb.codes) != tb.size {
			t.Errorf("table %s has %d lengths and %d codes, want %d", tb.name, len(tb.lens), len(tb.codes), tb.size)
			continue
		}
		// Kraft sum in units of 2^-32.
		var kraft uint64
		for i, l := range tb.lens {
			if l == 0 || l > 19 || uint32(tb.codes[i]) >= 1<<l {
				t.Errorf("table %s entry %d: code %d of %d bits", tb.name, i, tb.codes[i], l)
			}
			kraft += 1 << (32 - l)
			for j, m := range tb.lens {
				if i != j && m >= l && uint32(tb.codes[j])>>(m-l) == uint32(tb.codes[i]) {
					t.Errorf("table %s: code of entry %d begins the code of entry %d", tb.name, i, j)
				}
			}
		}
		if kraft != 1<<32 {
			t.Errorf("table %s: Kraft sum %v, want 1", tb.name, float64(kraft)/(1<<32))
		}
	}
}

// TestDecodePairRoundTrip encodes random pairs with each table's codes and decodes them with the
// lookup tables.
func TestDecodePairRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	for n, c := range pairCodes {
		if c.dim == 0 {
			continue
		}
		var bits []bool
		var want [][2]int
		for range 500 {
			x, y := rng.IntN(c.dim), rng.IntN(c.dim)
			want = append(want, [2]int{x, y})
			i := x*c.dim + y
			for b := int(c.lens[i]) - 1; b >= 0; b-- {
				bits = append(bits, c.codes[i]>>b&1 == 1)
			}
		}
		buf := make([]byte, (len(bits)+7)/8+readPadding)
		for i, b := range bits {
			if b {
				buf[i/8] |= 0x80 >> (i % 8)
			}
		}
		r := bitReader{buf: buf}
		for k, w := range want {
			x, y, ok := r.decodePair(&pairTables[n])
			if !ok || x != w[0] || y != w[1] {
				t.Fatalf("table %d pair %d: got (%d, %d, %v), want %v", n, k, x, y, ok, w)
			}
		}
		if r.pos != len(bits) {
			t.Fatalf("table %d: read %d bits, wrote %d", n, r.pos, len(bits))
		}
	}
}

// TestBitReaderPastTheEnd reads across and beyond the end of its slice: the bits there are
// zero and nothing panics, whatever a corrupt frame makes the decoder read.
func TestBitReaderPastTheEnd(t *testing.T) {
	t.Parallel()
	r := bitReader{buf: []byte{0xff, 0x0f}}
	if v := r.read(12); v != 0xff0 {
		t.Fatalf("read(12) = %#x, want 0xff0", v)
	}
	if v := r.read(8); v != 0xf0 {
		t.Fatalf("read(8) across the end = %#x, want 0xf0", v)
	}
	r.pos = 1000
	if v := r.read(32); v != 0 {
		t.Fatalf("read(32) past the end = %#x, want 0", v)
	}
	// A complete code decodes zero bits too; what matters is that the lookup stays in bounds
	// and consumes one code's length.
	before := r.pos
	if _, _, ok := r.decodePair(&pairTables[13]); !ok || r.pos-before < 1 || r.pos-before > 19 {
		t.Fatalf("decodePair past the end: ok %v, %d bits", ok, r.pos-before)
	}
}

// TestDecodeValuesEqualsStepwise checks the one-peek pair decoder against reading the code,
// linbits and sign bits one field at a time, for every table number on random bits.
func TestDecodeValuesEqualsStepwise(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	for tn := 1; tn < 32; tn++ {
		tab := &pairTables[codeTableOf(tn)]
		if tab.entries == nil {
			continue
		}
		linbits := linbitsOf[tn]
		buf := make([]byte, 512+readPadding)
		for i := range 512 {
			buf[i] = byte(rng.Uint32())
		}
		fast, slow := bitReader{buf: buf}, bitReader{buf: buf}
		for pair := 0; slow.pos < 512*8; pair++ {
			x, y, ok := fast.decodeValues(tab, linbits)
			wx, wy, wok := slow.decodePair(tab)
			if wok {
				if wx == 15 && linbits > 0 {
					wx += slow.read(linbits)
				}
				if wx != 0 && slow.read(1) == 1 {
					wx = -wx
				}
				if wy == 15 && linbits > 0 {
					wy += slow.read(linbits)
				}
				if wy != 0 && slow.read(1) == 1 {
					wy = -wy
				}
			}
			if x != wx || y != wy || ok != wok || fast.pos != slow.pos {
				t.Fatalf("table %d pair %d: got (%d, %d, %v) at bit %d, want (%d, %d, %v) at bit %d",
					tn, pair, x, y, ok, fast.pos, wx, wy, wok, slow.pos)
			}
			if !ok {
				break
			}
		}
	}
}
