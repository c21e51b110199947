package mp3dec

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// LAME never writes intensity stereo or mixed blocks, so no encoder on a Debian machine makes
// fixtures that hold those paths to ffmpeg. The crafter below writes them: a layer III encoder
// of chosen quantized values (no psychoacoustics, no quantization loop), driven by a seeded
// random source, that puts intensity-stereo positions, mid/side, mixed blocks, all four block
// types, scfsi, preflag, subblock gains, both count1 tables and linbits into valid frames.
// testdata/gen.sh writes the files (go test -run TestCraftedFixtures -args -update-crafted)
// and stores ffmpeg's decode of them beside the others; TestMatchesFFmpeg compares.

var updateCrafted = flag.Bool("update-crafted", false, "rewrite testdata/crafted_*.mp3 (testdata/gen.sh does)")

// craftedFixture describes one crafted stream: joint stereo at one sample rate.
type craftedFixture struct {
	name      string
	version   int // 1 (MPEG-1) or 2 (MPEG-2)
	rate      int
	bitrate   int // index into the version's layer III bit rates
	frameSize int // bytes, without padding
	frames    int
	seed      uint64
}

var craftedFixtures = []craftedFixture{
	{name: "crafted_is_mixed_44k.mp3", version: 1, rate: 44100, bitrate: 14, frameSize: 1044, frames: 80, seed: 1},
	{name: "crafted_is_mixed_lsf22k.mp3", version: 2, rate: 22050, bitrate: 14, frameSize: 522, frames: 160, seed: 2},
}

// craftCoverage counts what a crafted stream exercises, so that a change to the crafter
// cannot quietly stop covering a path.
type craftCoverage struct {
	intensity [3]int // granules with intensity stereo on: long, short, mixed
	msAndIS   int    // ... with mid/side on too
	isBands   int    // bands above the right channel's last value with a legal position
	illegal   int    // ... with an illegal position (MPEG-1: 7 and above)
	mixedLong int    // mixed granules whose right channel's short part is all zero
	linbits   int    // values coded with linbits
	scfsi     int    // scale-factor groups reused from granule 0
	count1    [2]int // granules coding count1 with table A, table B
}

// bitWriter appends bits, most significant first.
type bitWriter struct {
	buf  []byte
	bits int
}

func (w *bitWriter) put(v, n int) {
	for i := n - 1; i >= 0; i-- {
		if w.bits%8 == 0 {
			w.buf = append(w.buf, 0)
		}
		if v>>i&1 == 1 {
			w.buf[w.bits/8] |= 0x80 >> (w.bits % 8)
		}
		w.bits++
	}
}

// craftChannel is one granule of one channel: side information, scale factors and quantized
// values in coded order.
type craftChannel struct {
	gi     granuleInfo
	r0, r1 int // region0_count and region1_count of a long block
	sf     scaleFactors
	values [576]int
	c1End  int // end of the count1 region
	// lsfFields are an MPEG-2 granule's scale factors as written: value and bit length, in
	// partition order.
	lsfFields [][2]int
}

// blockPattern is the sequence of block kinds the crafted granules cycle through: the
// standard's switching (a start block before short ones, a stop block after), with mixed
// blocks after short ones and after each other but never before a short block. There ffmpeg
// and the standard part (see doc.go), and the fixtures are for what they agree on.
var blockPattern = []struct {
	blockType int
	mixed     bool
}{{0, false}, {0, false}, {1, false}, {2, false}, {2, true}, {2, true}, {3, false}, {0, false},
	{1, false}, {2, true}, {3, false}, {1, false}, {2, false}, {2, false}, {3, false}}

// craft makes a crafted fixture's bytes.
func (fx craftedFixture) craft() ([]byte, craftCoverage) {
	rng := rand.New(rand.NewPCG(fx.seed, 0x6d7033))
	var cov craftCoverage
	var out []byte
	for n := range fx.frames {
		out = append(out, fx.frame(rng, n, &cov)...)
	}
	return out, cov
}

