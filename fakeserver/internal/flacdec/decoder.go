package flacdec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
)

// Limits of the format that size the decoder's buffers.
const (
	// MaxChannels is the most channels a frame has.
	MaxChannels = 8
	// MaxBlockSize is the most samples per channel in a frame.
	MaxBlockSize = 65536
	// MaxFrameBytes is the largest frame the decoder buffers; a verbatim frame of 8 channels of
	// 65,536 32-bit samples takes 2 MiB, so only a frame of deliberately wasteful Rice codes is
	// refused.
	MaxFrameBytes = 16 << 20
)

// readChunk is how many bytes the decoder asks its reader for at a time.
const readChunk = 64 << 10

// StreamInfo holds the values of a stream's STREAMINFO block that a frame header may leave out.
type StreamInfo struct {
	// SampleRate is in Hz.
	SampleRate int
	// BitsPerSample is the sample size, 4 to 32.
	BitsPerSample int
}

// Frame is one decoded frame.
type Frame struct {
	// Number is the frame number, or with VariableBlockSize the number of its first sample.
	Number uint64
	// VariableBlockSize says the stream's frames may differ in size (and Number counts samples).
	VariableBlockSize bool
	// SampleRate is in Hz.
	SampleRate int
	// BitsPerSample is the sample size of this frame.
	BitsPerSample int
	// Samples holds one slice per channel, each of the frame's block size, with the samples as
	// signed integers of BitsPerSample bits. They stay valid until the next call of Next.
	Samples [][]int32
}

// Decoder decodes the frames of a FLAC stream one after the other.
// A Decoder is not safe for concurrent use.
type Decoder struct {
	r       io.Reader
	info    StreamInfo
	br      bitReader
	start   int // offset in br.buf of the frame being decoded
	eof     bool
	readErr error
	chans   [MaxChannels][]int32
	samples [MaxChannels][]int32
	frame   Frame
	coefs   [32]int32
	// assignment is the current frame's channel assignment: 0 to 7 for 1 to 8 independent
	// channels, 8 left/side, 9 side/right, 10 mid/side.
	assignment int
}

// NewDecoder returns a decoder of the frames read from r, which must be positioned at the first
// frame (after the metadata blocks); info gives the STREAMINFO values frames may refer to.
func NewDecoder(r io.Reader, info StreamInfo) *Decoder {
	return &Decoder{r: r, info: info}
}

// more reads further input into the buffer, keeping the bytes from the current frame's start.
// It returns an error wrapping ErrCorrupt at the end of the input or when the frame grows past
// MaxFrameBytes, or the reader's error.
func (d *Decoder) more() error {
	if d.eof {
		if d.readErr != nil {
			return d.readErr
		}
		return fmt.Errorf("%w: the stream ends inside a frame", ErrCorrupt)
	}
	b := &d.br
	if d.start > 0 {
		n := copy(b.buf, b.buf[d.start:])
		b.buf = b.buf[:n]
		b.pos -= d.start
		d.start = 0
	}
	if len(b.buf) >= MaxFrameBytes {
		return fmt.Errorf("%w: a frame longer than %d bytes", ErrCorrupt, MaxFrameBytes)
	}
	if cap(b.buf)-len(b.buf) < readChunk {
		nb := make([]byte, len(b.buf), 2*cap(b.buf)+readChunk)
		copy(nb, b.buf)
		b.buf = nb
	}
	n, err := io.ReadAtLeast(d.r, b.buf[len(b.buf):cap(b.buf)], 1)
	b.buf = b.buf[:len(b.buf)+n]
	if err != nil {
		d.eof = true
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			d.readErr = err
		}
		if n == 0 {
			return d.more()
		}
	}
	return nil
}

// need makes at least k bits (k ≤ 56) available in the cache.
func (d *Decoder) need(k uint) error {
	b := &d.br
	for b.n < k {
		if b.pos < len(b.buf) {
			b.refill()
			continue
		}
		if err := d.more(); err != nil {
			return err
		}
	}
	return nil
}

