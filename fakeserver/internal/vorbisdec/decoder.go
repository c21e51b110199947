package vorbisdec

import (
	"fmt"
	"math"
)

// The kernels marked //go:norace here touch only their own buffers: see imdct.go.

// Decoder decodes the audio packets of one Vorbis stream. It is not safe for concurrent use.
type Decoder struct {
	info  Info
	setup *setup
	br    bitReader

	imdct   [2]*imdct
	slopes  [2][]float32 // window slopes of the short and the long block, blocksize/2 values
	prevLen int          // block size of the previous audio packet, 0 before the first

	// Per channel: the spectrum (residue, then times the floor), the unfolded IMDCT output,
	// the windowed right half of the previous block, and the output of the last packet.
	spec  [][]float32
	saved [][]float32
	out   [][]float32

	// Per channel scratch of the floor decode.
	floorUsed []bool
	noResidue []bool
	ys        [][]int
	final     []int
	step2     []bool
	coefs     [][]float32 // floor 0 coefficients
	amps      []int       // floor 0 amplitudes

	// Scratch of one submap: its channels' vectors and skip flags, and the interleaved vector
	// of a type 2 residue.
	subVecs     [][]float32
	subSkip     []bool
	interleaved []float32
}

// NewDecoder returns a decoder of a stream with the given identification header values and
// setup header (the third packet of the stream).
func NewDecoder(info Info, setupHeader []byte) (*Decoder, error) {
	if info.Channels < 1 || info.Channels > 255 || info.BlockSizes[0] < 64 || info.BlockSizes[1] > 8192 || info.BlockSizes[0] > info.BlockSizes[1] {
		return nil, fmt.Errorf("%w: bad identification values", ErrCorrupt)
	}
	s, err := readSetup(setupHeader, info)
	if err != nil {
		return nil, err
	}
	d := &Decoder{info: info, setup: s}
	ch := info.Channels
	half := info.BlockSizes[1] / 2
	for i, n := range info.BlockSizes {
		d.imdct[i] = newIMDCT(n)
		d.slopes[i] = windowSlope(n / 2)
	}
	d.spec = make([][]float32, ch)
	d.saved = make([][]float32, ch)
	d.out = make([][]float32, ch)
	d.ys = make([][]int, ch)
	d.coefs = make([][]float32, ch)
	for c := range ch {
		d.spec[c] = make([]float32, 2*half) // room for the unfolded block
		d.saved[c] = make([]float32, half)
		d.out[c] = make([]float32, half)
		d.ys[c] = make([]int, 65)
		d.coefs[c] = make([]float32, 256)
	}
	d.floorUsed = make([]bool, ch)
	d.noResidue = make([]bool, ch)
	d.amps = make([]int, ch)
	d.final = make([]int, 65)
	d.step2 = make([]bool, 65)
	d.subVecs = make([][]float32, 0, ch)
	d.subSkip = make([]bool, 0, ch)
	d.interleaved = make([]float32, ch*half)
	rows, cols := 0, 0
	for _, r := range s.residues {
		rr, cc := r.scratchSize(s.books, ch, half)
		rows, cols = max(rows, rr), max(cols, cc)
	}
	classifs := make([][]uint8, rows)
	for i := range classifs {
		classifs[i] = make([]uint8, cols)
	}
	for _, r := range s.residues {
		r.classifs = classifs
	}
	return d, nil
}

// windowSlope is the rising slope of the Vorbis window over n samples.
func windowSlope(n int) []float32 {
	w := make([]float32, n)
	for i := range w {
		x := math.Sin((float64(i) + 0.5) / float64(n) * math.Pi / 2)
		w[i] = float32(math.Sin(math.Pi / 2 * x * x))
	}
	return w
}

// Info returns the identification header values the decoder was made with.
func (d *Decoder) Info() Info { return d.info }

// BlockSize returns the block size of an audio packet from its mode, without decoding it, or
// 0 for an empty packet. A packet's output is a quarter of the previous block's size plus a
// quarter of its own (none for the first packet).
func (d *Decoder) BlockSize(packet []byte) (int, error) {
	if len(packet) == 0 {
		return 0, nil
	}
	var b bitReader
	b.reset(packet)
	md, err := d.readMode(&b)
	if err != nil {
		return 0, err
	}
	if md.long {
		return d.info.BlockSizes[1], nil
	}
	return d.info.BlockSizes[0], nil
}

