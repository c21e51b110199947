package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/pion/opus"

	"github.com/podqa/podqa-go/fakeserver/internal/opusdec"
)

// opusPacketDecoder decodes one Opus packet to interleaved float samples at 48 kHz and
// returns the samples per channel.
type opusPacketDecoder interface {
	decode(pkt []byte, out []float32) (int, error)
}

type ourOpus struct{ d *opusdec.Decoder }

func (o ourOpus) decode(pkt []byte, out []float32) (int, error) { return o.d.Decode(pkt, out) }

type pionOpus struct{ d opus.Decoder }

func (p *pionOpus) decode(pkt []byte, out []float32) (int, error) {
	return p.d.DecodeToFloat32(pkt, out)
}

// errOpusNotCELT is what a decoding pass with internal/opusdec returns on the first packet
// opusdec does not decode (SILK or hybrid mode, an empty frame, broken framing), so that
// measureOpus starts again with pion/opus.
var errOpusNotCELT = errors.New("audio: an Opus packet internal/opusdec does not decode")

// newOpusDecoder returns internal/opusdec when celt, else pion/opus.
func newOpusDecoder(celt bool, channels int) (opusPacketDecoder, error) {
	if celt {
		d, err := opusdec.NewDecoder(channels)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnsupportedCodec, err)
		}
		return ourOpus{d}, nil
	}
	d, err := opus.NewDecoderWithOutput(48000, channels)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupportedCodec, err)
	}
	return &pionOpus{d}, nil
}

// measureOpus decodes Ogg Opus at 48 kHz with internal/opusdec or github.com/pion/opus, one
// decoder for the whole stream. On a seekable input (an upload held in memory, a file) opusdec
// decodes, in parallel segments when o has more than one worker (measureOpusSegments); on the
// first packet it does not decode (opusdec.CELTOnly), the input goes back to the stream's start
// and pion decodes the stream from there, so a stream with a SILK or hybrid packet anywhere is
// pion's alone (one whose first packet is such costs nothing more; one whose last is costs a
// second decoding). An input read once (a download) cannot go back, so pion decodes it.
func measureOpus(in *source, o options) (Measurement, error) {
	rewind := opusRewinder(in)
	if rewind == nil {
		return measureOpusWith(in, o, false)
	}
	m, err := measureOpusWith(in, o, true)
	if !errors.Is(err, errOpusNotCELT) {
		return m, err
	}
	if err := rewind(); err != nil {
		return Measurement{}, err
	}
	return measureOpusWith(in, o, false)
}

// opusRewinder returns a function that puts the input back where it is now, or nil when the
// input cannot seek. The bytes read after now are then not counted twice in the Size.
func opusRewinder(in *source) func() error {
	rs, ok := in.counter.r.(io.ReadSeeker)
	if !ok {
		return nil
	}
	here, err := rs.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil
	}
	start, consumed := here-int64(in.r.Buffered()), in.size()
	return func() error {
		if _, err := rs.Seek(start, io.SeekStart); err != nil {
			return fmt.Errorf("audio: going back to the start of the Opus stream: %w", err)
		}
		in.counter.n = consumed
		in.r.Reset(in.counter)
		return nil
	}
}

