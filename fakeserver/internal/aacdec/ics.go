package aacdec

import (
	"fmt"
	"math"
)

// Band types (codebooks) of section data; 12 is reserved.
const (
	zeroBand       = 0
	escBook        = 11
	noiseBand      = 13
	intensityBand2 = 14 // intensity stereo, out of phase
	intensityBand  = 15 // intensity stereo, in phase
)

const maxBands = 64 // max_sfb has 6 bits

// icsInfo is the window layout of one channel's frame (4.4.2.1, ics_info).
type icsInfo struct {
	windowSequence int
	windowShape    int
	maxSFB         int
	numWindows     int
	numGroups      int
	groupLen       [8]int
	offsets        []uint16 // band offsets within one window
}

// channel is one channel's frame as it is parsed and dequantized.
type channel struct {
	info     icsInfo
	bandType [8][maxBands]uint8
	sf       [8][maxBands]int // scale factor, intensity position or noise energy by band type
	tns      tnsData
	spec     [1024]float64 // dequantized spectrum, short windows at w·128
	quant    [1024]int32
}

// tnsData is a channel's temporal noise shaping filters (4.6.9).
type tnsData struct {
	present bool
	nFilt   [8]int
	filt    [8][4]tnsFilter
}

type tnsFilter struct {
	length, order int
	down          bool
	coef          [tnsMaxOrder]float64 // reflection coefficients
}

// tnsMaxOrder is the highest TNS order of AAC LC long windows (7 for short ones).
const tnsMaxOrder = 12

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// readInfo reads ics_info.
func (d *Decoder) readInfo(r *bitReader, info *icsInfo) error {
	if r.bit() {
		return corrupt("ics_reserved_bit set")
	}
	info.windowSequence = int(r.read(2))
	info.windowShape = int(r.read(1))
	bands := d.bands
	if info.windowSequence == eightShort {
		info.maxSFB = int(r.read(4))
		grouping := r.read(7)
		info.numWindows = 8
		info.numGroups = 1
		info.groupLen = [8]int{1}
		for i := 6; i >= 0; i-- {
			if grouping>>uint(i)&1 == 1 {
				info.groupLen[info.numGroups-1]++
			} else {
				info.groupLen[info.numGroups] = 1
				info.numGroups++
			}
		}
		info.offsets = bands.short
	} else {
		info.maxSFB = int(r.read(6))
		info.numWindows = 1
		info.numGroups = 1
		info.groupLen = [8]int{1}
		info.offsets = bands.long
		if r.bit() {
			return corrupt("prediction data (AAC Main) in an AAC LC stream")
		}
	}
	if info.maxSFB > len(info.offsets)-1 {
		return corrupt("max_sfb %d of %d bands", info.maxSFB, len(info.offsets)-1)
	}
	return nil
}

// readChannel reads individual_channel_stream and dequantizes its spectrum.
func (d *Decoder) readChannel(r *bitReader, ch *channel, commonWindow bool) error {
	globalGain := int(r.read(8))
	if !commonWindow {
		if err := d.readInfo(r, &ch.info); err != nil {
			return err
		}
	}
	info := &ch.info
	if err := readSections(r, ch); err != nil {
		return err
	}
	if err := d.readScaleFactors(r, ch, globalGain); err != nil {
		return err
	}
	var pulses pulseData
	if r.bit() {
		if info.windowSequence == eightShort {
			return corrupt("pulse data in short windows")
		}
		pulses.n = int(r.read(2)) + 1
		start := int(r.read(6))
		if start >= len(info.offsets)-1 {
			return corrupt("pulse start band %d", start)
		}
		pos := int(info.offsets[start])
		for i := range pulses.n {
			pos += int(r.read(5))
			if pos >= 1024 {
				return corrupt("pulse beyond the spectrum")
			}
			pulses.pos[i] = pos
			pulses.amp[i] = int32(r.read(4))
		}
	}
	ch.tns.present = r.bit()
	if ch.tns.present {
		if err := readTNS(r, ch); err != nil {
			return err
		}
	}
	if r.bit() {
		return corrupt("gain control data (AAC SSR) in an AAC LC stream")
	}
	if err := d.readSpectrum(r, ch); err != nil {
		return err
	}
	if pulses.n > 0 {
		d.stats.Pulses++
	}
	for i := range pulses.n {
		q := &ch.quant[pulses.pos[i]]
		if *q > 0 {
			*q += pulses.amp[i]
		} else {
			*q -= pulses.amp[i]
		}
	}
	if r.overrun {
		return corrupt("channel data past the frame's end")
	}
	d.dequantize(ch)
	return nil
}

type pulseData struct {
	n   int
	pos [4]int
	amp [4]int32
}

