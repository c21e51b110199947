package aacdec

import (
	"errors"
	"fmt"
	"sync"

	"github.com/podqa/podqa-go/internal/aacheader"
)

// Syntactic elements of raw_data_block (Table 4.85).
const (
	elemSCE = 0
	elemCPE = 1
	elemCCE = 2
	elemLFE = 3
	elemDSE = 4
	elemPCE = 5
	elemFIL = 6
	elemEND = 7
)

// Fill element extension types that carry SBR data (Table 4.121).
const (
	extSBRData    = 13
	extSBRDataCRC = 14
)

// FrameSamples is the number of samples per channel each frame decodes to.
const FrameSamples = aacheader.FrameSamples

// Decoder decodes the raw data blocks of one AAC LC stream in order. It is not safe for
// concurrent use; decode streams in parallel with a Decoder each.
type Decoder struct {
	cfg      Config
	bands    bandTable
	spectral [11]*huffTable
	sfTable  *huffTable
	windows  *windows
	ch       *[2]channel // the spectra of the block being parsed
	own      Block       // Decode's block
	state    [2]synthState
	syn      [2]channelSynth
	random   uint32 // the noise generator of perceptual noise substitution
	stats    Stats  // what Parse counts; Stats adds the channels' synthesis counts
}

// channelSynth is one channel's synthesis scratch, so that channels synthesize concurrently.
type channelSynth struct {
	long, short *imdct
	buf         [2048]float64
	out         [FrameSamples]float64
	windows     [4]int // frames per window sequence
	shapes      [2]int // frames per window shape
	tnsFilters  int
}

// Block is one raw data block parsed and dequantized by Parse: the part of decoding that must
// run in stream order. Synthesize turns it into samples a channel at a time.
type Block struct {
	ch      [2]channel
	corrupt bool
}

// Stats counts what the frames decoded so far used, for tests that must show their fixtures
// exercise each coding tool.
type Stats struct {
	Frames, Corrupt                   int
	Windows                           [4]int // frames per window sequence
	Shapes                            [2]int // frames per window shape
	MidSide, Intensity, Noise, Pulses int    // bands (pulses: frames)
	TNSFilters, Escapes               int
	CommonWindow, IndependentWindows  int // channel pair elements
}

// Stats returns the counts of what the frames decoded so far used.
func (d *Decoder) Stats() Stats {
	s := d.stats
	for c := range d.syn {
		y := &d.syn[c]
		for i, n := range y.windows {
			s.Windows[i] += n
		}
		for i, n := range y.shapes {
			s.Shapes[i] += n
		}
		s.TNSFilters += y.tnsFilters
	}
	return s
}

// synthState is what a channel carries from one frame to the next.
type synthState struct {
	overlap [FrameSamples]float64
	shape   int // the previous frame's window shape
}

// NewDecoder returns a decoder for a stream of the configuration c (from ParseConfig or
// ParseADTSHeader). Errors wrap ErrUnsupported.
func NewDecoder(c Config) (*Decoder, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if c.RateIndex < 0 || c.RateIndex >= len(bandTables) {
		return nil, fmt.Errorf("%w: sampling frequency index %d", ErrMalformed, c.RateIndex)
	}
	s := shared()
	d := &Decoder{cfg: c, bands: bandTables[c.RateIndex], spectral: s.spectral, sfTable: s.sfTable, windows: s.windows}
	for c := range d.syn {
		d.syn[c].long, d.syn[c].short = newIMDCT(s.long), newIMDCT(s.short)
	}
	d.Reset()
	return d, nil
}

// sharedTables are the decoders' read-only tables, built once.
type sharedTables struct {
	spectral    [11]*huffTable
	sfTable     *huffTable
	windows     *windows
	long, short *imdctPlan
}

var shared = sync.OnceValue(func() *sharedTables {
	s := &sharedTables{sfTable: newHuffTable(scalefactorCodes[:]), windows: newWindows(),
		long: newIMDCTPlan(2048), short: newIMDCTPlan(256)}
	for i := range s.spectral {
		s.spectral[i] = newHuffTable(spectralCodes[i])
	}
	return s
})

// Config returns the configuration the decoder was made for.
func (d *Decoder) Config() Config { return d.cfg }

// Reset forgets the frames decoded so far, as before a stream's first frame.
func (d *Decoder) Reset() {
	d.state = [2]synthState{}
	d.random = 0x1f2e3d4c
}

// Decode decodes one raw data block (an MP4 sample, or an ADTS frame's payload) and appends its
// FrameSamples samples per channel to dst, interleaved, at full scale 1.0 and unclipped. A block
// whose data is corrupt appends silence (the previous frame's tail fading out) and returns an
// error wrapping ErrCorrupt; a stream using what the decoder does not decode (SBR, coupling,
// more channels) returns an error wrapping ErrUnsupported and appends nothing.
func (d *Decoder) Decode(dst []float64, block []byte) ([]float64, error) {
	err := d.Parse(&d.own, block)
	if errors.Is(err, ErrUnsupported) {
		return dst, err
	}
	n := d.cfg.Channels
	start := len(dst)
	dst = append(dst, make([]float64, FrameSamples*n)...)
	out := dst[start:]
	for c := range n {
		y := &d.syn[c].out
		d.Synthesize(y, &d.own, c)
		for i, v := range y {
			out[i*n+c] = v
		}
	}
	return dst, err
}

