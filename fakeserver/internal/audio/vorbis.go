package audio

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/podqa/podqa-go/fakeserver/internal/vorbisdec"
)

// vorbisStream decodes the audio packets of an Ogg Vorbis stream into interleaved samples and
// applies the Ogg granule positions: samples before the first page's start are dropped, and
// the stream is cut at the last page's granule position (as ffmpeg and libvorbisfile do). Samples are limited to ±1, as the library used before this decoder did.
type vorbisStream struct {
	op          *oggPackets
	dec         *vorbisdec.Decoder
	setupHeader []byte // for the decoders of parallel segments
	ch          int
	// queued holds the packets of the first audio page, read ahead to find its start.
	queued   [][]byte
	queuedAt int
	firstEOS bool  // the first audio page is the last page
	skip     int64 // samples per channel still to drop at the start
	pos      int64 // granule position of the next sample decoded
	started  bool
	eof      bool
	pending  []float64 // interleaved samples not yet handed out
	at       int
}

// vorbisErr wraps an error of the decoder as malformed input.
func vorbisErr(err error) error {
	if errors.Is(err, ErrMalformed) {
		return err
	}
	return fmt.Errorf("%w: Vorbis: %w", ErrMalformed, err)
}

// openVorbis reads the three headers of an Ogg Vorbis stream.
func openVorbis(op *oggPackets) (*vorbisStream, vorbisdec.Comments, error) {
	var hdr [3][]byte
	for i := range hdr {
		p, _, err := op.next()
		if err != nil {
			return nil, vorbisdec.Comments{}, oggErr("Vorbis", noEOF(err))
		}
		hdr[i] = p
	}
	info, err := vorbisdec.ParseIdentification(hdr[0])
	if err != nil {
		return nil, vorbisdec.Comments{}, vorbisErr(err)
	}
	if info.Channels > MaxChannels {
		return nil, vorbisdec.Comments{}, fmt.Errorf("%w: Vorbis with %d channels", ErrUnsupportedCodec, info.Channels)
	}
	comments, err := vorbisdec.ParseComments(hdr[1])
	if err != nil {
		return nil, vorbisdec.Comments{}, vorbisErr(err)
	}
	dec, err := vorbisdec.NewDecoder(info, hdr[2])
	if err != nil {
		return nil, vorbisdec.Comments{}, vorbisErr(err)
	}
	return &vorbisStream{op: op, dec: dec, setupHeader: hdr[2], ch: info.Channels}, comments, nil
}

// noEOF turns an end of input inside the headers into a cut-short error.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// start reads the first audio page ahead and works out how many samples precede its granule
// position: a stream whose first page ends before the samples its packets decode to starts
// with samples to drop; one that ends after starts later on the granule scale.
func (v *vorbisStream) start() error {
	v.started = true
	var decoded int64
	prev := 0
	for {
		p, last, err := v.op.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		v.queued = append(v.queued, p)
		n, err := v.dec.BlockSize(p)
		if err != nil {
			return vorbisErr(err)
		}
		if n > 0 {
			if prev > 0 {
				decoded += int64(prev/4 + n/4)
			}
			prev = n
		}
		if last {
			v.firstEOS = v.op.eos
			// The granule position of the last page is the end, which the last packet is cut
			// to, and says nothing of the start.
			if g := v.op.granule; g >= 0 && !v.op.eos {
				v.pos = g - decoded
				v.skip = max(-v.pos, 0)
			}
			return nil
		}
	}
}

// nextPacket returns the next audio packet and whether it is on the last page of the stream.
func (v *vorbisStream) nextPacket() ([]byte, bool, error) {
	if v.queuedAt < len(v.queued) {
		p := v.queued[v.queuedAt]
		v.queued[v.queuedAt] = nil
		v.queuedAt++
		return p, v.firstEOS, nil
	}
	p, _, err := v.op.next()
	if err != nil {
		return nil, false, err
	}
	return p, v.op.eos, nil
}

