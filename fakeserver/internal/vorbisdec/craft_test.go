package vorbisdec

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// bitWriter packs bits least significant first, as Vorbis does.
type bitWriter struct {
	buf []byte
	n   uint // bits written
}

func (w *bitWriter) put(v uint64, bits uint) {
	for i := range bits {
		if w.n%8 == 0 {
			w.buf = append(w.buf, 0)
		}
		if v>>i&1 == 1 {
			w.buf[len(w.buf)-1] |= 1 << (w.n % 8)
		}
		w.n++
	}
}

func (w *bitWriter) bytes(s string) {
	for i := range len(s) {
		w.put(uint64(s[i]), 8)
	}
}

// craftBook is a codebook to write into a crafted setup header.
type craftBook struct {
	dims    int
	lengths []int // 0 for an unused entry (the book is then written sparse)
	lookup  int   // 0, 1 or 2; the values are 0, 1, 2… with minimum 0 and delta 1
	// ordered writes entries lengths of one run: all entries of length lengths[0].
	ordered bool
	entries int // with ordered, the number of entries
	// delta is the packed delta of the lookup table; 0 writes 1.
	delta uint64
}

func (c craftBook) write(w *bitWriter) {
	w.put(0x564342, 24)
	w.put(uint64(c.dims), 16)
	entries := len(c.lengths)
	if c.ordered {
		entries = c.entries
	}
	w.put(uint64(entries), 24)
	switch {
	case c.ordered:
		w.put(1, 1)
		w.put(uint64(c.lengths[0]-1), 5)
		w.put(uint64(entries), ilog(uint32(entries)))
	case slices.Contains(c.lengths, 0):
		w.put(0, 1)
		w.put(1, 1) // sparse
		for _, l := range c.lengths {
			if l == 0 {
				w.put(0, 1)
				continue
			}
			w.put(1, 1)
			w.put(uint64(l-1), 5)
		}
	default:
		w.put(0, 1)
		w.put(0, 1)
		for _, l := range c.lengths {
			w.put(uint64(l-1), 5)
		}
	}
	w.put(uint64(c.lookup), 4)
	if c.lookup == 0 {
		return
	}
	delta := c.delta
	if delta == 0 {
		delta = 788<<21 | 1 // 1
	}
	w.put(0, 32) // minimum 0
	w.put(delta, 32)
	w.put(3, 4)           // 4-bit values
	w.put(0, 1)           // not a sequence
	n := entries * c.dims // lookup type 2
	if c.lookup == 1 {
		n = lookup1Values(entries, c.dims)
	}
	for i := range n {
		w.put(uint64(i%16), 4)
	}
}

// craft describes a crafted stream: the codebooks, one floor 1, one residue, one mapping
// (coupling channels 0 and 1 when there are two) and a short and a long mode.
type craft struct {
	channels  int
	books     []craftBook
	floorXs   []int // the posts after X = 0 and 256, read with floorBook
	floorBook int
	resType   int
	resBegin  int
	resEnd    int
	resPSize  int
	classBook int
	resBook   int
}

// basicBook is a one-dimensional book of two one-bit codes with the values 0 and 1.
var basicBook = craftBook{dims: 1, lengths: []int{1, 1}, lookup: 1}

func (c craft) ident() Info {
	return Info{Channels: c.channels, SampleRate: 8000, BlockSizes: [2]int{256, 2048}}
}

func (c craft) setup() []byte {
	var w bitWriter
	w.put(5, 8)
	w.bytes("vorbis")
	w.put(uint64(len(c.books)-1), 8)
	for _, b := range c.books {
		b.write(&w)
	}
	w.put(0, 6) // one time-domain transform
	w.put(0, 16)
	w.put(0, 6) // one floor, of type 1
	w.put(1, 16)
	if len(c.floorXs) > 0 {
		w.put(1, 5) // one partition of class 0
		w.put(0, 4)
		w.put(uint64(len(c.floorXs)-1), 3) // class 0: dimensions
		w.put(0, 2)                        // no subclasses
		w.put(uint64(c.floorBook+1), 8)
	} else {
		w.put(0, 5)
	}
	w.put(0, 2) // multiplier 1
	w.put(8, 4) // range bits: X up to 256
	for _, x := range c.floorXs {
		w.put(uint64(x), 8)
	}
	w.put(0, 6) // one residue
	w.put(uint64(c.resType), 16)
	w.put(uint64(c.resBegin), 24)
	w.put(uint64(c.resEnd), 24)
	w.put(uint64(c.resPSize-1), 24)
	w.put(0, 6) // one classification
	w.put(uint64(c.classBook), 8)
	w.put(1, 3) // cascade: pass 0 only
	w.put(0, 1)
	w.put(uint64(c.resBook), 8)
	w.put(0, 6) // one mapping
	w.put(0, 16)
	w.put(0, 1) // one submap
	if c.channels == 2 {
		w.put(1, 1)
		w.put(0, 8) // one coupling step: magnitude 0, angle 1
		w.put(0, 1)
		w.put(1, 1)
	} else {
		w.put(0, 1)
	}
	w.put(0, 2)
	w.put(0, 8) // submap 0: time, floor 0, residue 0
	w.put(0, 8)
	w.put(0, 8)
	w.put(1, 6) // two modes: short and long, both of mapping 0
	for _, long := range []uint64{0, 1} {
		w.put(long, 1)
		w.put(0, 16)
		w.put(0, 16)
		w.put(0, 8)
	}
	w.put(1, 1) // framing
	return w.buf
}

