package mp3dec

import (
	"fmt"
	"math"

	"github.com/podqa/podqa-go/internal/mpegaudio"
)

// The bitstream stage: side information, bit reservoir, scale factors, Huffman decoding,
// requantization, stereo processing and the reordering of short blocks (ISO/IEC 11172-3
// §2.4.1.7, §2.4.2.7 and §2.4.3.4; ISO/IEC 13818-3 for the lower sample rates).

// The kernels marked //go:norace here touch only their own buffers: see filterbank.go.

// Sizes of the bit reservoir's buffer.
const (
	reservoirKeep = 2048 // bytes kept when the buffer is compacted (main_data_begin ≤ 511)
	reservoirMax  = 8192 // compaction threshold
	readPadding   = 16   // zero bytes after the data, for the bit reader's peeks
)

// granuleInfo is one granule's side information for one channel.
type granuleInfo struct {
	part23      int // part2_3_length: bits of scale factors and Huffman data
	bigValues   int
	globalGain  int
	sfCompress  int
	blockType   int
	mixed       bool
	tables      [3]int
	subGain     [3]int
	region1     int // first line of region 1
	region2     int // first line of region 2
	preflag     bool
	sfScale     int
	count1Table int
}

// scaleFactors are one granule's scale factors for one channel: long bands, then short bands
// by window.
type scaleFactors struct {
	long  [22]int
	short [13][3]int
}

// bitstream is the bitstream stage's state across frames.
type bitstream struct {
	buf    []byte // main data of recent frames, then readPadding zero bytes
	n      int    // bytes of main data in buf
	info   [2][2]granuleInfo
	scfsi  [2][4]bool
	sf     [2][2]scaleFactors // [granule][channel]
	isMax  [2][22]int         // MPEG-2 intensity stereo: the illegal position of each long band (right channel)
	isMaxS [13]int            // ... and of each short band
	is     [576]int32         // one channel's decoded Huffman values
}

// reset forgets the reservoir, as after a gap in the stream.
func (b *bitstream) reset() { b.n = 0 }

// pow43 is |v|^(4/3) for the magnitudes a frame can code (15 plus 13 linbits).
var pow43 = func() (t [8207]float64) {
	for i := range t {
		t[i] = math.Pow(float64(i), 4.0/3)
	}
	return t
}()

// gainOffset is the index of exponent 0 in quarterGain.
const gainOffset = 512

// quarterGain[q+gainOffset] is 2^(q/4).
var quarterGain = func() (t [gainOffset + 128]float64) {
	for i := range t {
		t[i] = math.Pow(2, float64(i-gainOffset)/4)
	}
	return t
}()

// decode turns a frame into spectra. On error out holds silence for the frame's granules and
// channels, and the frame's main data still joins the reservoir.
func (b *bitstream) decode(frame []byte, h mpegaudio.Header, out *frameSpectra) error {
	out.granules, out.channels = 2, h.Channels
	if h.Version != 1 {
		out.granules = 1
	}
	r := rateIndex(h.Rate)
	side := 4
	if h.CRC {
		side += 2
	}
	if r < 0 || h.Layer != 3 || len(frame) < h.Size || side+h.SideInfo > h.Size {
		silence(out)
		return fmt.Errorf("%w: frame of %d bytes, header says %d", ErrCorrupt, len(frame), h.Size)
	}
	begin, err := b.readSideInfo(frame[side:side+h.SideInfo], h, out.granules)
	b.compact()
	start := b.n - begin
	b.appendMainData(frame[side+h.SideInfo : h.Size])
	if err != nil {
		silence(out)
		return err
	}
	if start < 0 {
		silence(out)
		return fmt.Errorf("%w: main_data_begin %d, %d bytes kept", ErrReservoir, begin, start+begin)
	}
	br := bitReader{buf: b.buf, pos: 8 * start}
	end := 8 * b.n
	lay := &layouts[r]
	for g := range out.granules {
		for c := range out.channels {
			gi := &b.info[g][c]
			s := &out.spectra[g][c]
			chEnd := br.pos + gi.part23
			if chEnd > end {
				silence(out)
				return fmt.Errorf("%w: granule %d channel %d needs %d bits, %d left", ErrCorrupt, g, c, gi.part23, end-br.pos)
			}
			var err error
			if h.Version == 1 {
				err = b.readScaleFactorsMPEG1(&br, g, c)
			} else {
				err = b.readScaleFactorsLSF(&br, c, h)
			}
			if err == nil && br.pos > chEnd {
				err = fmt.Errorf("%w: scale factors overrun part2_3_length", ErrCorrupt)
			}
			var nz int
			if err == nil {
				nz, err = b.readHuffman(&br, gi, chEnd, lay)
			}
			if err != nil {
				silence(out)
				return err
			}
			b.requantize(s, gi, &b.sf[g][c], nz, lay)
			br.pos = chEnd
		}
		if out.channels == 2 {
			b.stereo(out, g, h, lay)
		}
		for c := range out.channels {
			finish(&out.spectra[g][c], lay)
		}
	}
	return nil
}