// bits reads k bits (k ≤ 32) as an unsigned number.
func (d *Decoder) bits(k uint) (uint32, error) {
	if d.br.n < k {
		if err := d.need(k); err != nil {
			return 0, err
		}
	}
	return d.br.take(k), nil
}

// signed reads k bits (1 ≤ k ≤ 32) as a two's complement number.
func (d *Decoder) signed(k uint) (int32, error) {
	v, err := d.bits(k)
	return int32(v<<(32-k)) >> (32 - k), err
}

// unary reads zero bits up to a one bit and returns how many there were.
func (d *Decoder) unary() (uint64, error) {
	var q uint64
	for {
		if err := d.need(1); err != nil {
			return 0, err
		}
		b := &d.br
		if z := b.leadingZeros(); z < b.n {
			b.take(z)
			b.take(1)
			return q + uint64(z), nil
		}
		q += uint64(b.n)
		b.take(b.n)
	}
}

// Next decodes the next frame. It returns io.EOF when the stream ends between frames, an error
// wrapping ErrCorrupt or ErrUnsupported for a frame it cannot decode, or the reader's error.
func (d *Decoder) Next() (*Frame, error) {
	b := &d.br
	d.start = b.bytePos()
	if b.n == 0 && b.pos == len(b.buf) {
		if err := d.more(); err != nil {
			if d.eof && d.readErr == nil && len(b.buf) == b.pos {
				return nil, io.EOF
			}
			return nil, err
		}
	}
	f, err := d.frameHeader()
	if err != nil {
		return nil, err
	}
	bs := len(f.Samples[0])
	ch := len(f.Samples)
	assign := d.assignment
	for c := range ch {
		bps := uint(f.BitsPerSample)
		if (assign == 8 && c == 1) || (assign == 9 && c == 0) || (assign == 10 && c == 1) {
			bps++ // the side channel
		}
		if bps > 32 {
			return nil, fmt.Errorf("%w: a side channel of %d bits", ErrUnsupported, bps)
		}
		if err := d.subframe(f.Samples[c][:bs], bps); err != nil {
			return nil, err
		}
	}
	b.align()
	end := b.bytePos()
	sum, err := d.bits(16)
	if err != nil {
		return nil, err
	}
	if uint16(sum) != crc16(b.buf[d.start:end]) {
		return nil, fmt.Errorf("%w: frame %d fails its CRC-16", ErrCorrupt, f.Number)
	}
	decorrelate(assign, f.Samples)
	return f, nil
}

// blockSizes and sampleRates decode the frame header's codes; 0 marks a code read otherwise.
var (
	blockSizes  = [16]int{0, 192, 576, 1152, 2304, 4608, 0, 0, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768}
	sampleRates = [16]int{0, 88200, 176400, 192000, 8000, 16000, 22050, 24000, 32000, 44100, 48000, 96000, 0, 0, 0, 0}
	sampleSizes = [8]int{0, 8, 12, 0, 16, 20, 24, 32}
)

