// Package mp3enc is an MPEG audio layer III encoder: constant bit rate, mono or stereo, MPEG-1
// at 32, 44.1 and 48 kHz (32 to 320 kbit/s), MPEG-2 at 16, 22.05 and 24 kHz and MPEG-2.5 at 8,
// 11.025 and 12 kHz (8 to 160 kbit/s), short blocks where a granule holds a transient (with start and
// stop blocks around them) and long blocks elsewhere, no psychoacoustic model. Each granule is
// quantized as finely as its share of the frame allows. A LAME-style Info frame leads the
// stream with the encoder delay and padding, so that decoders that honour it (ffmpeg,
// internal/audio) return exactly the samples encoded.
//
// It streams: memory is flat in the length of the audio. The total number of samples must be
// known at the start, since the Info frame, written first, states the frame count and padding.
package mp3enc

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/podqa/podqa-go/fakeserver/internal/mp3dec"
)

// Options are the stream's parameters.
type Options struct {
	SampleRate int // 32000, 44100 or 48000 (MPEG-1); 16000, 22050 or 24000 (MPEG-2); 8000, 11025 or 12000 (MPEG-2.5)
	Channels   int // 1 or 2
	// BitRate is in kbit/s: 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256 or 320 for
	// MPEG-1; 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144 or 160 for MPEG-2 and 2.5.
	BitRate int
}

// ErrOptions is wrapped by New's error for options outside the encoder's range.
var ErrOptions = errors.New("mp3enc: unsupported options")

const (
	granule     = 576
	frameLength = 2 * granule // MPEG-1's; MPEG-2 and 2.5 frames hold one granule
	// decoderDelay is the lag of the standard's synthesis filter bank that decoders add back
	// to the Info frame's delay (ffmpeg skips delay + 529 samples).
	decoderDelay = 529
	// encoderDelay is the Info frame's delay: the stream's whole lag, 1633 samples (a granule
	// of lookahead for block switching, the MDCT's granule and the two filter banks; TestDelay
	// measures it), less the decoder's 529.
	encoderDelay = 1104
	maxIX        = 15 + 8191 // the largest value table 31's linbits carry
)

// mpegVersion is what the MPEG version decides: MPEG-1 frames hold two granules, MPEG-2 and 2.5
// (the low sampling frequencies) one, with shorter side information and other bit rates.
type mpegVersion struct {
	rates      [3]int // by sampling frequency index
	bitRates   [15]int
	granules   int
	slots      int  // bytes per frame are slots × bit rate (kbit/s) / sample rate
	headerByte byte // the header's second byte: sync, version, layer III, no CRC
	sideMono   int  // bytes of side information, mono
	sideStereo int
}

var versions = [3]mpegVersion{
	{[3]int{44100, 48000, 32000}, [15]int{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320}, 2, 144000, 0xFB, 17, 32},
	{[3]int{22050, 24000, 16000}, lsfBitRates, 1, 72000, 0xF3, 9, 17},
	{[3]int{11025, 12000, 8000}, lsfBitRates, 1, 72000, 0xE3, 9, 17},
}

var lsfBitRates = [15]int{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160}

// Encoder writes an MP3 stream of a known number of samples. Write passes interleaved samples
// in [-1, 1]; Close flushes the last frames. An Encoder is not safe for concurrent use.
type Encoder struct {
	w        io.Writer
	o        Options
	total    int64 // samples per channel the caller announced
	size     int64 // bytes of the whole stream
	written  int64 // samples per channel taken so far
	frames   int   // audio frames the stream holds (the Info frame excluded)
	sent     int   // audio frames written
	rateIdx  int
	freqIdx  int
	v        *mpegVersion
	frameLen int // samples per channel in a frame
	slotRest int // accumulator of the padding slots (44.1 kHz)

	bands [23]int // first line of each long band
	short [14]int // first line of each short band in a window
	ch    [2]channel
	// attack says which of the granules the channels hold (the block's two, then the one
	// after) has a transient; last is the type of the last block.
	attack [2]bool
	last   int
	pcm    [2][frameLength]float64
	fill   int
	out    []byte
	bits   bitWriter
	closed bool
}