// silence makes every spectrum of out zero.
func silence(out *frameSpectra) {
	for g := range out.granules {
		for c := range out.channels {
			s := &out.spectra[g][c]
			s.xr = [576]float64{}
			s.blockType, s.mixed, s.lines = 0, false, 0
		}
	}
}

// appendMainData adds a frame's main data to the reservoir, keeping the zero padding after it.
func (b *bitstream) appendMainData(md []byte) {
	need := b.n + len(md) + readPadding
	if cap(b.buf) < need {
		nb := make([]byte, need, 2*need)
		copy(nb, b.buf[:b.n])
		b.buf = nb
	}
	b.buf = b.buf[:need]
	copy(b.buf[b.n:], md)
	b.n += len(md)
	clear(b.buf[b.n:])
}

// compact drops old main data once the buffer has grown, keeping more than a frame may reach.
func (b *bitstream) compact() {
	if b.n > reservoirMax {
		copy(b.buf, b.buf[b.n-reservoirKeep:b.n])
		b.n = reservoirKeep
	}
}

// readSideInfo parses the side information into b.info and returns main_data_begin.
func (b *bitstream) readSideInfo(si []byte, h mpegaudio.Header, granules int) (int, error) {
	// Side information is at most 32 bytes; the reader needs padding after it.
	var padded [32 + readPadding]byte
	copy(padded[:], si)
	r := bitReader{buf: padded[:]}
	var begin int
	if h.Version == 1 {
		begin = r.read(9)
		if h.Channels == 1 {
			r.read(5)
		} else {
			r.read(3)
		}
		for c := range h.Channels {
			for band := range 4 {
				b.scfsi[c][band] = r.read(1) == 1
			}
		}
	} else {
		begin = r.read(8)
		r.read(h.Channels) // private bits
	}
	lay := &layouts[rateIndex(h.Rate)]
	for g := range granules {
		for c := range h.Channels {
			gi := &b.info[g][c]
			*gi = granuleInfo{}
			gi.part23 = r.read(12)
			gi.bigValues = r.read(9)
			gi.globalGain = r.read(8)
			if h.Version == 1 {
				gi.sfCompress = r.read(4)
			} else {
				gi.sfCompress = r.read(9)
			}
			if gi.bigValues > 288 {
				return begin, fmt.Errorf("%w: big_values %d", ErrCorrupt, gi.bigValues)
			}
			if r.read(1) == 1 { // window switching
				gi.blockType = r.read(2)
				gi.mixed = r.read(1) == 1
				if gi.blockType == 0 {
					return begin, fmt.Errorf("%w: window switching with block type 0", ErrCorrupt)
				}
				gi.tables[0], gi.tables[1] = r.read(5), r.read(5)
				for w := range 3 {
					gi.subGain[w] = r.read(3)
				}
				// Region 1 starts after the third short band (line 36, or 72 at 8 kHz)
				// in short and mixed blocks, and at the ninth long band in start and stop
				// blocks; region 2 is empty.
				gi.region1 = 3 * lay.shortStart[3]
				if gi.blockType != 2 {
					gi.region1 = lay.longStart[8]
				}
				gi.region2 = 576
			} else {
				for i := range 3 {
					gi.tables[i] = r.read(5)
				}
				r0, r1 := r.read(4), r.read(3)
				gi.region1 = lay.longStart[min(r0+1, 22)]
				gi.region2 = lay.longStart[min(r0+r1+2, 22)]
			}
			if h.Version == 1 {
				gi.preflag = r.read(1) == 1
			}
			gi.sfScale = r.read(1)
			gi.count1Table = r.read(1)
		}
	}
	return begin, nil
}

// readScaleFactorsMPEG1 reads one channel's scale factors of an MPEG-1 granule; granule 1
// reuses granule 0's where scfsi says so.
func (b *bitstream) readScaleFactorsMPEG1(r *bitReader, g, c int) error {
	gi := &b.info[g][c]
	sf := &b.sf[g][c]
	slen := slenMPEG1[gi.sfCompress]
	if gi.blockType == 2 {
		*sf = scaleFactors{}
		band := 0
		if gi.mixed {
			for ; band < 8; band++ {
				sf.long[band] = r.read(slen[0])
			}
			band = 3
		}
		for ; band < 12; band++ {
			n := slen[0]
			if band >= 6 {
				n = slen[1]
			}
			for w := range 3 {
				sf.short[band][w] = r.read(n)
			}
		}
		return nil
	}
	groups := [5]int{0, 6, 11, 16, 21}
	for grp := range 4 {
		n := slen[0]
		if grp >= 2 {
			n = slen[1]
		}
		for band := groups[grp]; band < groups[grp+1]; band++ {
			if g == 1 && b.scfsi[c][grp] {
				sf.long[band] = b.sf[0][c].long[band]
			} else {
				sf.long[band] = r.read(n)
			}
		}
	}
	sf.long[21] = 0
	return nil
}