// read fills dst with interleaved samples.
func (v *vorbisStream) read(dst []float64) (int, error) {
	if !v.started {
		if err := v.start(); err != nil {
			return 0, err
		}
	}
	for v.at == len(v.pending) {
		if v.eof {
			return 0, io.EOF
		}
		p, lastPage, err := v.nextPacket()
		if errors.Is(err, io.EOF) {
			v.eof = true
			continue
		}
		if err != nil {
			return 0, err
		}
		out, err := v.dec.Decode(p)
		if err != nil {
			return 0, vorbisErr(err)
		}
		n := int64(len(out[0]))
		from, to := int64(0), n
		if v.skip > 0 {
			from = min(v.skip, n)
			v.skip -= from
		}
		// The last page's granule position is where the stream ends.
		if g := v.op.granule; lastPage && g >= 0 && v.pos+n > g {
			to = max(g-v.pos, from)
		}
		v.pos += n
		v.fill(out, int(from), int(to))
	}
	n := copy(dst[:len(dst)/v.ch*v.ch], v.pending[v.at:])
	v.at += n
	return n, nil
}

// fill interleaves the samples from..to of the decoded channels into pending, limited to ±1.
func (v *vorbisStream) fill(out [][]float32, from, to int) {
	v.at = 0
	v.pending = appendInterleaved(v.pending[:0], out, from, to)
}

// appendInterleaved appends the samples from..to of the decoded channels to dst, interleaved
// and limited to ±1.
func appendInterleaved(dst []float64, out [][]float32, from, to int) []float64 {
	ch := len(out)
	start := len(dst)
	dst = slices.Grow(dst, (to-from)*ch)[:start+(to-from)*ch]
	if to == from {
		return dst
	}
	if ch == 2 {
		l, r := out[0][from:to], out[1][from:to]
		d := dst[start : start+2*len(l)]
		r = r[:len(l)]
		for i, x := range l {
			d[2*i] = float64(clampUnit(x))
			d[2*i+1] = float64(clampUnit(r[i]))
		}
		return dst
	}
	for c, s := range out {
		d := dst[start+c:]
		for i, x := range s[from:to] {
			d[i*ch] = float64(clampUnit(x))
		}
	}
	return dst
}

// clampUnit limits x to ±1. A hostile stream can make the decoder overflow to infinities
// and NaN; NaN becomes -1, so that the meter only sees finite samples.
func clampUnit(x float32) float32 {
	if x > 1 {
		return 1
	}
	if x >= -1 {
		return x
	}
	return -1
}

// measureVorbis decodes Ogg Vorbis with internal/vorbisdec (see vorbisStream for the
// granule positions and the limit to ±1): in parallel segments with more than one worker
// (measureVorbisSegments), else sequentially; the samples are the same.
func measureVorbis(in *source, o options) (Measurement, error) {
	op := &oggPackets{r: in}
	vs, comments, err := openVorbis(op)
	if err != nil {
		return Measurement{}, err
	}
	info := vs.dec.Info()
	ch, rate := info.Channels, info.SampleRate
	var res MeterResult
	if o.workers > 1 {
		res, err = measureVorbisSegments(in, vs, o)
	} else {
		res, err = measurePCM(in, rate, ch, vorbisWeights(ch), vs.read)
	}
	if err != nil {
		return Measurement{}, err
	}
	if err := in.drain(); err != nil {
		return Measurement{}, err
	}
	m := Measurement{Channels: ch, SampleRate: rate, CodecName: "vorbis", FormatName: "ogg", Size: in.size()}
	m.fill(res)
	if br := info.BitrateNominal; br > 0 {
		m.BitRate = int64(br)
	} else {
		m.BitRate = bytesRate(m.Size, m.Duration.Seconds())
	}
	var pairs [][2]string
	for _, c := range comments.Comments {
		k, val, _ := strings.Cut(c, "=")
		pairs = append(pairs, [2]string{k, val})
	}
	m.Tags, m.Cover = vorbisComments(pairs)
	m.Tags.Chapters = sortChapters(m.Tags.Chapters, m.Duration)
	return m, nil
}