func (d *Decoder) readMode(b *bitReader) (mode, error) {
	if b.flag() {
		return mode{}, fmt.Errorf("%w: not an audio packet", ErrCorrupt)
	}
	i := int(b.read(ilog(uint32(len(d.setup.modes) - 1))))
	if i >= len(d.setup.modes) || b.over {
		return mode{}, fmt.Errorf("%w: audio packet of mode %d", ErrCorrupt, i)
	}
	return d.setup.modes[i], nil
}

// Reset forgets the previous packet, as after a seek: the next packet's output is empty.
func (d *Decoder) Reset() { d.prevLen = 0 }

// Decode decodes one audio packet and returns the samples it completes, one slice per
// channel, valid until the next call. The first packet after NewDecoder or Reset completes
// none; an empty packet is skipped (it completes none and leaves the state as it was).
func (d *Decoder) Decode(packet []byte) ([][]float32, error) {
	if len(packet) == 0 {
		for c := range d.out {
			d.out[c] = d.out[c][:0]
		}
		return d.out, nil
	}
	b := &d.br
	b.reset(packet)
	md, err := d.readMode(b)
	if err != nil {
		return nil, err
	}
	bs := d.info.BlockSizes
	n := bs[0]
	prevLong, nextLong := false, false
	if md.long {
		n = bs[1]
		prevLong = b.flag()
		nextLong = b.flag()
	}
	half := n / 2
	m := &d.setup.mappings[md.mapping]
	ch := d.info.Channels
	books := d.setup.books

	// Floors.
	for c := range ch {
		f := d.setup.floors[m.submapFloor[m.mux[c]]]
		if f.kind == 1 {
			d.floorUsed[c] = f.f1.decode(b, books, d.ys[c])
		} else {
			d.amps[c], d.floorUsed[c] = f.f0.decode(b, books, d.coefs[c])
		}
		d.noResidue[c] = !d.floorUsed[c]
	}
	// A coupled pair is decoded when either of its channels is.
	for i, mag := range m.couplingMag {
		ang := m.couplingAng[i]
		if !d.noResidue[mag] || !d.noResidue[ang] {
			d.noResidue[mag], d.noResidue[ang] = false, false
		}
	}
	// Residues, submap by submap.
	for c := range ch {
		clear(d.spec[c][:half])
	}
	for sm, ri := range m.submapResidue {
		d.subVecs, d.subSkip = d.subVecs[:0], d.subSkip[:0]
		for c := range ch {
			if m.mux[c] == sm {
				d.subVecs = append(d.subVecs, d.spec[c][:half])
				d.subSkip = append(d.subSkip, d.noResidue[c])
			}
		}
		if len(d.subVecs) > 0 {
			d.setup.residues[ri].decode(b, books, d.subVecs, d.subSkip, d.interleaved)
		}
	}
	// Inverse coupling, last step first.
	for i := len(m.couplingMag) - 1; i >= 0; i-- {
		inverseCouple(d.spec[m.couplingMag[i]][:half], d.spec[m.couplingAng[i]][:half])
	}
	// Floor curves times residues, then the IMDCT, window and overlap of each channel.
	long := 0
	if md.long {
		long = 1
	}
	for c := range ch {
		v := d.spec[c][:half]
		switch {
		case !d.floorUsed[c]:
			clear(v)
		default:
			f := d.setup.floors[m.submapFloor[m.mux[c]]]
			if f.kind == 1 {
				f.f1.apply(d.ys[c], d.final, d.step2, v)
			} else {
				f.f0.apply(d.amps[c], d.coefs[c], long, v)
			}
		}
	}
	outLen := 0
	if d.prevLen > 0 {
		outLen = d.prevLen/4 + n/4
	}
	for c := range ch {
		d.synthesize(c, n, md.long, prevLong, nextLong, outLen)
	}
	d.prevLen = n
	for c := range ch {
		d.out[c] = d.out[c][:outLen]
	}
	return d.out, nil
}

// inverseCouple undoes the square polar mapping of a magnitude and an angle vector
// (specification section 4.3.5). (A version without branches, picking the case from the sign
// bits, took 15 % more CPU in BenchmarkInverseCouple.)
//
//go:norace
func inverseCouple(mag, ang []float32) {
	ang = ang[:len(mag)]
	for i, mv := range mag {
		av := ang[i]
		if mv > 0 {
			if av > 0 {
				mag[i], ang[i] = mv, mv-av
			} else {
				mag[i], ang[i] = mv+av, mv
			}
		} else {
			if av > 0 {
				mag[i], ang[i] = mv, mv+av
			} else {
				mag[i], ang[i] = mv-av, mv
			}
		}
	}
}