// readScaleFactorsLSF reads one channel's scale factors of an MPEG-2 or 2.5 granule, in
// ISO/IEC 13818-3's partitions. For the right channel of an intensity-stereo frame they are
// intensity positions, and the largest value of each band's length marks an illegal one.
func (b *bitstream) readScaleFactorsLSF(r *bitReader, c int, h mpegaudio.Header) error {
	gi := &b.info[0][c]
	sf := &b.sf[0][c]
	*sf = scaleFactors{}
	sfc := gi.sfCompress
	var slen [4]int
	var table int
	intensity := c == 1 && h.ChannelMode == 1 && h.ModeExt&1 != 0
	if !intensity {
		switch {
		case sfc < 400:
			slen = [4]int{(sfc >> 4) / 5, (sfc >> 4) % 5, (sfc & 15) >> 2, sfc & 3}
		case sfc < 500:
			sfc -= 400
			slen = [4]int{(sfc >> 2) / 5, (sfc >> 2) % 5, sfc & 3, 0}
			table = 1
		default:
			sfc -= 500
			slen = [4]int{sfc / 3, sfc % 3, 0, 0}
			table = 2
			gi.preflag = true
		}
	} else {
		sfc >>= 1
		switch {
		case sfc < 180:
			slen = [4]int{sfc / 36, (sfc % 36) / 6, (sfc % 36) % 6, 0}
			table = 3
		case sfc < 244:
			sfc -= 180
			slen = [4]int{(sfc % 64) >> 4, (sfc % 16) >> 2, sfc % 4, 0}
			table = 4
		default:
			sfc -= 244
			slen = [4]int{sfc / 3, sfc % 3, 0, 0}
			table = 5
		}
	}
	kind := 0
	if gi.blockType == 2 {
		kind = 1
		if gi.mixed {
			kind = 2
		}
	}
	counts := lsfPartitions[table][kind]
	// Scale factors in order: long bands, then (short or mixed) short bands window by window.
	long, short := 0, 0
	switch kind {
	case 1:
		long = 0
	case 2:
		long, short = 0, 3*3 // the mixed block's short bands start at band 3
	}
	longBands := 0
	if kind == 0 {
		longBands = 21
	} else if kind == 2 {
		longBands = layouts[rateIndex(h.Rate)].mixedLong
	}
	for p := range 4 {
		for range counts[p] {
			v := r.read(slen[p])
			limit := 1<<slen[p] - 1
			if long < longBands {
				sf.long[long] = v
				if intensity {
					b.isMax[0][long] = limit
				}
				long++
				continue
			}
			band, w := short/3, short%3
			if band < 13 {
				sf.short[band][w] = v
				if intensity && w == 0 {
					b.isMaxS[band] = limit
				}
			}
			short++
		}
	}
	if intensity {
		// Bands after the coded ones take the last coded band's rule.
		for i := max(long, 1); i < 22; i++ {
			b.isMax[0][i] = b.isMax[0][i-1]
		}
		for i := max(short/3, 1); i < 13; i++ {
			b.isMaxS[i] = b.isMaxS[i-1]
		}
	}
	return nil
}

// linbitsOf is the number of linbits of each table number.
var linbitsOf = [32]int{16: 1, 17: 2, 18: 3, 19: 4, 20: 6, 21: 8, 22: 10, 23: 13,
	24: 4, 25: 5, 26: 6, 27: 7, 28: 8, 29: 9, 30: 11, 31: 13}

// codeTableOf is the table whose codes table number tn uses: tables 16 to 23 share table 16's
// codes and tables 24 to 31 table 24's; they differ in linbits.
func codeTableOf(tn int) int {
	switch {
	case tn >= 24:
		return 24
	case tn >= 16:
		return 16
	}
	return tn
}

// regionEnds returns the lines where big_values regions 0, 1 and 2 end: the regions the side
// information sets, cut at the end of the big_values pairs.
func regionEnds(gi *granuleInfo) [3]int {
	bigEnd := 2 * gi.bigValues
	return [3]int{min(gi.region1, bigEnd), min(max(gi.region2, gi.region1), bigEnd), bigEnd}
}