// frameHeader reads and checks a frame header and sizes the frame's sample slices.
func (d *Decoder) frameHeader() (*Frame, error) {
	f := &d.frame
	h, err := d.bits(16)
	if err != nil {
		return nil, err
	}
	if h&0xFFFE != 0xFFF8 {
		return nil, fmt.Errorf("%w: no frame sync at byte %d of the buffer", ErrCorrupt, d.start)
	}
	f.VariableBlockSize = h&1 != 0
	codes, err := d.bits(16)
	if err != nil {
		return nil, err
	}
	bsCode, rateCode := codes>>12, codes>>8&15
	d.assignment = int(codes >> 4 & 15)
	sizeCode := codes >> 1 & 7
	if codes&1 != 0 || bsCode == 0 || rateCode == 15 || sizeCode == 3 || d.assignment > 10 {
		return nil, fmt.Errorf("%w: a reserved value in a frame header", ErrCorrupt)
	}
	// The coded number: UTF-8-like, up to 36 bits.
	first, err := d.bits(8)
	if err != nil {
		return nil, err
	}
	var extra int
	switch {
	case first < 0x80:
	case first >= 0xC0 && first < 0xE0:
		extra, first = 1, first&0x1F
	case first >= 0xE0 && first < 0xF0:
		extra, first = 2, first&0x0F
	case first >= 0xF0 && first < 0xF8:
		extra, first = 3, first&0x07
	case first >= 0xF8 && first < 0xFC:
		extra, first = 4, first&0x03
	case first >= 0xFC && first < 0xFE:
		extra, first = 5, first&0x01
	case first == 0xFE:
		extra, first = 6, 0
	default:
		return nil, fmt.Errorf("%w: a malformed frame number", ErrCorrupt)
	}
	num := uint64(first)
	for range extra {
		c, err := d.bits(8)
		if err != nil {
			return nil, err
		}
		if c&0xC0 != 0x80 {
			return nil, fmt.Errorf("%w: a malformed frame number", ErrCorrupt)
		}
		num = num<<6 | uint64(c&0x3F)
	}
	f.Number = num
	bs := blockSizes[bsCode]
	switch bsCode {
	case 6:
		v, err := d.bits(8)
		if err != nil {
			return nil, err
		}
		bs = int(v) + 1
	case 7:
		v, err := d.bits(16)
		if err != nil {
			return nil, err
		}
		bs = int(v) + 1
	}
	rate := sampleRates[rateCode]
	switch rateCode {
	case 0:
		rate = d.info.SampleRate
	case 12:
		v, err := d.bits(8)
		if err != nil {
			return nil, err
		}
		rate = int(v) * 1000
	case 13:
		v, err := d.bits(16)
		if err != nil {
			return nil, err
		}
		rate = int(v)
	case 14:
		v, err := d.bits(16)
		if err != nil {
			return nil, err
		}
		rate = int(v) * 10
	}
	f.SampleRate = rate
	f.BitsPerSample = sampleSizes[sizeCode]
	if sizeCode == 0 {
		f.BitsPerSample = d.info.BitsPerSample
	}
	if f.BitsPerSample < 4 || f.BitsPerSample > 32 {
		return nil, fmt.Errorf("%w: %d bits per sample", ErrCorrupt, f.BitsPerSample)
	}
	end := d.br.bytePos()
	sum, err := d.bits(8)
	if err != nil {
		return nil, err
	}
	if uint8(sum) != crc8(d.br.buf[d.start:end]) {
		return nil, fmt.Errorf("%w: a frame header fails its CRC-8", ErrCorrupt)
	}
	ch := d.assignment + 1
	if d.assignment >= 8 {
		ch = 2
	}
	f.Samples = d.samples[:ch]
	for c := range ch {
		if cap(d.chans[c]) < bs {
			d.chans[c] = make([]int32, bs, max(bs, 4096))
		}
		d.samples[c] = d.chans[c][:bs]
	}
	return f, nil
}