// frame makes frame n, retrying with fewer coded values until its main data fits.
func (fx craftedFixture) frame(rng *rand.Rand, n int, cov *craftCoverage) []byte {
	granules, sideInfo := 2, 32
	if fx.version != 1 {
		granules, sideInfo = 1, 17
	}
	modeExt := n % 4
	if n%8 >= 4 {
		modeExt = []int{1, 3}[n%2] // intensity stereo in three frames of four
	}
	lay := &layouts[rateIndex(fx.rate)]
	for density := 1.0; ; density *= 0.8 {
		var ch [2][2]craftChannel
		var scfsi [2][4]bool
		var fc craftCoverage
		for g := range granules {
			kind := blockPattern[(n*granules+g)%len(blockPattern)]
			for c := range 2 {
				intensity := c == 1 && modeExt&1 == 1
				ch[g][c] = fx.channel(rng, lay, kind.blockType, kind.mixed, intensity, density, &fc)
			}
			if modeExt&1 == 1 {
				switch {
				case kind.blockType != 2:
					fc.intensity[0]++
				case kind.mixed:
					fc.intensity[2]++
				default:
					fc.intensity[1]++
				}
				if modeExt&2 != 0 {
					fc.msAndIS++
				}
			}
		}
		if granules == 2 && ch[0][0].gi.blockType != 2 && ch[1][0].gi.blockType != 2 {
			for c := range 2 {
				for grp, from := range [4]int{0, 6, 11, 16} {
					if rng.IntN(3) != 0 {
						continue
					}
					scfsi[c][grp] = true
					fc.scfsi++
					to := [4]int{6, 11, 16, 21}[grp]
					copy(ch[1][c].sf.long[from:to], ch[0][c].sf.long[from:to])
				}
			}
		}
		if modeExt&1 == 1 {
			for g := range granules {
				fx.countIntensity(&ch[g][1], lay, &fc)
			}
		}
		var main bitWriter
		var part23 [2][2]int
		for g := range granules {
			for c := range 2 {
				start := main.bits
				fx.writeChannel(&main, &ch[g][c], g, scfsi[c], &fc)
				part23[g][c] = main.bits - start
			}
		}
		room := fx.frameSize - 4 - sideInfo
		if len(main.buf) > room {
			continue
		}
		cov.add(fc)
		var w bitWriter
		// Header: sync, version, layer III, no CRC, bit rate, sample rate index 0, no
		// padding, joint stereo, mode extension.
		w.put(0x7ff, 11)
		w.put(4-fx.version, 2) // 3 for MPEG-1, 2 for MPEG-2
		w.put(1, 2)
		w.put(1, 1)
		w.put(fx.bitrate, 4)
		w.put(0, 2)
		w.put(0, 2)
		w.put(1, 2)
		w.put(modeExt, 2)
		w.put(0, 4)
		if fx.version == 1 {
			w.put(0, 9) // main_data_begin
			w.put(0, 3)
			for c := range 2 {
				for grp := range 4 {
					w.put(b2i(scfsi[c][grp]), 1)
				}
			}
		} else {
			w.put(0, 8)
			w.put(0, 2)
		}
		for g := range granules {
			for c := range 2 {
				ch := &ch[g][c]
				gi := &ch.gi
				w.put(part23[g][c], 12)
				w.put(gi.bigValues, 9)
				w.put(gi.globalGain, 8)
				if fx.version == 1 {
					w.put(gi.sfCompress, 4)
				} else {
					w.put(gi.sfCompress, 9)
				}
				if gi.blockType != 0 {
					w.put(1, 1)
					w.put(gi.blockType, 2)
					w.put(b2i(gi.mixed), 1)
					w.put(gi.tables[0], 5)
					w.put(gi.tables[1], 5)
					for k := range 3 {
						w.put(gi.subGain[k], 3)
					}
				} else {
					w.put(0, 1)
					for k := range 3 {
						w.put(gi.tables[k], 5)
					}
					w.put(ch.r0, 4)
					w.put(ch.r1, 3)
				}
				if fx.version == 1 {
					w.put(b2i(gi.preflag), 1)
				}
				w.put(gi.sfScale, 1)
				w.put(gi.count1Table, 1)
			}
		}
		frame := append(w.buf, main.buf...)
		return append(frame, make([]byte, fx.frameSize-len(frame))...)
	}
}

