package mp3dec

// The tables below are the standard's, shared with the encoder (internal/mp3enc) so that both
// directions read one copy.

// The kernels marked //go:norace here touch only their own buffers: see filterbank.go.

// SynthesisWindow returns the 512 values of the synthesis window D (ISO/IEC 11172-3 Table B.3).
// The analysis window is D/32.
func SynthesisWindow() [512]float64 { return synthesisWindow() }

// PairCode returns the Huffman code of the pair (x, y), each at most 15, in big_values table t
// (1 to 31, without 4 and 14): its length in bits and its value, without sign bits or linbits.
// ok is false for a table without codes or a pair outside it.
//
//go:norace
func PairCode(t, x, y int) (length int, code uint16, ok bool) {
	if t <= 0 || t > 31 {
		return 0, 0, false
	}
	pc := pairCodes[codeTableOf(t)]
	if pc.dim == 0 || x >= pc.dim || y >= pc.dim || x < 0 || y < 0 {
		return 0, 0, false
	}
	i := x*pc.dim + y
	return int(pc.lens[i]), pc.codes[i], true
}

// PairTableSize returns how many values (0 to size-1) each element of a pair takes in table t
// without linbits, and the table's linbits; size is 0 for a table without codes.
func PairTableSize(t int) (size, linbits int) {
	if t <= 0 || t > 31 {
		return 0, 0
	}
	return pairCodes[codeTableOf(t)].dim, linbitsOf[t]
}

// QuadCodeA returns the count1 table A code of the quadruple whose index is 8v+4w+2x+y.
func QuadCodeA(index int) (length int, code uint8) {
	return int(quadCodesA.lens[index]), quadCodesA.codes[index]
}

// LongBandWidths returns the widths, in lines, of the 22 long-block scale-factor bands at a
// sample rate of MPEG-1, 2 or 2.5; ok is false for another rate.
func LongBandWidths(sampleRate int) (widths [22]int, ok bool) {
	if r := rateIndex(sampleRate); r >= 0 {
		return longWidths[r], true
	}
	return widths, false
}

// ShortBandWidths returns the widths, in lines of one window, of the 13 short-block
// scale-factor bands at a sample rate of MPEG-1, 2 or 2.5; ok is false for another rate.
func ShortBandWidths(sampleRate int) (widths [13]int, ok bool) {
	if r := rateIndex(sampleRate); r >= 0 {
		return shortWidths[r], true
	}
	return widths, false
}