// subframe decodes one channel's subframe of bps bits per sample into x.
func (d *Decoder) subframe(x []int32, bps uint) error {
	h, err := d.bits(8)
	if err != nil {
		return err
	}
	if h&0x80 != 0 {
		return fmt.Errorf("%w: a subframe's padding bit is set", ErrCorrupt)
	}
	typ := h >> 1 & 0x3F
	var wasted uint
	if h&1 != 0 {
		k, err := d.unary()
		if err != nil {
			return err
		}
		if k+1 >= uint64(bps) {
			return fmt.Errorf("%w: %d wasted bits of %d", ErrCorrupt, k+1, bps)
		}
		wasted = uint(k) + 1
		bps -= wasted
	}
	switch {
	case typ == 0:
		v, err := d.signed(bps)
		if err != nil {
			return err
		}
		for i := range x {
			x[i] = v
		}
	case typ == 1:
		for i := range x {
			if x[i], err = d.signed(bps); err != nil {
				return err
			}
		}
	case typ >= 8 && typ <= 12:
		order := int(typ - 8)
		if err := d.warmup(x, order, bps); err != nil {
			return err
		}
		if err := d.residual(x, order); err != nil {
			return err
		}
		restoreFixed(x, order)
	case typ >= 32:
		order := int(typ - 31)
		if err := d.warmup(x, order, bps); err != nil {
			return err
		}
		p, err := d.bits(4)
		if err != nil {
			return err
		}
		if p == 15 {
			return fmt.Errorf("%w: an LPC precision of 16 bits", ErrCorrupt)
		}
		shift, err := d.signed(5)
		if err != nil {
			return err
		}
		if shift < 0 {
			return fmt.Errorf("%w: a negative LPC shift", ErrCorrupt)
		}
		// Coefficients are stored oldest sample first, so that the prediction of x[i] is the
		// dot product of coefs[:order] with x[i-order:i].
		coefs := d.coefs[:order]
		for j := range order {
			c, err := d.signed(uint(p) + 1)
			if err != nil {
				return err
			}
			coefs[order-1-j] = c
		}
		if err := d.residual(x, order); err != nil {
			return err
		}
		restoreLPC(x, coefs, uint(shift))
	default:
		return fmt.Errorf("%w: reserved subframe type %d", ErrCorrupt, typ)
	}
	if wasted > 0 {
		for i := range x {
			x[i] <<= wasted
		}
	}
	return nil
}

// warmup reads a predictor's first order samples verbatim.
func (d *Decoder) warmup(x []int32, order int, bps uint) error {
	if order > len(x) {
		return fmt.Errorf("%w: a predictor of order %d in a block of %d", ErrCorrupt, order, len(x))
	}
	for i := range order {
		v, err := d.signed(bps)
		if err != nil {
			return err
		}
		x[i] = v
	}
	return nil
}

// residual reads the Rice-coded residual of x[order:] into it.
func (d *Decoder) residual(x []int32, order int) error {
	method, err := d.bits(2)
	if err != nil {
		return err
	}
	if method > 1 {
		return fmt.Errorf("%w: reserved residual coding %d", ErrCorrupt, method)
	}
	paramBits, escape := uint(4), uint32(15)
	if method == 1 {
		paramBits, escape = 5, 31
	}
	po, err := d.bits(4)
	if err != nil {
		return err
	}
	parts := 1 << po
	psize := len(x) >> po
	if psize<<po != len(x) || psize < order {
		return fmt.Errorf("%w: %d residual partitions of a block of %d with a predictor of order %d", ErrCorrupt, parts, len(x), order)
	}
	out := x[order:]
	for p := range parts {
		n := psize
		if p == 0 {
			n -= order
		}
		k, err := d.bits(paramBits)
		if err != nil {
			return err
		}
		if k == escape {
			nb, err := d.bits(5)
			if err != nil {
				return err
			}
			for i := range n {
				if nb == 0 {
					out[i] = 0
				} else if out[i], err = d.signed(uint(nb)); err != nil {
					return err
				}
			}
		} else if err := d.rice(out[:n], uint(k)); err != nil {
			return err
		}
		out = out[n:]
	}
	return nil
}

// rice reads len(out) Rice codes of parameter k (k ≤ 30), zigzag-decoded.
func (d *Decoder) rice(out []int32, k uint) error {
	b := &d.br
	buf := b.buf
	cache, n, pos := b.cache, b.n, b.pos
	for i := range out {
		if n < 57 && pos+8 <= len(buf) {
			cache |= binary.BigEndian.Uint64(buf[pos:]) >> n
			m := (63 - n) >> 3
			pos += int(m)
			n += m << 3
		}
		q := uint(bits.LeadingZeros64(cache))
		var v uint64
		if q+1+k <= n {
			cache <<= q + 1
			v = uint64(q)<<k | cache>>(64-k)
			cache <<= k
			n -= q + 1 + k
		} else {
			// The code reaches past the cache: read it the slow way.
			b.cache, b.n, b.pos = cache, n, pos
			hi, err := d.unary()
			if err != nil {
				return err
			}
			lo, err := d.bits(k)
			if err != nil {
				return err
			}
			v = hi<<k | uint64(lo)
			buf = b.buf // more may have moved the buffer
			cache, n, pos = b.cache, b.n, b.pos
		}
		out[i] = int32(v>>1) ^ -int32(v&1)
	}
	b.cache, b.n, b.pos = cache, n, pos
	return nil
}