// measureOpusWith measures the Ogg Opus stream at the input's position with internal/opusdec
// when celt (returning errOpusNotCELT on a packet it does not decode), else with pion/opus. The
// header's pre-skip is dropped at the start, the output gain is applied, and each page's output
// is cut to its granule position, which trims the end as ffmpeg does.
func measureOpusWith(in *source, o options, celt bool) (Measurement, error) {
	op := &oggPackets{r: in}
	head, _, err := op.next()
	if err != nil {
		return Measurement{}, oggErr("Opus", err)
	}
	if len(head) < 19 || string(head[:8]) != "OpusHead" {
		return Measurement{}, fmt.Errorf("%w: bad OpusHead packet", ErrMalformed)
	}
	ch := int(head[9])
	preSkip := int64(binary.LittleEndian.Uint16(head[10:]))
	gain := math.Pow(10, float64(int16(binary.LittleEndian.Uint16(head[16:])))/256/20)
	if head[18] != 0 || ch < 1 || ch > 2 {
		return Measurement{}, fmt.Errorf("%w: Opus with %d channels (mapping family %d); only mono and stereo are decoded", ErrUnsupportedCodec, ch, head[18])
	}
	tagsPkt, _, err := op.next()
	if err != nil {
		return Measurement{}, oggErr("Opus", err)
	}
	if celt && o.workers > 1 {
		res, err := measureOpusSegments(in, op, ch, preSkip, gain, o)
		if err != nil {
			return Measurement{}, err
		}
		return opusMeasurement(in, ch, res, tagsPkt)
	}
	dec, err := newOpusDecoder(celt, ch)
	if err != nil {
		return Measurement{}, err
	}
	out := make([]float32, opusMaxFrame*ch)
	var page []float64 // decoded samples of the current page, not yet emitted
	var emitted int64  // frames emitted (after pre-skip)
	var decoded int64  // frames decoded, pre-skip included
	pos := 0
	eof := false
	res, err := measurePCM(in, 48000, ch, nil, func(dst []float64) (int, error) {
		for pos == len(page) {
			if eof {
				return 0, io.EOF
			}
			page, pos = page[:0], 0
			for {
				pkt, last, err := op.next()
				if errors.Is(err, io.EOF) {
					eof = true
					break
				}
				if err != nil {
					return 0, err
				}
				if celt && !opusdec.CELTOnly(pkt) {
					return 0, errOpusNotCELT
				}
				n, err := dec.decode(pkt, out)
				if err != nil {
					return 0, fmt.Errorf("%w: Opus packet: %v", ErrMalformed, err)
				}
				from := min(max(preSkip-decoded, 0), int64(n))
				decoded += int64(n)
				at := len(page)
				page = slices.Grow(page, (n-int(from))*ch)[:at+(n-int(from))*ch]
				for i, v := range out[int(from)*ch : n*ch] {
					page[at+i] = float64(v) * gain
				}
				if last {
					break
				}
			}
			// The page's granule position counts the samples up to its last packet's end.
			if limit := op.granule - preSkip; op.granule >= 0 && emitted+int64(len(page)/ch) > limit {
				page = page[:max(limit-emitted, 0)*int64(ch)]
			}
			emitted += int64(len(page) / ch)
		}
		n := copy(dst, page[pos:])
		pos += n
		return n, nil
	})
	if err != nil {
		return Measurement{}, err
	}
	return opusMeasurement(in, ch, res, tagsPkt)
}

// Segmenting of Opus decoding (internal/opusdec only).
const (
	// opusSegmentSamples is how much audio (samples per channel, at 48 kHz) one worker
	// decodes at a time: 16 s, so a pre-roll costs 2.5% more decoding (3.3% at 12 s). Memory
	// grows with it (see measureOpusSegments): on the bench's one-hour stereo file the peak RSS
	// of measure was 38, 47, 56 and 65 MiB at 12, 16, 20 and 24 s (ffmpeg's: 57 MiB).
	opusSegmentSamples = 16 * 48000
	// opusPreRollSamples is how much audio before a segment its decoder decodes first, its
	// output discarded. RFC 7845 section 4.6 asks for at least 80 ms (3840 samples) for the
	// decoder's state to converge; at 12 points of the bench's 10-minute speech file (20 ms
	// frames) the output was bit-identical to a serial decode's after 16 frames (320 ms), as
	// the coarse energy predictor halves a wrong start every frame; 400 ms leaves a margin
	// (TestOpusSegmentsAgreeWithSerial; the bench's one-hour file measures identically).
	opusPreRollSamples = 19200
)

// opusJob is one segment of an Ogg Opus stream for a worker: its page groups (the packets
// completed on one page, as the serial decode groups them), after pre-roll packets.
type opusJob struct {
	packets  [][]byte // pre-roll packets, then the segment's
	skip     int      // pre-roll packets, whose output is discarded
	groups   []opusGroup
	channels int
	samples  int // the segment's target length, per channel
}