// Parse reads one raw data block into b: its elements, scale factors and dequantized spectra.
// Blocks must be parsed in stream order (noise substitution draws from the decoder's noise
// generator), and each then synthesized with Synthesize, channel by channel. Parse returns what
// Decode would: for an error wrapping ErrCorrupt, b synthesizes to silence; for one wrapping
// ErrUnsupported, b must not be synthesized.
func (d *Decoder) Parse(b *Block, block []byte) error {
	d.ch = &b.ch
	err := d.parse(block)
	d.stats.Frames++
	b.corrupt = false
	if errors.Is(err, ErrUnsupported) {
		return err
	}
	if err != nil {
		d.stats.Corrupt++
		b.corrupt = true
	}
	return err
}

// Synthesize turns channel c of a parsed block into FrameSamples samples at full scale 1.0 in
// out: TNS, the inverse MDCT, windowing and overlap-add with the channel's previous block.
// Each channel's blocks must be synthesized in the order they were parsed; different channels
// may be synthesized concurrently, from different goroutines.
func (d *Decoder) Synthesize(out *[FrameSamples]float64, b *Block, c int) {
	ch := &b.ch[c]
	if b.corrupt {
		clear(ch.spec[:])
		ch.info = icsInfo{windowShape: d.state[c].shape}
		ch.tns.present = false
	}
	d.synthesize(ch, c, out)
}

// parse reads a raw data block into the channels' spectra.
func (d *Decoder) parse(block []byte) error {
	r := &bitReader{buf: block}
	got := 0
	for {
		id := r.read(3)
		if r.overrun {
			return corrupt("no END element")
		}
		switch id {
		case elemSCE, elemLFE:
			r.skip(4)
			if d.cfg.Channels != 1 || got > 0 {
				return corrupt("a single channel element in a stream of %d channels", d.cfg.Channels)
			}
			if err := d.readChannel(r, &d.ch[0], false); err != nil {
				return err
			}
			got++
		case elemCPE:
			r.skip(4)
			if d.cfg.Channels != 2 || got > 0 {
				return corrupt("a channel pair element in a stream of %d channels", d.cfg.Channels)
			}
			if err := d.readPair(r); err != nil {
				return err
			}
			got++
		case elemCCE:
			return corrupt("a coupling channel element (not decoded)")
		case elemPCE:
			return corrupt("a program config element (not decoded)")
		case elemDSE:
			r.skip(4)
			align := r.bit()
			n := int(r.read(8))
			if n == 255 {
				n += int(r.read(8))
			}
			if align {
				r.align()
			}
			r.skip(uint(8 * n))
		case elemFIL:
			n := int(r.read(4))
			if n == 15 {
				n += int(r.read(8)) - 1
			}
			if n > 0 {
				if ext := r.peek(4); ext == extSBRData || ext == extSBRDataCRC {
					// HE-AAC carries SBR data in every block; in a later block alone it is
					// corruption, which must not refuse the whole stream.
					if d.stats.Frames == 0 {
						return fmt.Errorf("%w: profile %s (SBR data in the stream; only AAC LC is decoded)", ErrUnsupported, Profile(objectSBR))
					}
					return corrupt("SBR data after the first block")
				}
			}
			r.skip(uint(8 * n))
		case elemEND:
			if got == 0 {
				return corrupt("no channel element")
			}
			return nil
		}
		if r.overrun {
			return corrupt("element past the frame's end")
		}
	}
}

// readPair reads channel_pair_element and applies mid/side and intensity stereo.
func (d *Decoder) readPair(r *bitReader) error {
	left, right := &d.ch[0], &d.ch[1]
	common := r.bit()
	var msUsed [8][maxBands]bool
	msPresent := 0
	if common {
		if err := d.readInfo(r, &left.info); err != nil {
			return err
		}
		right.info = left.info
		msPresent = int(r.read(2))
		switch msPresent {
		case 1:
			for g := range left.info.numGroups {
				for b := range left.info.maxSFB {
					msUsed[g][b] = r.bit()
				}
			}
		case 2:
			for g := range left.info.numGroups {
				for b := range left.info.maxSFB {
					msUsed[g][b] = true
				}
			}
		case 3:
			return corrupt("reserved ms_mask_present")
		}
	}
	if err := d.readChannel(r, left, common); err != nil {
		return err
	}
	if err := d.readChannel(r, right, common); err != nil {
		return err
	}
	if !common {
		d.stats.IndependentWindows++
		return nil
	}
	d.stats.CommonWindow++
	info := &left.info
	win := 0
	for g := range info.numGroups {
		for b := range info.maxSFB {
			lo, hi := int(info.offsets[b]), int(info.offsets[b+1])
			lt, rt := left.bandType[g][b], right.bandType[g][b]
			for w := win; w < win+info.groupLen[g]; w++ {
				l := left.spec[w*128+lo : w*128+hi]
				rr := right.spec[w*128+lo : w*128+hi]
				switch {
				case rt == intensityBand || rt == intensityBand2:
					d.stats.Intensity++
					scale := exp2Quarter(-right.sf[g][b])
					if (rt == intensityBand2) != msUsed[g][b] {
						scale = -scale
					}
					for k := range l {
						rr[k] = l[k] * scale
					}
				case msUsed[g][b] && lt < noiseBand && rt < noiseBand:
					d.stats.MidSide++
					for k := range l {
						l[k], rr[k] = l[k]+rr[k], l[k]-rr[k]
					}
				}
			}
		}
		win += info.groupLen[g]
	}
	return nil
}