// channel chooses one granule of one channel. The right channel of an intensity-stereo
// granule codes values only below a random band (per window in short blocks) and intensity
// positions in the scale factors of the bands above.
func (fx craftedFixture) channel(rng *rand.Rand, lay *bandLayout, blockType int, mixed, intensity bool, density float64, cov *craftCoverage) craftChannel {
	var ch craftChannel
	gi := &ch.gi
	gi.blockType, gi.mixed = blockType, mixed && blockType == 2
	gi.globalGain = 150 + rng.IntN(20)
	gi.sfScale = rng.IntN(2)
	gi.count1Table = rng.IntN(2)
	short := blockType == 2
	// allowed says whether line i (coded order) may hold a value.
	allowed := func(int) bool { return true }
	if intensity {
		switch {
		case !short:
			bound := lay.longStart[rng.IntN(23)]
			allowed = func(i int) bool { return i < bound }
		default:
			first := 0
			longBound := 0
			if gi.mixed {
				first = 3
				longBound = lay.longStart[rng.IntN(lay.mixedLong+1)]
			}
			var bounds [3]int
			for w := range bounds {
				bounds[w] = first + rng.IntN(14-first)
			}
			if gi.mixed && rng.IntN(2) == 0 {
				bounds = [3]int{first, first, first} // the short part all zero: the long part takes intensity stereo
				cov.mixedLong++
			}
			allowed = func(i int) bool {
				if gi.mixed && i < 36 {
					return i < longBound
				}
				band, w := codedShortBand(lay, i)
				return band < bounds[w]
			}
		}
	}
	// Values: big_values pairs then count1 quadruples.
	bigEnd := 2 * int(float64(40+rng.IntN(180))*density)
	c1End := bigEnd + 4*int(float64(rng.IntN(min(40, (576-bigEnd)/4)+1))*density)
	for i := range c1End {
		if !allowed(i) {
			continue
		}
		if i >= bigEnd {
			ch.values[i] = rng.IntN(3) - 1
			continue
		}
		var v int
		switch p := rng.Float64(); {
		case p < 0.4:
		case p < 0.7:
			v = 1
		case p < 0.85:
			v = 2
		case p < 0.97:
			v = 3 + rng.IntN(5)
		default:
			v = 8 + rng.IntN(40)
		}
		if rng.IntN(2) == 0 {
			v = -v
		}
		ch.values[i] = v
	}
	gi.bigValues = bigEnd / 2
	ch.c1End = c1End
	if c1End > bigEnd {
		cov.count1[gi.count1Table]++
	}
	// Regions and their tables.
	if blockType != 0 {
		gi.region1 = 3 * lay.shortStart[3]
		if !short {
			gi.region1 = lay.longStart[8]
		}
		gi.region2 = 576
		for k := range 3 {
			gi.subGain[k] = rng.IntN(3) * b2i(short)
		}
	} else {
		ch.r0 = rng.IntN(16)
		ch.r1 = rng.IntN(min(8, 21-ch.r0))
		gi.region1 = lay.longStart[ch.r0+1]
		gi.region2 = lay.longStart[ch.r0+ch.r1+2]
	}
	from := 0
	for reg, to := range regionEnds(gi) {
		if blockType != 0 && reg == 2 {
			break
		}
		largest := 0
		for i := from; i < to; i++ {
			largest = max(largest, abs(ch.values[i]))
		}
		gi.tables[reg] = pickTable(rng, largest)
		from = to
	}
	// Scale factors.
	if fx.version == 1 {
		gi.sfCompress = rng.IntN(16)
		if intensity {
			gi.sfCompress = []int{10, 13, 15}[rng.IntN(3)] // positions up to 7, or 15
		}
		gi.preflag = !short && rng.IntN(3) == 0
		slen := slenMPEG1[gi.sfCompress]
		for band := range 21 {
			ch.sf.long[band] = rng.IntN(1 << slen[b2i(band >= 11)])
		}
		for band := range 12 {
			for w := range 3 {
				ch.sf.short[band][w] = rng.IntN(1 << slen[b2i(band >= 6)])
			}
		}
		if gi.mixed {
			for band := range 8 {
				ch.sf.long[band] = rng.IntN(1 << slen[0])
			}
		}
	} else {
		fx.lsfScaleFactors(rng, &ch, intensity)
	}
	return ch
}

