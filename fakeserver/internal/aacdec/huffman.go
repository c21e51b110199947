package aacdec

// Huffman decoding by table lookup: the next primaryBits bits index a primary table whose
// entries either give a codeword's symbol and length or point at a subtable for the codewords
// longer than primaryBits that share that prefix.

const primaryBits = 9

// An entry is a leaf (symbol<<8 | length) or, with entryLink set, a link
// (offset<<8 | subtable bits). A length of 0 marks bits that begin no codeword.
const entryLink = 1 << 31

// huffTable decodes one codebook.
type huffTable struct{ entries []uint32 }

// newHuffTable builds the lookup table of a codebook listed by symbol.
func newHuffTable(codes []codeword) *huffTable {
	t := &huffTable{entries: make([]uint32, 1<<primaryBits)}
	// Longest remaining length under each primary prefix that starts longer codewords.
	subBits := map[uint32]uint{}
	for _, c := range codes {
		if c.len > primaryBits {
			p := c.code >> (c.len - primaryBits)
			subBits[p] = max(subBits[p], uint(c.len-primaryBits))
		}
	}
	for p := range uint32(1 << primaryBits) {
		sb, ok := subBits[p]
		if !ok {
			continue
		}
		off := uint32(len(t.entries))
		t.entries = append(t.entries, make([]uint32, 1<<sb)...)
		t.entries[p] = entryLink | off<<8 | uint32(sb)
	}
	for sym, c := range codes {
		leaf := uint32(sym)<<8 | uint32(c.len)
		if c.len <= primaryBits {
			shift := primaryBits - uint(c.len)
			first := c.code << shift
			for i := range uint32(1) << shift {
				t.entries[first+i] = leaf
			}
			continue
		}
		rest := uint(c.len - primaryBits)
		link := t.entries[c.code>>rest]
		sb := uint(link & 0xff)
		off := link &^ entryLink >> 8
		first := off + (c.code&(1<<rest-1))<<(sb-rest)
		for i := range uint32(1) << (sb - rest) {
			t.entries[first+i] = leaf
		}
	}
	return t
}

// decode reads one codeword and returns its symbol, or -1 for bits that begin none.
func (r *bitReader) decode(t *huffTable) int {
	e := t.entries[r.peek(primaryBits)]
	if e&entryLink != 0 {
		sb := uint(e & 0xff)
		off := e &^ entryLink >> 8
		e = t.entries[off+r.peek(primaryBits+sb)&(1<<sb-1)]
	}
	n := uint(e & 0xff)
	if n == 0 {
		return -1
	}
	r.skip(n)
	return int(e >> 8)
}

// decodeSpectral reads one codeword of spectral codebook t and, for an unsigned codebook, the
// sign bits that follow it (one per nonzero value), from one peek: a codeword and its sign
// bits fit in 32 bits (TestSpectralCodewordsFitOnePeek). It returns the codeword's entry of values and the
// sign bits at the top of signs, first value first; false for bits that begin no codeword.
func (r *bitReader) decodeSpectral(t *huffTable, values []uint64, unsigned bool) (e uint64, signs uint32, ok bool) {
	v := r.peek(32)
	c := t.entries[v>>(32-primaryBits)]
	if c&entryLink != 0 {
		sb := uint(c & 0xff)
		off := c &^ entryLink >> 8
		c = t.entries[off+v<<primaryBits>>(32-sb)]
	}
	n := uint(c & 0xff)
	if n == 0 {
		return 0, 0, false
	}
	e = values[c>>8]
	if unsigned {
		signs = v << n
		n += uint(e >> 32)
	}
	r.skip(n)
	return e, signs, true
}