func basicCraft() craft {
	return craft{channels: 2, books: []craftBook{basicBook}, floorXs: []int{64, 128}, resType: 2, resEnd: 256, resPSize: 16}
}

// randomPackets returns n audio packets of random bits (their first bit cleared: audio).
func randomPackets(seed uint64, n, size int) [][]byte {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([][]byte, n)
	for i := range out {
		p := make([]byte, 1+r.IntN(size))
		for j := range p {
			p[j] = byte(r.Uint32())
		}
		p[0] &^= 1
		out[i] = p
	}
	return out
}

// TestCraftedStreamDecodes checks that the crafted stream is valid, so that each test below
// changes one thing of a stream that decodes.
func TestCraftedStreamDecodes(t *testing.T) {
	t.Parallel()
	c := basicCraft()
	d, err := NewDecoder(c.ident(), c.setup())
	if err != nil {
		t.Fatal(err)
	}
	decodeRandom(t, d, 1)
}

// decodeRandom decodes random packets and checks the length of each output and that every
// sample is finite; it returns how many samples were not zero.
func decodeRandom(t *testing.T, d *Decoder, seed uint64) int {
	t.Helper()
	prev := 0
	nonzero := 0
	for i, p := range randomPackets(seed, 200, 64) {
		n, err := d.BlockSize(p)
		if err != nil {
			t.Fatal(err)
		}
		out, err := d.Decode(p)
		if err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
		want := 0
		if prev > 0 {
			want = prev/4 + n/4
		}
		prev = n
		if len(out) != d.info.Channels {
			t.Fatalf("%d channels", len(out))
		}
		for _, s := range out {
			if len(s) != want {
				t.Fatalf("packet %d: %d samples, want %d", i, len(s), want)
			}
			for _, v := range s {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Fatalf("packet %d: sample %v", i, v)
				}
				if v != 0 {
					nonzero++
				}
			}
		}
	}
	return nonzero
}

// TestCodebookOfOneUsedEntry: a codebook with a single used entry decodes that entry from its
// codeword (zeros, of the entry's length), takes the length's bits whatever they are, and
// reports the end of the packet when fewer bits remain.
func TestCodebookOfOneUsedEntry(t *testing.T) {
	t.Parallel()
	var w bitWriter
	craftBook{dims: 1, lengths: []int{0, 0, 3, 0}}.write(&w)
	var b bitReader
	b.reset(w.buf)
	var budget setupBudget
	c, err := readCodebook(&b, &budget)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		data []byte
		want []int
	}{
		{[]byte{0b00_000_000}, []int{2, 2, -1}}, // two codewords, then two bits left
		{[]byte{0b11_111_001}, []int{2, 2, -1}}, // other bits decode the entry too
	} {
		b.reset(tc.data)
		var got []int
		for range tc.want {
			got = append(got, c.decode(&b))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%08b: got %v, want %v", tc.data, got, tc.want)
		}
	}
	// A stream whose floor reads such a book decodes.
	cr := basicCraft()
	cr.books = append(cr.books, craftBook{dims: 1, lengths: []int{0, 0, 3, 0}})
	cr.floorBook = 1
	d, err := NewDecoder(cr.ident(), cr.setup())
	if err != nil {
		t.Fatal(err)
	}
	decodeRandom(t, d, 2)
}

// TestEmptyPacketsChangeNothing: an empty packet completes no samples and leaves the decoder
// as it was, so a stream with empty packets between its packets decodes to the same samples.
func TestEmptyPacketsChangeNothing(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "clicks_s22_q2.ogg"))
	if err != nil {
		t.Fatal(err)
	}
	pk := oggPacketsOf(t, b)
	info, err := ParseIdentification(pk[0].data)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := NewDecoder(info, pk[2].data)
	if err != nil {
		t.Fatal(err)
	}
	gappy, err := NewDecoder(info, pk[2].data)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pk[3:] {
		empty, err := gappy.Decode(nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(empty) != info.Channels || len(empty[0]) != 0 || len(empty[1]) != 0 {
			t.Fatalf("an empty packet gave %d channels, %d samples", len(empty), len(empty[0]))
		}
		if n, err := gappy.BlockSize([]byte{}); n != 0 || err != nil {
			t.Fatalf("BlockSize of an empty packet: %d, %v", n, err)
		}
		want, err := plain.Decode(p.data)
		if err != nil {
			t.Fatal(err)
		}
		got, err := gappy.Decode(p.data)
		if err != nil {
			t.Fatal(err)
		}
		for c := range want {
			if !slices.Equal(got[c], want[c]) {
				t.Fatalf("packet %d channel %d differs after an empty packet", i, c)
			}
		}
	}
}