// lsfScaleFactors chooses an MPEG-2 scalefac_compress and scale factors. Intensity positions
// use partition table 3, whose bands all have bits, and stay below 16 and below each band's
// largest value: there ffmpeg and ISO/IEC 13818-3 part (see doc.go).
func (fx craftedFixture) lsfScaleFactors(rng *rand.Rand, ch *craftChannel, intensity bool) {
	gi := &ch.gi
	var slen [4]int
	table := 0
	switch {
	case intensity:
		table = 3
		slen = [4]int{1 + rng.IntN(4), 1 + rng.IntN(5), 1 + rng.IntN(5), 0}
		gi.sfCompress = (slen[0]*36+slen[1]*6+slen[2])<<1 | rng.IntN(2)
	case rng.IntN(3) == 0:
		table = 1
		slen = [4]int{rng.IntN(5), rng.IntN(5), rng.IntN(4), 0}
		gi.sfCompress = 400 + ((slen[0]*5+slen[1])<<2 | slen[2])
	case rng.IntN(2) == 0:
		table = 2
		slen = [4]int{rng.IntN(4), rng.IntN(3), 0, 0}
		gi.sfCompress = 500 + slen[0]*3 + slen[1]
		gi.preflag = true
	default:
		slen = [4]int{rng.IntN(5), rng.IntN(5), rng.IntN(4), rng.IntN(4)}
		gi.sfCompress = (slen[0]*5+slen[1])<<4 | slen[2]<<2 | slen[3]
	}
	kind, longBands, first := lsfKind(gi, &layouts[rateIndex(fx.rate)])
	long, short := 0, 3*first
	for p, count := range lsfPartitions[table][kind] {
		limit := 1 << slen[p]
		if intensity {
			limit = min(limit-1, 16) // see the function's comment
		}
		for range count {
			v := rng.IntN(limit)
			ch.lsfFields = append(ch.lsfFields, [2]int{v, slen[p]})
			if long < longBands {
				ch.sf.long[long] = v
				long++
				continue
			}
			ch.sf.short[short/3][short%3] = v
			short++
		}
	}
}

// lsfKind returns an MPEG-2 granule's partition kind (long, short, mixed), its number of long
// bands and its first short band.
func lsfKind(gi *granuleInfo, lay *bandLayout) (kind, longBands, first int) {
	switch {
	case gi.blockType != 2:
		return 0, 21, 0
	case gi.mixed:
		return 2, lay.mixedLong, 3
	}
	return 1, 0, 0
}

// countIntensity counts the bands of an intensity-stereo right channel above its values, and
// how many of them carry an illegal position.
func (fx craftedFixture) countIntensity(ch *craftChannel, lay *bandLayout, cov *craftCoverage) {
	last := -1
	for i, v := range ch.values {
		if v != 0 {
			last = i
		}
	}
	count := func(p int) {
		if fx.version == 1 && p >= 7 {
			cov.illegal++
		} else {
			cov.isBands++
		}
	}
	if ch.gi.blockType != 2 {
		for band := range 22 {
			if lay.longStart[band] > last {
				count(ch.sf.long[min(band, 20)])
			}
		}
		return
	}
	for band := 3 * b2i(ch.gi.mixed); band < 13; band++ {
		for w := range 3 {
			from := 3*lay.shortStart[band] + w*(lay.shortStart[band+1]-lay.shortStart[band])
			if from > last {
				count(ch.sf.short[min(band, 11)][w])
			}
		}
	}
}

// writeChannel writes a channel's scale factors and Huffman data.
func (fx craftedFixture) writeChannel(w *bitWriter, ch *craftChannel, g int, scfsi [4]bool, cov *craftCoverage) {
	gi := &ch.gi
	if fx.version == 1 {
		slen := slenMPEG1[gi.sfCompress]
		if gi.blockType == 2 {
			band := 0
			if gi.mixed {
				for ; band < 8; band++ {
					w.put(ch.sf.long[band], slen[0])
				}
				band = 3
			}
			for ; band < 12; band++ {
				for k := range 3 {
					w.put(ch.sf.short[band][k], slen[b2i(band >= 6)])
				}
			}
		} else {
			for grp, from := range [4]int{0, 6, 11, 16} {
				if g == 1 && scfsi[grp] {
					continue
				}
				for band := from; band < [4]int{6, 11, 16, 21}[grp]; band++ {
					w.put(ch.sf.long[band], slen[b2i(grp >= 2)])
				}
			}
		}
	} else {
		for _, f := range ch.lsfFields {
			w.put(f[0], f[1])
		}
	}
	from := 0
	for reg, to := range regionEnds(gi) {
		if tn := gi.tables[reg]; tn != 0 {
			for i := from; i < to; i += 2 {
				putPair(w, tn, ch.values[i], ch.values[i+1], cov)
			}
		}
		from = to
	}
	for i := 2 * gi.bigValues; i < ch.c1End; i += 4 {
		q := 0
		for k := range 4 {
			q = q<<1 | b2i(ch.values[i+k] != 0)
		}
		if gi.count1Table == 0 {
			w.put(int(quadCodesA.codes[q]), int(quadCodesA.lens[q]))
		} else {
			w.put(15-q, 4)
		}
		for k := range 4 {
			if v := ch.values[i+k]; v != 0 {
				w.put(b2i(v < 0), 1)
			}
		}
	}
}