// opusGroup is the packets completed on one Ogg page and the page's granule position.
type opusGroup struct {
	packets int
	granule int64
}

type opusResult struct {
	pcm    []float32 // interleaved, decoder output of the segment's packets
	frames []int     // samples per channel each group decoded to
}

// measureOpusSegments measures the audio packets that op (past the headers) reads, decoding
// segments of about opusSegmentSamples on workers goroutines in parallel, each with its own
// opusdec.Decoder started opusPreRollSamples early; the meter takes the segments in order.
// Pre-skip, output gain and the granule positions' trimming are applied to each page's
// samples exactly as the serial decode does (measureOpus), so the two differ only where the
// pre-roll has not brought a decoder's state to the serial one's.
//
// Memory does not depend on the duration (see segments): at most workers segments wait in order
// (a depth of 2·workers measured the same CPU, with peak RSS 46 instead of 38 MiB on the bench's
// 10-minute file) and the meter reads one, so at most workers+2 sample buffers are in use, each
// (opusSegmentSamples+MaxFrameSamples)·channels float32s, (16 s + 120 ms) of audio: 6.2 MB for
// stereo, 25 MB with 2 workers, plus each segment's packets (130 KB at 64
// kbit/s). A segment ends at the end of a page, so one of pages holding more than the usual
// second of audio may overshoot by a page: at most 255 packets of 120 ms (30.6 s), which an
// Ogg page cannot exceed.
func measureOpusSegments(in *source, op *oggPackets, ch int, preSkip int64, gain float64, o options) (MeterResult, error) {
	workers, segSamples := o.workers, o.opusSeg
	if segSamples <= 0 {
		segSamples = opusSegmentSamples
	}
	free := newSegmentBuffers[float32](workers)
	segs := startSegments("Opus", workers, workers,
		func(submit func(*opusJob) bool) error { return walkOpus(op, ch, segSamples, submit) },
		func(_ int, j *opusJob) (opusResult, error) { return decodeOpusSegment(j, free) })
	st := &opusPCM{segs: segs, channels: ch, preSkip: preSkip, gain: gain, free: free}
	res, err := measurePCM(in, 48000, ch, nil, st.read)
	if werr := segs.stop(); err == nil {
		err = werr
	}
	return res, err
}

// walkOpus reads the packets of op to the end of the stream and hands segments of whole page
// groups to submit, which returns false when the consumer has gone. The returned error is
// the reading's (a malformed page); it reaches the meter after the segments read before it.
func walkOpus(op *oggPackets, ch, segSamples int, submit func(*opusJob) bool) error {
	var seg [][]byte // the current segment's packets
	var groups []opusGroup
	var recent [][]byte // the packets before seg, for its pre-roll
	var recentSamples []int
	inSeg, inGroup := 0, 0
	flush := func() bool {
		if len(groups) == 0 {
			return true
		}
		// Pre-roll: the fewest recent packets that reach opusPreRollSamples.
		k, got := len(recent), 0
		for k > 0 && got < opusPreRollSamples {
			k--
			got += recentSamples[k]
		}
		j := &opusJob{skip: len(recent) - k, groups: groups, channels: ch, samples: segSamples}
		j.packets = append(slices.Clone(recent[k:]), seg...)
		for _, p := range seg {
			n, _ := opusdec.PacketSamples(p) // valid: the walk checked every packet
			recent = append(recent, p)
			recentSamples = append(recentSamples, n)
		}
		// Keep only what a pre-roll can need, so memory stays flat.
		k, got = len(recent), 0
		for k > 0 && got < opusPreRollSamples {
			k--
			got += recentSamples[k]
		}
		recent, recentSamples = slices.Delete(recent, 0, k), slices.Delete(recentSamples, 0, k)
		seg, groups, inSeg = nil, nil, 0
		return submit(j)
	}
	for {
		pkt, last, err := op.next()
		if errors.Is(err, io.EOF) {
			if inGroup > 0 {
				groups = append(groups, opusGroup{packets: inGroup, granule: op.granule})
			}
			flush()
			return nil
		}
		if err != nil {
			flush()
			return err
		}
		if !opusdec.CELTOnly(pkt) {
			return errOpusNotCELT // measureOpus starts again with pion: no segment is of use
		}
		n, _ := opusdec.PacketSamples(pkt) // valid: CELTOnly split its frames

		seg = append(seg, pkt)
		inSeg += n
		inGroup++
		if !last {
			continue
		}
		groups = append(groups, opusGroup{packets: inGroup, granule: op.granule})
		inGroup = 0
		if inSeg >= segSamples && !flush() {
			return nil
		}
	}
}