// readHuffman decodes one channel's Huffman data into b.is and returns the number of lines
// coded (big_values pairs and count1 quadruples).
//
//go:norace
func (b *bitstream) readHuffman(r *bitReader, gi *granuleInfo, end int, lay *bandLayout) (int, error) {
	is := &b.is
	i := 0
	for reg, stop := range regionEnds(gi) {
		tn := gi.tables[reg]
		if tn == 0 {
			for ; i < stop; i++ {
				is[i] = 0
			}
			continue
		}
		t := &pairTables[codeTableOf(tn)]
		if t.entries == nil {
			return 0, fmt.Errorf("%w: Huffman table %d", ErrCorrupt, tn)
		}
		linbits := linbitsOf[tn]
		for ; i < stop; i += 2 {
			if r.pos > end {
				return 0, fmt.Errorf("%w: Huffman data overruns part2_3_length", ErrCorrupt)
			}
			x, y, ok := r.decodeValues(t, linbits)
			if !ok {
				return 0, fmt.Errorf("%w: no code of Huffman table %d", ErrCorrupt, tn)
			}
			is[i], is[i+1] = int32(x), int32(y)
		}
	}
	if r.pos > end {
		return 0, fmt.Errorf("%w: Huffman data overruns part2_3_length", ErrCorrupt)
	}
	// count1: quadruples of values in −1..1 until the bits end.
	for i+4 <= 576 && r.pos < end {
		var q int
		start := r.pos
		if gi.count1Table == 0 {
			e := quadTableA[r.peek(6)]
			r.pos += int(e >> 4)
			q = int(e & 15)
		} else {
			q = 15 - r.read(4)
		}
		var v [4]int32
		for k := range 4 {
			if q&(8>>k) != 0 {
				v[k] = 1
				if r.read(1) == 1 {
					v[k] = -1
				}
			}
		}
		if r.pos > end {
			// A quadruple that runs past the granule's bits is not part of it.
			r.pos = start
			break
		}
		is[i], is[i+1], is[i+2], is[i+3] = v[0], v[1], v[2], v[3]
		i += 4
	}
	return i, nil
}

// requantize turns the decoded values into spectral values in coded order.
//
//go:norace
//go:nocheckptr
func (b *bitstream) requantize(s *spectrum, gi *granuleInfo, sf *scaleFactors, nz int, lay *bandLayout) {
	s.xr = [576]float64{}
	s.blockType, s.mixed = gi.blockType, gi.mixed
	shift := 2 << gi.sfScale // quarter steps per scale-factor step: 2 or 4
	base := gi.globalGain - 210 + gainOffset
	is := &b.is
	put := func(from, to int, q int) {
		to = min(to, nz)
		if from >= to {
			return
		}
		q = max(min(q, len(quarterGain)-1), 0)
		gain := quarterGain[q]
		xr := s.xr[from:to]
		for k, v := range is[from:to] {
			// Signs are as likely as not: set the sign bit rather than branch on it. neg is 1
			// only where |v| ≥ 1 (pow43[0] is 0), so no −0 appears.
			neg := uint32(v) >> 31
			a := min((uint32(v)^-neg)+neg, uint32(len(pow43)-1))
			xr[k] = math.Float64frombits(math.Float64bits(pow43[a]*gain) | uint64(neg)<<63)
		}
	}
	longBands := 22
	if gi.blockType == 2 {
		longBands = 0
		if gi.mixed {
			longBands = lay.mixedLong
		}
	}
	for band := range longBands {
		sfv := sf.long[band]
		if gi.preflag {
			sfv += pretab[band]
		}
		put(lay.longStart[band], lay.longStart[band+1], base-shift*sfv)
	}
	if longBands == 22 {
		return
	}
	first := 0
	if gi.mixed {
		first = 3
	}
	for band := first; band < 13; band++ {
		w0 := lay.shortStart[band]
		width := lay.shortStart[band+1] - w0
		for w := range 3 {
			from := 3*w0 + w*width
			put(from, from+width, base-8*gi.subGain[w]-shift*sf.short[band][w])
		}
	}
}

// finish reorders a short or mixed block into the filter bank's layout and sets lines.
//
//go:norace
func finish(s *spectrum, lay *bandLayout) {
	if s.blockType == 2 {
		m := &lay.reorderShort
		if s.mixed {
			m = &lay.reorderMixed
		}
		coded := s.xr
		for i, v := range coded {
			s.xr[m[i]] = v
		}
	}
	s.lines = 0
	for i := 575; i >= 0; i-- {
		if s.xr[i] != 0 {
			s.lines = i + 1
			break
		}
	}
}