// putPair writes the Huffman code of (x, y) in table tn, with linbits and signs.
func putPair(w *bitWriter, tn, x, y int, cov *craftCoverage) {
	t := &pairCodes[codeTableOf(tn)]
	lin := linbitsOf[tn]
	cx, cy := min(abs(x), 15), min(abs(y), 15)
	k := cx*t.dim + cy
	w.put(int(t.codes[k]), int(t.lens[k]))
	for _, v := range [2]int{x, y} {
		if lin > 0 && abs(v) >= 15 {
			w.put(abs(v)-15, lin)
			cov.linbits++
		}
		if v != 0 {
			w.put(b2i(v < 0), 1)
		}
	}
}

// pickTable chooses at random a pair table that can code magnitudes up to largest.
func pickTable(rng *rand.Rand, largest int) int {
	var fit []int
	for tn := 1; tn < 32; tn++ {
		dim := pairCodes[codeTableOf(tn)].dim
		if dim == 0 {
			continue // tables 4 and 14 do not exist
		}
		capacity := dim - 1
		if lin := linbitsOf[tn]; lin > 0 {
			capacity = 15 + 1<<lin - 1
		}
		if capacity >= largest {
			fit = append(fit, tn)
		}
	}
	if largest == 0 {
		fit = append(fit, 0)
	}
	return fit[rng.IntN(len(fit))]
}

// codedShortBand returns the short band and window of line i of a short block in coded order.
func codedShortBand(lay *bandLayout, i int) (band, w int) {
	for band = 0; band < 13; band++ {
		if end := 3 * lay.shortStart[band+1]; i < end {
			width := lay.shortStart[band+1] - lay.shortStart[band]
			return band, (i - 3*lay.shortStart[band]) / width
		}
	}
	return 12, 2
}

func (c *craftCoverage) add(o craftCoverage) {
	for k := range c.intensity {
		c.intensity[k] += o.intensity[k]
	}
	c.msAndIS += o.msAndIS
	c.isBands += o.isBands
	c.illegal += o.illegal
	c.mixedLong += o.mixedLong
	c.linbits += o.linbits
	c.scfsi += o.scfsi
	c.count1[0] += o.count1[0]
	c.count1[1] += o.count1[1]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// TestCraftedFixtures rebuilds the crafted fixtures, requires each to cover what it is for,
// and requires the committed files to be what the crafter makes (gen.sh rewrites them and
// ffmpeg's reference with -update-crafted). TestMatchesFFmpeg holds their decode to ffmpeg's.
func TestCraftedFixtures(t *testing.T) {
	t.Parallel()
	for _, fx := range craftedFixtures {
		t.Run(fx.name, func(t *testing.T) {
			t.Parallel()
			data, cov := fx.craft()
			t.Logf("%+v", cov)
			switch {
			case cov.intensity[0] == 0 || cov.intensity[1] == 0 || cov.intensity[2] == 0:
				t.Errorf("intensity stereo in long, short, mixed granules: %v; every kind must occur", cov.intensity)
			case cov.msAndIS == 0 || cov.isBands < 100 || cov.mixedLong == 0:
				t.Errorf("coverage too thin: %+v", cov)
			case fx.version == 1 && (cov.illegal == 0 || cov.scfsi == 0):
				t.Errorf("MPEG-1 stream without illegal positions or scfsi: %+v", cov)
			case cov.linbits == 0 || cov.count1[0] == 0 || cov.count1[1] == 0:
				t.Errorf("no linbits or a count1 table unused: %+v", cov)
			}
			path := filepath.Join("testdata", fx.name)
			if *updateCrafted {
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			committed, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(committed, data) {
				t.Fatalf("%s is not what the crafter makes: run testdata/gen.sh", path)
			}
			// Every frame decodes without error: no value or code is out of place.
			pcm, channels := decodeFile(t, data)
			if channels != 2 || len(pcm) == 0 {
				t.Fatalf("%d channels, %d samples", channels, len(pcm))
			}
		})
	}
}