// TestFloor1RepeatedX: a floor 1 whose X list holds a value twice (the specification forbids
// it) is refused with ErrCorrupt.
func TestFloor1RepeatedX(t *testing.T) {
	t.Parallel()
	for _, xs := range [][]int{{64, 64}, {0, 100}, {100, 20, 100}} {
		c := basicCraft()
		c.floorXs = xs
		_, err := NewDecoder(c.ident(), c.setup())
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("X list 0, 256, %v: %v, want ErrCorrupt", xs, err)
		}
	}
}

// TestResiduePartitionsPastTheEnd: residue ranges and partitions that run past the vector
// (an end far past it, a partition size that does not divide it, classification words that
// classify partitions past the last) decode within the vector, and a range that begins past
// the end of the vector decodes nothing, so the output is silence.
func TestResiduePartitionsPastTheEnd(t *testing.T) {
	t.Parallel()
	three := craftBook{dims: 3, lengths: []int{3, 3, 3, 3, 3, 3, 3, 3}}
	for _, tc := range []struct {
		name   string
		mod    func(*craft)
		silent bool
	}{
		{"end past the vector", func(c *craft) { c.resEnd = 1<<24 - 1 }, false},
		{"odd partition size", func(c *craft) { c.resPSize = 7; c.resEnd = 250 }, false},
		{"three classifications a word", func(c *craft) {
			c.books = append(c.books, three)
			c.classBook = 1
			c.resEnd = 1<<24 - 1
			c.resPSize = 5
		}, false},
		{"type 0", func(c *craft) { c.resType = 0; c.resEnd = 1<<24 - 1; c.resPSize = 7 }, false},
		{"type 1", func(c *craft) { c.resType = 1; c.resEnd = 1<<24 - 1; c.resPSize = 9 }, false},
		{"begin past the vector", func(c *craft) { c.resBegin = 1 << 20; c.resEnd = 1<<24 - 1 }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := basicCraft()
			tc.mod(&c)
			d, err := NewDecoder(c.ident(), c.setup())
			if err != nil {
				t.Fatal(err)
			}
			nonzero := decodeRandom(t, d, 3)
			if tc.silent != (nonzero == 0) {
				t.Errorf("%d samples not zero; silent: %v", nonzero, tc.silent)
			}
		})
	}
}

// TestSetupBounds: setup headers that ask for huge codebooks or lookup tables are refused
// before the decoder does the work: the bytes allocated while refusing are counted.
func TestSetupBounds(t *testing.T) {
	// Not parallel: the allocation count must be this test's alone.
	for _, tc := range []struct {
		name     string
		book     craftBook
		want     error
		maxAlloc uint64
	}{
		// 2^24 - 1 entries in five bytes of header.
		{"2^24 entries", craftBook{dims: 1, ordered: true, entries: 1<<24 - 1, lengths: []int{24}}, ErrTooLarge, 1 << 16},
		// 2^18 entries of 8 dimensions: 2^21 vector values.
		{"2^21 vector values", craftBook{dims: 8, ordered: true, entries: 1 << 18, lengths: []int{18}, lookup: 1}, ErrTooLarge, 1 << 20},
		// A type 2 table of 2^20 × 64 values in a header of a few bytes.
		{"lookup larger than its packet", craftBook{dims: 64, ordered: true, entries: 1 << 16, lengths: []int{16}, lookup: 2}, ErrCorrupt, 4 << 20},
	} {
		var w bitWriter
		if tc.book.lookup == 2 {
			// Write the header only: the values the packet would need are not there.
			tc.book.lookup = 0
			tc.book.write(&w)
			w.n -= 4
			w.buf = w.buf[:(w.n+7)/8]
			w.put(2, 4)
			w.put(0, 32)
			w.put(788<<21|1, 32)
			w.put(3, 4)
			w.put(0, 1)
			w.put(0, 64)
		} else {
			tc.book.write(&w)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var b bitReader
		b.reset(w.buf)
		var budget setupBudget
		_, err := readCodebook(&b, &budget)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: refused after allocating %d bytes", tc.name, alloc)
		if alloc > tc.maxAlloc {
			t.Errorf("%s: refused after allocating %d bytes (at most %d)", tc.name, alloc, tc.maxAlloc)
		}
	}
}

// TestLookupBeyondFloatRange: a lookup table whose delta unpacks past the float range (the
// packing allows exponents up to 2^235) is refused with ErrCorrupt, so that the vectors the
// decoder adds are finite.
func TestLookupBeyondFloatRange(t *testing.T) {
	t.Parallel()
	var w bitWriter
	craftBook{dims: 1, lengths: []int{1, 1}, lookup: 1, delta: 1023<<21 | 1}.write(&w)
	var b bitReader
	b.reset(w.buf)
	var budget setupBudget
	if _, err := readCodebook(&b, &budget); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("%v, want ErrCorrupt", err)
	}
}