// synthesize runs the IMDCT of channel c's spectrum, windows the block, adds its left half
// to the saved right half of the previous block into the output (outLen samples), and
// saves its own right half. The block is not unfolded into memory: each half is read from
// the DCT-IV output by its symmetry (y[i] = u[i+M/2] for i < M/2, -u[3M/2-1-i] for
// M/2 <= i < 3M/2, -u[i-3M/2] after), with the same operations, in the same order, as
// unfolding first would take.
//
//go:norace
func (d *Decoder) synthesize(c, n int, long, prevLong, nextLong bool, outLen int) {
	bs := d.info.BlockSizes
	t := d.imdct[0]
	if long {
		t = d.imdct[1]
	}
	half := n / 2
	t.dct4(d.spec[c][:half])
	u := t.u[:half]
	mh := half / 2 // M/2
	// Window slopes: a long block next to a short one uses the short slope, centred on
	// its quarter points.
	leftStart, leftSlope := 0, d.slopes[0]
	rightStart, rightSlope := half, d.slopes[0]
	if long {
		if prevLong {
			leftSlope = d.slopes[1]
		} else {
			leftStart = n/4 - bs[0]/4
		}
		if nextLong {
			rightSlope = d.slopes[1]
		} else {
			rightStart = 3*n/4 - bs[0]/4
		}
	}
	if outLen > 0 {
		out := d.out[c][:outLen]
		saved := d.saved[c]
		ph := min(d.prevLen/2, outLen)
		copy(out[:ph], saved[:ph])
		clear(out[ph:])
		// Sample k of this block lands on output sample k+offset; a stream whose window
		// flags contradict its block sizes only loses what falls outside.
		offset := d.prevLen/4 - n/4
		lo, hi := max(0, -offset), min(half, outLen-offset)
		if lo < hi {
			slopeEnd := leftStart + len(leftSlope)
			// Before the slope the window is zero.
			for i := lo; i < min(hi, leftStart); i++ {
				out[i+offset] += 0
			}
			addLeft(out, offset, u, mh, max(lo, leftStart), min(hi, slopeEnd), leftSlope, leftStart)
			addLeft(out, offset, u, mh, max(lo, slopeEnd), hi, nil, 0)
		}
	}
	// The right half, windowed, is saved for the next block.
	saved := d.saved[c][:half]
	rs := rightStart - half
	ln := len(rightSlope)
	for j := range rs { // i = half+j < 3M/2
		saved[j] = -u[mh-1-j]
	}
	// The slope, reversed, over i from rightStart: -u[3M/2-1-i] before 3M/2, -u[i-3M/2] after.
	split := min(3*mh, rightStart+ln)
	for i := rightStart; i < split; i++ {
		saved[i-half] = -u[3*mh-1-i] * rightSlope[ln-1-(i-rightStart)]
	}
	for i := split; i < rightStart+ln; i++ {
		saved[i-half] = -u[i-3*mh] * rightSlope[ln-1-(i-rightStart)]
	}
	clear(saved[rs+ln:])
}

// addLeft adds the unfolded left-half values y[i] for i from a up to b, times
// slope[i-slopeStart] (nil: one), to out[i+offset].
//
//go:norace
func addLeft(out []float32, offset int, u []float32, mh, a, b int, slope []float32, slopeStart int) {
	if a >= b {
		return
	}
	// i < M/2: y[i] = u[i+M/2].
	if e := min(b, mh); a < e {
		dst := out[a+offset : e+offset]
		src := u[a+mh : e+mh]
		src = src[:len(dst)]
		if slope == nil {
			for k, v := range src {
				dst[k] += v
			}
		} else {
			w := slope[a-slopeStart : e-slopeStart]
			w = w[:len(dst)]
			for k, v := range src {
				dst[k] += float32(v * w[k])
			}
		}
		a = e
	}
	// M/2 <= i: y[i] = -u[3M/2-1-i].
	if a < b {
		dst := out[a+offset : b+offset]
		src := u[3*mh-b : 3*mh-a] // src[len-1-k] is u[3M/2-1-(a+k)]
		src = src[:len(dst)]
		last := len(src) - 1
		if slope == nil {
			for k := range dst {
				dst[k] += -src[last-k]
			}
		} else {
			w := slope[a-slopeStart : b-slopeStart]
			w = w[:len(dst)]
			for k := range dst {
				dst[k] += float32(-src[last-k] * w[k])
			}
		}
	}
}