// BitRates returns the bit rates, in kbit/s, the encoder takes at a sample rate (MPEG-1's or
// MPEG-2's and 2.5's), or nil for a rate it does not take.
func BitRates(sampleRate int) []int {
	for _, v := range versions {
		if slices.Contains(v.rates[:], sampleRate) {
			return slices.Clone(v.bitRates[1:])
		}
	}
	return nil
}

// StreamSize returns the size in bytes of the stream of totalSamples samples per channel, as New
// and Close write it.
func StreamSize(o Options, totalSamples int64) (int64, error) {
	e, err := New(io.Discard, o, totalSamples)
	if err != nil {
		return 0, err
	}
	return e.size, nil
}

// New returns an encoder writing to w the stream of totalSamples samples per channel. It writes
// the Info frame at once.
func New(w io.Writer, o Options, totalSamples int64) (*Encoder, error) {
	e := &Encoder{w: w, o: o, total: totalSamples}
	for vi := range versions {
		for fi, r := range versions[vi].rates {
			if r == o.SampleRate {
				e.v, e.freqIdx = &versions[vi], fi
			}
		}
	}
	if e.v == nil {
		return nil, fmt.Errorf("%w: sample rate %d", ErrOptions, o.SampleRate)
	}
	e.frameLen = e.v.granules * granule
	if o.Channels != 1 && o.Channels != 2 {
		return nil, fmt.Errorf("%w: %d channels", ErrOptions, o.Channels)
	}
	for i, r := range e.v.bitRates {
		if r == o.BitRate && r != 0 {
			e.rateIdx = i
		}
	}
	if e.rateIdx == 0 {
		return nil, fmt.Errorf("%w: bit rate %d kbit/s", ErrOptions, o.BitRate)
	}
	if totalSamples < 0 {
		return nil, fmt.Errorf("%w: %d samples", ErrOptions, totalSamples)
	}
	widths, _ := mp3dec.LongBandWidths(o.SampleRate)
	for i, wd := range widths {
		e.bands[i+1] = e.bands[i] + wd
	}
	shortWidths, _ := mp3dec.ShortBandWidths(o.SampleRate)
	for i, wd := range shortWidths {
		e.short[i+1] = e.short[i] + wd
	}
	var silence [granule]float64
	for c := range o.Channels { // a granule of lookahead: the stream starts a granule later
		e.ch[c].push(silence[:], blockLong, &e.short)
	}
	lag := int64(encoderDelay + decoderDelay)
	e.frames = int((totalSamples + lag + int64(e.frameLen) - 1) / int64(e.frameLen))
	if err := e.writeInfo(); err != nil {
		return nil, err
	}
	return e, nil
}

