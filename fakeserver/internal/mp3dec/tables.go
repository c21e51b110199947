package mp3dec

// Scale-factor bands by sample rate, as band widths in lines: long blocks (22 bands of the 576
// lines) and short blocks (13 bands of each window's 192 lines). ISO/IEC 11172-3 Table B.8
// (MPEG-1), ISO/IEC 13818-3 Table B.2 (MPEG-2) and the MPEG-2.5 extension, whose 11.025 and
// 12 kHz bands are those of MPEG-2 at 16 kHz. At 24 kHz, long band 17 ends at line 330 as in
// ffmpeg and mpg123, where the printed table (and LAME's encoder) says 332: the fake's figures
// are held to ffmpeg's, and a LAME file decodes to ffmpeg's samples only this way.
var (
	longWidths = [9][22]int{
		{4, 4, 4, 4, 4, 4, 6, 6, 8, 8, 10, 12, 16, 20, 24, 28, 34, 42, 50, 54, 76, 158},     // 44.1 kHz
		{4, 4, 4, 4, 4, 4, 6, 6, 6, 8, 10, 12, 16, 18, 22, 28, 34, 40, 46, 54, 54, 192},     // 48 kHz
		{4, 4, 4, 4, 4, 4, 6, 6, 8, 10, 12, 16, 20, 24, 30, 38, 46, 56, 68, 84, 102, 26},    // 32 kHz
		{6, 6, 6, 6, 6, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 38, 46, 52, 60, 68, 58, 54},   // 22.05 kHz
		{6, 6, 6, 6, 6, 6, 8, 10, 12, 14, 16, 18, 22, 26, 32, 38, 46, 52, 64, 70, 76, 36},   // 24 kHz
		{6, 6, 6, 6, 6, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 38, 46, 52, 60, 68, 58, 54},   // 16 kHz
		{6, 6, 6, 6, 6, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 38, 46, 52, 60, 68, 58, 54},   // 11.025 kHz
		{6, 6, 6, 6, 6, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 38, 46, 52, 60, 68, 58, 54},   // 12 kHz
		{12, 12, 12, 12, 12, 12, 16, 20, 24, 28, 32, 40, 48, 56, 64, 76, 90, 2, 2, 2, 2, 2}, // 8 kHz
	}
	shortWidths = [9][13]int{
		{4, 4, 4, 4, 6, 8, 10, 12, 14, 18, 22, 30, 56},  // 44.1 kHz
		{4, 4, 4, 4, 6, 6, 10, 12, 14, 16, 20, 26, 66},  // 48 kHz
		{4, 4, 4, 4, 6, 8, 12, 16, 20, 26, 34, 42, 12},  // 32 kHz
		{4, 4, 4, 6, 6, 8, 10, 14, 18, 26, 32, 42, 18},  // 22.05 kHz
		{4, 4, 4, 6, 8, 10, 12, 14, 18, 24, 32, 44, 12}, // 24 kHz
		{4, 4, 4, 6, 8, 10, 12, 14, 18, 24, 30, 40, 18}, // 16 kHz
		{4, 4, 4, 6, 8, 10, 12, 14, 18, 24, 30, 40, 18}, // 11.025 kHz
		{4, 4, 4, 6, 8, 10, 12, 14, 18, 24, 30, 40, 18}, // 12 kHz
		{8, 8, 8, 12, 16, 20, 24, 28, 36, 2, 2, 2, 26},  // 8 kHz
	}
)

// pretab is the pre-emphasis added to long-block scale factors when preflag is set (Table B.6).
var pretab = [22]int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 3, 2, 0}

// slenMPEG1 are the bit lengths of the two groups of scale factors by scalefac_compress (MPEG-1).
var slenMPEG1 = [16][2]int{
	{0, 0}, {0, 1}, {0, 2}, {0, 3}, {3, 0}, {1, 1}, {1, 2}, {1, 3},
	{2, 1}, {2, 2}, {2, 3}, {3, 1}, {3, 2}, {3, 3}, {4, 2}, {4, 3},
}

// lsfPartitions is ISO/IEC 13818-3's number of scale factors in each of the four partitions,
// by partition table (0–2 without intensity stereo in the right channel, 3–5 with it) and by
// block kind (long, short, mixed). Short and mixed counts are scale factors, three per short
// band.
var lsfPartitions = [6][3][4]int{
	{{6, 5, 5, 5}, {9, 9, 9, 9}, {6, 9, 9, 9}},
	{{6, 5, 7, 3}, {9, 9, 12, 6}, {6, 9, 12, 6}},
	{{11, 10, 0, 0}, {18, 18, 0, 0}, {15, 18, 0, 0}},
	{{7, 7, 7, 0}, {12, 12, 12, 0}, {6, 15, 12, 0}},
	{{6, 6, 6, 3}, {12, 9, 9, 6}, {6, 12, 9, 6}},
	{{8, 8, 5, 0}, {15, 12, 9, 0}, {6, 18, 9, 0}},
}

// bandLayout is what the bitstream stage derives from a sample rate's band widths.
type bandLayout struct {
	longStart  [23]int // first line of each long band; longStart[22] = 576
	shortStart [14]int // first line of each short band within a window; shortStart[13] = 192
	mixedLong  int     // long bands in the long part (36 lines) of a mixed block
	// reorderShort maps a short block's coded position (band by band, each band's three windows
	// in turn) to its place in the filter bank's layout; reorderMixed does the same for a mixed
	// block, whose first 36 lines keep their place.
	reorderShort, reorderMixed [576]int16
}

// rateIndex is the index of a sample rate in the band tables, or −1.
func rateIndex(rate int) int {
	switch rate {
	case 44100:
		return 0
	case 48000:
		return 1
	case 32000:
		return 2
	case 22050:
		return 3
	case 24000:
		return 4
	case 16000:
		return 5
	case 11025:
		return 6
	case 12000:
		return 7
	case 8000:
		return 8
	}
	return -1
}

// layouts are the band layouts of the nine sample rates.
var layouts = func() (l [9]bandLayout) {
	for r := range l {
		b := &l[r]
		for i, w := range longWidths[r] {
			b.longStart[i+1] = b.longStart[i] + w
		}
		for i, w := range shortWidths[r] {
			b.shortStart[i+1] = b.shortStart[i] + w
		}
		for b.longStart[b.mixedLong] < 36 {
			b.mixedLong++
		}
		for i := range 576 {
			b.reorderMixed[i] = int16(i)
		}
		for _, kind := range []struct {
			m     *[576]int16
			first int // first short band
		}{{&b.reorderShort, 0}, {&b.reorderMixed, 3}} {
			c := 3 * b.shortStart[kind.first]
			for band := kind.first; band < 13; band++ {
				for w := range 3 {
					for f := b.shortStart[band]; f < b.shortStart[band+1]; f++ {
						kind.m[c] = int16(18*(f/6) + 6*w + f%6)
						c++
					}
				}
			}
		}
	}
	return l
}()