// readSections reads section_data: the band type of every band.
func readSections(r *bitReader, ch *channel) error {
	info := &ch.info
	bits, esc := uint(5), uint32(31)
	if info.windowSequence == eightShort {
		bits, esc = 3, 7
	}
	for g := range info.numGroups {
		for k := 0; k < info.maxSFB; {
			cb := uint8(r.read(4))
			if cb == 12 {
				return corrupt("reserved codebook 12")
			}
			n := 0
			for {
				inc := r.read(bits)
				n += int(inc)
				if inc != esc || r.overrun {
					break
				}
			}
			if r.overrun || k+n > info.maxSFB {
				return corrupt("section past max_sfb")
			}
			for ; n > 0; n-- {
				ch.bandType[g][k] = cb
				k++
			}
		}
	}
	return nil
}

// readScaleFactors reads scale_factor_data (4.6.2.3.2): scale factors, intensity positions
// and noise energies, each coded as a difference from the last of its kind.
func (d *Decoder) readScaleFactors(r *bitReader, ch *channel, globalGain int) error {
	info := &ch.info
	sf, noise, is := globalGain, globalGain-90, 0
	firstNoise := true
	for g := range info.numGroups {
		for b := range info.maxSFB {
			switch ch.bandType[g][b] {
			case zeroBand:
				ch.sf[g][b] = 0
			case intensityBand, intensityBand2:
				is += r.decode(d.sfTable) - 60
				ch.sf[g][b] = min(max(is, -155), 100) // as ffmpeg clips it: the scale stays finite
			case noiseBand:
				if firstNoise {
					firstNoise = false
					noise += int(r.read(9)) - 256
				} else {
					noise += r.decode(d.sfTable) - 60
				}
				ch.sf[g][b] = min(max(noise, -100), 155) // as ffmpeg clips it
			default:
				sf += r.decode(d.sfTable) - 60
				if sf < 0 || sf > 255 {
					return corrupt("scale factor %d", sf)
				}
				ch.sf[g][b] = sf
			}
		}
	}
	if r.overrun {
		return corrupt("scale factors past the frame's end")
	}
	return nil
}

// readTNS reads tns_data.
func readTNS(r *bitReader, ch *channel) error {
	info := &ch.info
	short := info.windowSequence == eightShort
	nBits, lenBits, orderBits, maxOrder := uint(2), uint(6), uint(5), tnsMaxOrder
	if short {
		nBits, lenBits, orderBits, maxOrder = 1, 4, 3, 7
	}
	for w := range info.numWindows {
		n := int(r.read(nBits))
		ch.tns.nFilt[w] = n
		if n == 0 {
			continue
		}
		res := uint(r.read(1)) + 3
		for f := range n {
			flt := &ch.tns.filt[w][f]
			flt.length = int(r.read(lenBits))
			flt.order = int(r.read(orderBits))
			if flt.order > maxOrder {
				return corrupt("TNS order %d", flt.order)
			}
			if flt.order == 0 {
				continue
			}
			flt.down = r.bit()
			compress := uint(r.read(1))
			bits := res - compress
			// Inverse quantization of the reflection coefficients (4.6.9.3).
			iqfac := (float64(int(1)<<(res-1)) - 0.5) / (math.Pi / 2)
			iqfacM := (float64(int(1)<<(res-1)) + 0.5) / (math.Pi / 2)
			for i := range flt.order {
				v := int(r.read(bits))
				if v >= 1<<(bits-1) {
					v -= 1 << bits
				}
				if v >= 0 {
					flt.coef[i] = math.Sin(float64(v) / iqfac)
				} else {
					flt.coef[i] = math.Sin(float64(v) / iqfacM)
				}
			}
		}
	}
	return nil
}

// readSpectrum reads spectral_data into ch.quant.
func (d *Decoder) readSpectrum(r *bitReader, ch *channel) error {
	info := &ch.info
	clear(ch.quant[:])
	win := 0
	for g := range info.numGroups {
		for b := range info.maxSFB {
			cb := int(ch.bandType[g][b])
			if cb == zeroBand || cb >= noiseBand {
				continue
			}
			shape := codebookShapes[cb-1]
			t := d.spectral[cb-1]
			values := spectralValues[cb-1]
			unsigned := shape.offset == 0
			lo, hi := int(info.offsets[b]), int(info.offsets[b+1])
			for w := win; w < win+info.groupLen[g]; w++ {
				q := ch.quant[w*128:]
				for k := lo; k < hi; k += shape.dim {
					e, signs, ok := r.decodeSpectral(t, values, unsigned)
					if !ok {
						return corrupt("no codeword of codebook %d", cb)
					}
					if unsigned {
						for j := range shape.dim {
							v := int32(int8(e >> (8 * j)))
							if v != 0 {
								if signs&(1<<31) != 0 {
									v = -v
								}
								signs <<= 1
							}
							q[k+j] = v
						}
					} else {
						for j := range shape.dim {
							q[k+j] = int32(int8(e >> (8 * j)))
						}
					}
					if cb == escBook {
						for j := range 2 {
							if v := q[k+j]; v == 16 || v == -16 {
								d.stats.Escapes++
								e, err := readEscape(r)
								if err != nil {
									return err
								}
								if v < 0 {
									e = -e
								}
								q[k+j] = e
							}
						}
					}
				}
				if r.overrun {
					return corrupt("spectral data past the frame's end")
				}
			}
		}
		win += info.groupLen[g]
	}
	return nil
}