// restoreFixed adds the fixed predictor of the given order to the residual in x[order:].
// Arithmetic wraps in 32 bits: the predictor only adds and multiplies, so the result is exact
// whenever the sample itself fits.
func restoreFixed(x []int32, order int) {
	switch order {
	case 1:
		for i := 1; i < len(x); i++ {
			x[i] += x[i-1]
		}
	case 2:
		for i := 2; i < len(x); i++ {
			x[i] += 2*x[i-1] - x[i-2]
		}
	case 3:
		for i := 3; i < len(x); i++ {
			x[i] += 3*x[i-1] - 3*x[i-2] + x[i-3]
		}
	case 4:
		for i := 4; i < len(x); i++ {
			x[i] += 4*x[i-1] - 6*x[i-2] + 4*x[i-3] - x[i-4]
		}
	}
}

// restoreLPC adds the linear prediction (64-bit sums of coefs times the preceding samples,
// shifted right by shift) to the residual in x[len(coefs):].
func restoreLPC(x []int32, coefs []int32, shift uint) {
	order := len(coefs)
	if order == 8 {
		restoreLPC8(x, (*[8]int32)(coefs), shift)
		return
	}
	if order < 8 && len(x) > 8 {
		// Lower orders are order 8 with leading zero coefficients (the sums are exact, so
		// the zeros change nothing), once the first 8 samples are restored.
		restoreLPCShort(x[:8], coefs, shift)
		var c8 [8]int32
		copy(c8[8-order:], coefs)
		restoreLPC8(x, &c8, shift)
		return
	}
	restoreLPCShort(x, coefs, shift)
}

// restoreLPCShort is restoreLPC for any order, one coefficient at a time.
func restoreLPCShort(x []int32, coefs []int32, shift uint) {
	order := len(coefs)
	for i := order; i < len(x); i++ {
		w := x[i-order : i]
		var sum int64
		for j, c := range coefs {
			sum += int64(c) * int64(w[j])
		}
		x[i] += int32(sum >> shift)
	}
}

// restoreLPC8 is restoreLPC for order 8, the most an ordinary encode uses.
func restoreLPC8(x []int32, c *[8]int32, shift uint) {
	c0, c1, c2, c3 := int64(c[0]), int64(c[1]), int64(c[2]), int64(c[3])
	c4, c5, c6, c7 := int64(c[4]), int64(c[5]), int64(c[6]), int64(c[7])
	for i := 8; i < len(x); i++ {
		w := x[i-8 : i : i]
		sum := c0*int64(w[0]) + c1*int64(w[1]) + c2*int64(w[2]) + c3*int64(w[3]) +
			c4*int64(w[4]) + c5*int64(w[5]) + c6*int64(w[6]) + c7*int64(w[7])
		x[i] += int32(sum >> shift)
	}
}

// decorrelate turns a stereo frame's side-channel coding into left and right.
func decorrelate(assign int, s [][]int32) {
	switch assign {
	case 8: // left, side
		l, r := s[0], s[1][:len(s[0])]
		for i := range l {
			r[i] = l[i] - r[i]
		}
	case 9: // side, right
		l, r := s[0], s[1][:len(s[0])]
		for i := range l {
			l[i] += r[i]
		}
	case 10: // mid, side
		l, r := s[0], s[1][:len(s[0])]
		for i := range l {
			side := r[i]
			mid := l[i]<<1 | side&1
			l[i] = (mid + side) >> 1
			r[i] = (mid - side) >> 1
		}
	}
}