// decodeOpusSegment decodes a job's packets with a new decoder, in a buffer from free, and
// drops the pre-roll's output.
func decodeOpusSegment(j *opusJob, free segmentBuffers[float32]) (res opusResult, _ error) {
	d, err := opusdec.NewDecoder(j.channels)
	if err != nil {
		return opusResult{}, fmt.Errorf("%w: %v", ErrUnsupportedCodec, err)
	}
	out := make([]float32, opusdec.MaxFrameSamples*j.channels)
	for _, p := range j.packets[:j.skip] {
		// A pre-roll packet that fails failed the previous segment, whose error comes first.
		_, _ = d.Decode(p, out)
	}
	res.pcm = free.get((j.samples + opusdec.MaxFrameSamples) * j.channels)
	res.frames = make([]int, len(j.groups))
	pkts := j.packets[j.skip:]
	for g, grp := range j.groups {
		for _, p := range pkts[:grp.packets] {
			at := len(res.pcm)
			res.pcm = slices.Grow(res.pcm, opusdec.MaxFrameSamples*j.channels)
			n, err := d.Decode(p, res.pcm[at:at+opusdec.MaxFrameSamples*j.channels])
			if err != nil {
				return opusResult{}, fmt.Errorf("%w: Opus packet: %v", ErrMalformed, err)
			}
			res.pcm = res.pcm[:at+n*j.channels]
			res.frames[g] += n
		}
		pkts = pkts[grp.packets:]
	}
	return res, nil
}

// opusPCM stitches decoded segments in order, applying pre-skip, gain and each page's
// granule position as measureOpus's serial read does, converting the kept samples straight
// into the meter's buffer.
type opusPCM struct {
	segs     *segments[*opusJob, opusResult]
	channels int
	preSkip  int64
	gain     float64
	free     segmentBuffers[float32]
	page     []float32 // the current page's kept samples not yet emitted
	emitted  int64     // frames kept (after pre-skip)
	decoded  int64     // frames decoded, pre-skip included
	cur      *opusJob
	res      opusResult
	group    int // the next group of cur
	at       int // its first sample in res.pcm
}

func (p *opusPCM) read(dst []float64) (int, error) {
	ch := p.channels
	for len(p.page) == 0 {
		if p.cur == nil || p.group == len(p.cur.groups) {
			if p.cur != nil {
				p.free.put(p.res.pcm) // the segment's buffer serves a later segment
				p.cur = nil
			}
			j, r, err := p.segs.next()
			if err != nil {
				return 0, err // io.EOF, or the walk's error, after the last segment
			}
			p.cur, p.res, p.group, p.at = j, r, 0, 0
		}
		n := int64(p.res.frames[p.group])
		granule := p.cur.groups[p.group].granule
		samples := p.res.pcm[p.at : p.at+int(n)*ch]
		p.group++
		p.at += int(n) * ch
		from := min(max(p.preSkip-p.decoded, 0), n)
		p.decoded += n
		keep := n - from
		// The page's granule position counts the samples up to its last packet's end.
		if limit := granule - p.preSkip; granule >= 0 && p.emitted+keep > limit {
			keep = max(limit-p.emitted, 0)
		}
		p.emitted += keep
		p.page = samples[from*int64(ch) : (from+keep)*int64(ch)]
	}
	n := min(len(dst), len(p.page))
	g := p.gain
	for i, v := range p.page[:n] {
		dst[i] = float64(v) * g
	}
	p.page = p.page[n:]
	return n, nil
}