// readEscape reads an escape sequence of codebook 11: N ones, a zero, then N+4 bits.
func readEscape(r *bitReader) (int32, error) {
	n := uint(0)
	for r.bit() {
		n++
		if n > 8 || r.overrun {
			return 0, corrupt("escape sequence too long")
		}
	}
	return int32(1)<<(n+4) + int32(r.read(n+4)), nil
}

// codebookShape says how a spectral codebook's symbols hold values.
type codebookShape struct {
	dim, mod, offset int
}

var codebookShapes = [11]codebookShape{
	{4, 3, 1}, {4, 3, 1}, {4, 3, 0}, {4, 3, 0}, {2, 9, 4}, {2, 9, 4},
	{2, 8, 0}, {2, 8, 0}, {2, 13, 0}, {2, 13, 0}, {2, 17, 0},
}

// spectralValues unpacks each spectral codebook's symbols, so that decoding a codeword divides
// nothing: spectralValues[cb-1][sym] holds the symbol's value j (before any sign bit) as an
// int8 in byte j, and above bit 32 how many of its values are nonzero.
var spectralValues = func() (t [11][]uint64) {
	for i, shape := range codebookShapes {
		n := 1
		for range shape.dim {
			n *= shape.mod
		}
		t[i] = make([]uint64, n)
		for sym := range n {
			var e uint64
			rest := sym
			for j := shape.dim - 1; j >= 0; j-- {
				v := rest%shape.mod - shape.offset
				rest /= shape.mod
				e |= uint64(uint8(int8(v))) << (8 * j)
				if v != 0 {
					e += 1 << 32
				}
			}
			t[i][sym] = e
		}
	}
	return t
}()

// dequantize fills ch.spec: |q|^(4/3) · 2^((sf−100)/4) with q's sign (4.6.1.3, 4.6.2.3.3), and
// noise for noise bands (4.6.13), from ffmpeg's generator so that decodes compare sample by
// sample.
func (d *Decoder) dequantize(ch *channel) {
	info := &ch.info
	clear(ch.spec[:])
	win := 0
	for g := range info.numGroups {
		for b := range info.maxSFB {
			lo, hi := int(info.offsets[b]), int(info.offsets[b+1])
			switch cb := ch.bandType[g][b]; {
			case cb == zeroBand || cb == intensityBand || cb == intensityBand2:
			case cb == noiseBand:
				d.stats.Noise++
				gain := exp2Quarter(ch.sf[g][b])
				for w := win; w < win+info.groupLen[g]; w++ {
					s := ch.spec[w*128+lo : w*128+hi]
					var energy float32
					for k := range s {
						d.random = d.random*1664525 + 1013904223
						v := float32(int32(d.random))
						s[k] = float64(v)
						energy += v * v
					}
					scale := gain / math.Sqrt(float64(energy))
					for k := range s {
						s[k] *= scale
					}
				}
			default:
				gain := exp2Quarter(ch.sf[g][b] - 100)
				for w := win; w < win+info.groupLen[g]; w++ {
					q := ch.quant[w*128+lo : w*128+hi]
					s := ch.spec[w*128+lo : w*128+hi]
					s = s[:len(q)]
					for k, v := range q {
						s[k] = pow43(v) * gain
					}
				}
			}
		}
		win += info.groupLen[g]
	}
}

// pow43 is sign(q)·|q|^(4/3). Signs of spectral values are as likely as not, so the sign is
// applied to the bits rather than by a branch the processor would mispredict.
func pow43(q int32) float64 {
	neg := uint32(q) >> 31
	a := (uint32(q) ^ -neg) + neg // |q|, as an unsigned number even for the most negative q
	var m float64
	if a < uint32(len(pow43Table)) {
		m = pow43Table[a]
	} else {
		m = math.Pow(float64(a), 4.0/3)
	}
	// neg is 1 only where |q| ≥ 1, so no −0 appears.
	return math.Float64frombits(math.Float64bits(m) | uint64(neg)<<63)
}

var pow43Table = func() []float64 {
	t := make([]float64, 8192+16)
	for i := range t {
		t[i] = math.Pow(float64(i), 4.0/3)
	}
	return t
}()

// exp2QuarterTable[v+256] is 2^(v/4): the scale of every scale factor, noise energy and
// intensity position a stream can code lies within ±256 quarter steps.
var exp2QuarterTable = func() (t [512]float64) {
	for i := range t {
		t[i] = math.Exp2(float64(i-256) / 4)
	}
	return t
}()

// exp2Quarter is 2^(v/4).
func exp2Quarter(v int) float64 {
	if i := uint(v + 256); i < uint(len(exp2QuarterTable)) {
		return exp2QuarterTable[i]
	}
	return math.Exp2(float64(v) / 4)
}