// Write encodes interleaved samples (Channels values per instant), in [-1, 1]. Writing more
// samples than announced is an error.
//
//go:norace
func (e *Encoder) Write(samples []float64) error {
	if e.closed {
		return errors.New("mp3enc: write after Close")
	}
	nch := e.o.Channels
	if len(samples)%nch != 0 {
		return fmt.Errorf("mp3enc: %d values are not whole instants of %d channels", len(samples), nch)
	}
	if e.written+int64(len(samples)/nch) > e.total {
		return fmt.Errorf("mp3enc: more than the %d samples announced", e.total)
	}
	for i := 0; i < len(samples); i += nch {
		for c := range nch {
			e.pcm[c][e.fill] = samples[i+c]
		}
		e.fill++
		e.written++
		if e.fill == e.frameLen {
			if err := e.encodeFrame(); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close pads the stream with silence to its announced frame count and flushes it. It fails if
// fewer samples than announced were written.
func (e *Encoder) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	if e.written != e.total {
		return fmt.Errorf("mp3enc: %d samples written of the %d announced", e.written, e.total)
	}
	for e.sent < e.frames {
		for c := range e.o.Channels {
			clear(e.pcm[c][e.fill:])
		}
		e.fill = e.frameLen
		if err := e.encodeFrame(); err != nil {
			return err
		}
	}
	return nil
}

// frameBytes returns the size of the next frame and whether it is padded.
func (e *Encoder) frameBytes() (int, bool) {
	num := e.v.slots * e.o.BitRate
	size := num / e.o.SampleRate
	e.slotRest += num % e.o.SampleRate
	if e.slotRest >= e.o.SampleRate {
		e.slotRest -= e.o.SampleRate
		return size + 1, true
	}
	return size, false
}

func (e *Encoder) sideInfoBytes() int {
	if e.o.Channels == 1 {
		return e.v.sideMono
	}
	return e.v.sideStereo
}

func (e *Encoder) header(padded bool) [4]byte {
	mode := 0 // stereo
	if e.o.Channels == 1 {
		mode = 3
	}
	pad := 0
	if padded {
		pad = 1
	}
	return [4]byte{
		0xFF,
		e.v.headerByte,
		byte(e.rateIdx<<4 | e.freqIdx<<2 | pad<<1),
		byte(mode<<6 | 1<<2), // original
	}
}

// encodeFrame encodes the samples in pcm (two granules, or one for MPEG-2 and 2.5) as one frame, unless the stream already has all
// its frames (the tail of the announced samples fits in the frames written).
func (e *Encoder) encodeFrame() error {
	e.fill = 0
	if e.sent >= e.frames {
		return nil
	}
	size, padded := e.frameBytes()
	nch := e.o.Channels
	side := e.sideInfoBytes()
	grs := e.v.granules
	budget := (size - 4 - side) * 8 / (grs * nch)
	budget = min(budget, 4095)
	var gr [2][2]granuleCode
	for g := range grs {
		next := false
		for c := range nch {
			next = e.ch[c].transient(e.pcm[c][g*granule:(g+1)*granule]) || next
		}
		bt := blockType(e.attack[0] || e.attack[1], next, e.last)
		for c := range nch {
			xr, _ := e.ch[c].push(e.pcm[c][g*granule:(g+1)*granule], bt, &e.short)
			gr[g][c] = quantize(xr, budget, &e.bands, &e.short, bt)
		}
		e.attack, e.last = [2]bool{e.attack[1], next}, bt
	}
	e.bits.reset()
	// side information; main_data_begin is 0: no bit reservoir
	mpeg1 := grs == 2
	if mpeg1 {
		e.bits.put(0, 9)
		e.bits.put(0, 5-2*(nch-1)) // private bits
		e.bits.put(0, 4*nch)       // scfsi
	} else {
		e.bits.put(0, 8)
		e.bits.put(0, nch) // private bits
	}
	for g := range grs {
		for c := range nch {
			gc := &gr[g][c]
			e.bits.put(gc.part23, 12)
			e.bits.put(gc.bigValues, 9)
			e.bits.put(gc.globalGain, 8)
			if mpeg1 { // scalefac_compress: no scale factors
				e.bits.put(0, 4)
			} else {
				e.bits.put(0, 9)
			}
			if gc.blockType == blockLong {
				e.bits.put(0, 1) // window_switching_flag
				for _, t := range gc.tables {
					e.bits.put(t, 5)
				}
				e.bits.put(gc.region0, 4)
				e.bits.put(gc.region1, 3)
			} else {
				e.bits.put(1, 1)
				e.bits.put(gc.blockType, 2)
				e.bits.put(0, 1) // mixed_block_flag
				e.bits.put(gc.tables[0], 5)
				e.bits.put(gc.tables[1], 5)
				e.bits.put(0, 9) // subblock_gain of the three windows
			}
			if mpeg1 {
				e.bits.put(0, 1) // preflag
			}
			e.bits.put(0, 1) // scalefac_scale
			e.bits.put(gc.count1Table, 1)
		}
	}
	for g := range grs {
		for c := range nch {
			gr[g][c].write(&e.bits)
		}
	}
	data := e.bits.bytes()
	h := e.header(padded)
	e.out = append(e.out[:0], h[:]...)
	e.out = append(e.out, data...)
	if len(e.out) > size {
		return fmt.Errorf("mp3enc: frame of %d bytes overflows its %d", len(e.out), size)
	}
	for len(e.out) < size { // the frame's unused bits are zero
		e.out = append(e.out, 0)
	}
	e.sent++
	_, err := e.w.Write(e.out)
	return err
}

// The numeric kernels in this file are marked //go:norace (and //go:nocheckptr where math's
// unsafe bit conversions are inlined into them): they touch only their receiver's and arguments'
// buffers and tables written once by init, so the race detector's per-access calls would only
// slow them (most of the encoder's time under -race) without guarding anything. An Encoder is used
// by one goroutine, and every hand-off between goroutines happens outside these functions,
// where the detector still sees it.

// Block types of the side information.
const (
	blockLong  = 0
	blockStart = 1
	blockShort = 2
	blockStop  = 3
)

// channel is one channel's filter-bank state. Each granule's subband samples wait one granule
// before their MDCT, so that a transient in the next granule can make this block a start block.
type channel struct {
	// fifo holds the analysis window's 512 inputs, newest first, at fifo[o:o+512]: o starts a
	// granule at granule and falls by 32 with each 32 samples, so that the window slides over
	// the samples already there; the granule's end moves the newest 480 back to fifo[granule:],
	// one copy a granule instead of one per 32 samples.
	fifo   [granule + 512]float64
	prev   [32][18]float64
	cur    [32][18]float64
	last   int  // the block type of the last block made
	primed bool // cur holds a granule
	// lastSample and energy are the transient detector's memory.
	lastSample, energy float64
}

// Constant tables, computed once.
var (
	analysisWindow [512]float64
	matrix         [32][64]float64
	mdctCos        [4][18][36]float64 // window and cosine of the MDCT of block types 0, 1 and 3
	shortCos       [6][12]float64     // window and cosine of a short block's MDCT
	aliasCS        [8]float64
	aliasCA        [8]float64
)

func init() {
	d := mp3dec.SynthesisWindow()
	for i := range d {
		analysisWindow[i] = d[i] / 32
	}
	for k := range 32 {
		for i := range 64 {
			matrix[k][i] = math.Cos(float64((2*k+1)*(i-16)) * math.Pi / 64)
		}
	}
	var windows [4][36]float64
	for i := range 36 {
		long := math.Sin(math.Pi / 36 * (float64(i) + 0.5))
		windows[blockLong][i] = long
		switch {
		case i < 18:
			windows[blockStart][i] = long
		case i < 24:
			windows[blockStart][i] = 1
		case i < 30:
			windows[blockStart][i] = math.Sin(math.Pi / 12 * (float64(i-18) + 0.5))
		}
		switch {
		case i < 6:
		case i < 12:
			windows[blockStop][i] = math.Sin(math.Pi / 12 * (float64(i-6) + 0.5))
		case i < 18:
			windows[blockStop][i] = 1
		default:
			windows[blockStop][i] = long
		}
	}
	for _, bt := range []int{blockLong, blockStart, blockStop} {
		for k := range 18 {
			for i := range 36 {
				mdctCos[bt][k][i] = windows[bt][i] * math.Cos(math.Pi/72*float64((2*i+1+18)*(2*k+1))) * mdctScale
			}
		}
	}
	for k := range 6 {
		for i := range 12 {
			w := math.Sin(math.Pi / 12 * (float64(i) + 0.5))
			shortCos[k][i] = w * math.Cos(math.Pi/24*float64((2*i+1+6)*(2*k+1))) * shortScale
		}
	}
	coef := [8]float64{-0.6, -0.535, -0.33, -0.185, -0.095, -0.041, -0.0142, -0.0037}
	for i, c := range coef {
		sq := math.Sqrt(1 + c*c)
		aliasCS[i] = 1 / sq
		aliasCA[i] = c / sq
	}
}

// mdctScale and shortScale make the decoder's IMDCTs and overlap give back the subband samples.
const (
	mdctScale  = 1.0 / 9
	shortScale = 1.0 / 3
)

// subbands runs one granule of 576 samples through the polyphase filter bank.
//
//go:norace
func (c *channel) subbands(pcm []float64) (sub [32][18]float64) {
	for t := range 18 {
		o := granule - 32*(t+1)
		fifo := (*[512]float64)(c.fifo[o : o+512])
		for i := range 32 {
			fifo[31-i] = pcm[t*32+i]
		}
		var y [64]float64
		for i := range 64 {
			var s float64
			for j := range 8 {
				s += analysisWindow[i+64*j] * fifo[i+64*j]
			}
			y[i] = s
		}
		for k := range 32 {
			var s float64
			row := &matrix[k]
			for i := range 64 {
				s += row[i] * y[i]
			}
			if k%2 == 1 && t%2 == 1 { // the decoder inverts these again
				s = -s
			}
			sub[k][t] = s
		}
	}
	copy(c.fifo[granule:granule+480], c.fifo[:480])
	return sub
}

// push takes the next granule's samples and returns the spectrum of the block before it, of
// the given type, in coded order (a short block's lines by band, each band's three windows in
// turn). The first push only primes the channel and returns false.
//
//go:norace
func (c *channel) push(pcm []float64, blockType int, shortStart *[14]int) (xr [granule]float64, ok bool) {
	next := c.subbands(pcm)
	if !c.primed {
		c.cur, c.primed = next, true
		return xr, false
	}
	c.last = blockType
	if blockType == blockShort {
		var spec [granule]float64 // [18*sb + 6*w + k], the decoder's layout
		for sb := range 32 {
			// Array assignments, not copy: copy calls runtime.slicecopy, which checks both
			// ranges under -race even here.
			var in [36]float64
			*(*[18]float64)(in[:18]) = c.prev[sb]
			*(*[18]float64)(in[18:]) = c.cur[sb]
			for w := range 3 {
				x := in[6+6*w : 18+6*w]
				for k := range 6 {
					var s float64
					row := &shortCos[k]
					for i := range 12 {
						s += row[i] * x[i]
					}
					spec[18*sb+6*w+k] = s
				}
			}
		}
		n := 0
		for band := range 13 {
			for w := range 3 {
				for f := shortStart[band]; f < shortStart[band+1]; f++ {
					xr[n] = spec[18*(f/6)+6*w+f%6]
					n++
				}
			}
		}
	} else {
		for sb := range 32 {
			var in [36]float64
			*(*[18]float64)(in[:18]) = c.prev[sb]
			*(*[18]float64)(in[18:]) = c.cur[sb]
			for k := range 18 {
				var s float64
				row := &mdctCos[blockType][k]
				for i := range 36 {
					s += row[i] * in[i]
				}
				xr[sb*18+k] = s
			}
		}
		for sb := 0; sb < 31; sb++ {
			for i := range 8 {
				lo, hi := xr[sb*18+17-i], xr[sb*18+18+i]
				xr[sb*18+17-i] = lo*aliasCS[i] + hi*aliasCA[i]
				xr[sb*18+18+i] = hi*aliasCS[i] - lo*aliasCA[i]
			}
		}
	}
	c.prev, c.cur = c.cur, next
	return xr, true
}

// blockType chooses a block's type from whether its granules hold a transient, whether the next
// granule does, and the last block's type: short over a transient, a start block before one and
// a stop block after, as the standard's switching allows.
func blockType(transient, next bool, last int) int {
	switch {
	case transient, last == blockShort && next, last == blockStart:
		return blockShort
	case next:
		return blockStart
	case last == blockShort:
		return blockStop
	}
	return blockLong
}

// transient reports whether a granule holds an attack: a 64-sample stretch whose high-passed
// energy is 16 times that of the stretches before it, and not negligible.
//
//go:norace
func (c *channel) transient(pcm []float64) bool {
	found := false
	for seg := 0; seg < granule; seg += 64 {
		var e float64
		for _, v := range pcm[seg : seg+64] {
			d := v - c.lastSample
			c.lastSample = v
			e += d * d
		}
		if e > 1e-4 && e > 16*c.energy {
			found = true
		}
		c.energy = 0.75*c.energy + 0.25*e
	}
	return found
}
