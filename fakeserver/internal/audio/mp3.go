package audio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/podqa/podqa-go/fakeserver/internal/mp3dec"
	"github.com/podqa/podqa-go/internal/mpegaudio"
)

// mp3DecoderDelay is the delay of the standard decoder's filter banks, in samples; ffmpeg adds
// it to the encoder delay that a LAME tag records.
const mp3DecoderDelay = 529

// Segmenting of MP3 decoding.
const (
	mp3SegmentFrames = 128 // frames of audio one worker decodes at a time
	mp3ReservoirMax  = 511 // bytes of main data a frame may take from earlier frames (< 2^9)
	mp3MaxWarmup     = 16  // frames decoded before a segment at most, their output discarded
	mp3MaxGarbage    = sniffSize
)

// mp3Job is one segment of frames for a worker.
type mp3Job struct {
	frames [][]byte // warm-up frames, then the segment's frames
	skip   int      // warm-up frames whose output is discarded
	chans  int      // the stream's channels (of its first frame)
}

type mp3Result struct {
	pcm       []float64 // interleaved, the segment's frames only
	concealed int64     // frames decoded as silence because their data was corrupt or missing
}

// mp3Stream is what the frame walker learns about a stream.
type mp3Stream struct {
	first       mpegaudio.Header
	bitrate     int // of the first audio frame
	segFrames   int
	frames      int64
	bytes       int64
	sameBitrate bool
	lame        bool
	delay       int
	padding     int
	tags        Tags
	cover       *Cover
	v1          Tags
}

// measureMP3 measures an MPEG layer III stream. Frames are found by walking their headers (two
// consecutive valid headers lock the walk; bytes that are not frames are skipped). Segments of
// frames are decoded by o.workers goroutines in parallel with internal/mp3dec; each segment's
// decoder starts a few frames early, on the frames before the segment (enough of them to fill
// the bit reservoir, then one that sets the filter bank's memory), and their output is
// discarded, so the stitched output equals a sequential decode. A frame whose data is corrupt
// is decoded as silence and counted; the file fails only when no frame decodes. A Xing/Info
// frame is not audio; when it carries a LAME tag, the encoder delay plus the decoder's 529
// samples are skipped at the start and the padding less 529 at the end, as ffmpeg does.
//
// Memory does not depend on the duration (see segments): at most workers segments wait in order
// (a depth of 2·workers measured the same CPU on the bench's files, with peak RSS 36 instead of
// 28 MiB), so at most workers+2 sample buffers are in use at once (a buffer is allocated only
// when none is free), each segFrames·1152·channels float64s: 2.4 MB for 128 frames of stereo
// MPEG-1, 9.4 MB with 2 workers, plus the reader's
// stitching buffer of one segment and the frames' bytes (about 60 KB a segment).
func measureMP3(in *source, o options) (Measurement, error) {
	st := &mp3Stream{sameBitrate: true, segFrames: o.segFrames}
	if err := st.start(in); err != nil {
		return Measurement{}, err
	}
	h := st.first
	channels := 2
	if h.Mono() {
		channels = 1
	}
	free := newSegmentBuffers[float64](o.workers)
	segs := startSegments("MP3", o.workers, o.workers,
		func(submit func(*mp3Job) bool) error { return st.walk(in, submit) },
		func(_ int, j *mp3Job) (mp3Result, error) { return decodeMP3Segment(j, free) })
	startSkip, endDrop := 0, 0
	if st.lame {
		startSkip = st.delay + mp3DecoderDelay
		endDrop = max(st.padding-mp3DecoderDelay, 0)
	}
	rd := &mp3PCM{segs: segs, channels: channels, skip: startSkip, hold: endDrop, free: free}
	res, err := measurePCM(in, h.Rate, channels, nil, rd.read)
	if werr := segs.stop(); err == nil {
		err = werr
	}
	if err != nil {
		return Measurement{}, err
	}
	if st.frames == 0 {
		return Measurement{}, fmt.Errorf("%w: no MPEG audio frames", ErrMalformed)
	}
	if rd.concealed == st.frames {
		return Measurement{}, fmt.Errorf("%w: none of the %d MPEG audio frames decodes", ErrMalformed, st.frames)
	}
	if err := in.drain(); err != nil {
		return Measurement{}, err
	}
	m := Measurement{Channels: channels, SampleRate: h.Rate, CodecName: "mp3", FormatName: "mp3", Size: in.size(), ConcealedFrames: rd.concealed}
	m.fill(res)
	if st.sameBitrate {
		m.BitRate = int64(st.bitrate)
	} else {
		m.BitRate = st.bytes * 8 * int64(h.Rate) / (st.frames * int64(h.Samples))
	}
	st.tags.merge(st.v1)
	st.tags.Chapters = sortChapters(st.tags.Chapters, m.Duration)
	m.Tags, m.Cover = st.tags, st.cover
	return m, nil
}

// start reads leading tags and the first frame header, so that the stream's format is known
// before decoding starts; it rejects layers and versions the decoder does not handle.
func (st *mp3Stream) start(in *source) error {
	garbage := 0
	for {
		b, _ := in.r.Peek(10)
		if len(b) == 0 {
			return fmt.Errorf("%w: no MPEG audio frames", ErrMalformed)
		}
		if n, ok := id3Size(b); ok {
			if err := st.readID3(in, n); err != nil {
				return err
			}
			continue
		}
		if h, ok := mpegaudio.ParseHeader(b); ok && st.locks(in, h) {
			switch {
			case h.Layer != 3:
				return fmt.Errorf("%w: MPEG layer %d audio (mp%d)", ErrUnsupportedCodec, h.Layer, h.Layer)
			}
			st.first = h
			// A Xing/Info/VBRI frame is metadata: read its LAME tag before decoding starts.
			if fb, _ := in.r.Peek(h.Size); len(fb) == h.Size && st.infoFrame(fb, h) {
				_, _ = in.r.Discard(h.Size)
			}
			return nil
		}
		if garbage++; garbage > mp3MaxGarbage {
			return fmt.Errorf("%w: no MPEG audio frame in the first %d bytes", ErrUnknownFormat, mp3MaxGarbage)
		}
		if _, err := in.r.Discard(1); err != nil {
			return err
		}
	}
}

// locks reports whether a header at the reader's position starts a frame followed by another
// like it (or by the end of the input).
func (st *mp3Stream) locks(in *source, h mpegaudio.Header) bool {
	b, _ := in.r.Peek(h.Size + 4)
	if len(b) == h.Size {
		return true
	}
	if len(b) < h.Size+4 {
		return false
	}
	h2, ok := mpegaudio.ParseHeader(b[h.Size:])
	return ok && h2.Version == h.Version && h2.Layer == h.Layer && h2.Rate == h.Rate
}

// readID3 consumes an ID3v2 tag of n bytes, parsing the first one met.
func (st *mp3Stream) readID3(in *source, n int) error {
	if n > maxTagBytes || st.tags.Title != "" || st.cover != nil {
		_, err := io.CopyN(io.Discard, in.r, int64(n))
		return ignoreEOF(err)
	}
	b := make([]byte, n)
	got, err := io.ReadFull(in.r, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return err
	}
	t, c := parseID3v2(b[:got])
	st.tags.merge(t)
	if st.cover == nil {
		st.cover = c
	}
	return nil
}

func ignoreEOF(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	return err
}

// walk reads frames to the end of the input and hands segments of them to submit, which
// returns false when the consumer has gone.
func (st *mp3Stream) walk(in *source, submit func(*mp3Job) bool) error {
	ref := st.first
	var seg [][]byte
	var recent [][]byte // the frames before seg, for its warm-up
	flush := func() bool {
		if len(seg) == 0 {
			return true
		}
		j := &mp3Job{chans: ref.Channels}
		j.frames = warmup(recent)
		j.skip = len(j.frames)
		j.frames = append(j.frames, seg...)
		recent = append(recent, seg...)
		recent = recent[max(len(recent)-mp3MaxWarmup, 0):]
		seg = nil
		return submit(j)
	}
	garbage := 0
	for {
		b, _ := in.r.Peek(10)
		if len(b) == 0 {
			break
		}
		if n, ok := id3Size(b); ok {
			if err := st.readID3(in, n); err != nil {
				return err
			}
			continue
		}
		if bytes.HasPrefix(b, []byte("TAG")) {
			if t, _ := in.r.Peek(129); len(t) == 128 {
				st.v1 = parseID3v1(t)
				_, _ = in.r.Discard(128)
				break
			}
		}
		h, ok := mpegaudio.ParseHeader(b)
		if ok && h.Version == ref.Version && h.Layer == ref.Layer && h.Rate == ref.Rate && (st.frames > 0 || st.locks(in, h)) {
			fb, _ := in.r.Peek(h.Size)
			if len(fb) < h.Size {
				break // a truncated last frame is not audio
			}
			frame := bytes.Clone(fb)
			_, _ = in.r.Discard(h.Size)
			garbage = 0
			if st.frames == 0 {
				st.bitrate = h.Bitrate
			}
			st.frames++
			st.bytes += int64(h.Size)
			if h.Bitrate != st.bitrate {
				st.sameBitrate = false
			}
			seg = append(seg, frame)
			if len(seg) == st.segFrames && !flush() {
				return nil
			}
			continue
		}
		if garbage++; garbage > mp3MaxGarbage && st.frames == 0 {
			return fmt.Errorf("%w: no MPEG audio frames after %d bytes", ErrMalformed, mp3MaxGarbage)
		}
		if _, err := in.r.Discard(1); err != nil {
			return err
		}
	}
	flush()
	return nil
}

// infoFrame reports whether frame is a Xing, Info or VBRI frame (metadata, not audio), keeping
// a LAME tag's encoder delay and padding.
func (st *mp3Stream) infoFrame(frame []byte, h mpegaudio.Header) bool {
	info, ok := mpegaudio.ParseInfoFrame(frame, h)
	if info.LAME {
		st.lame, st.delay, st.padding = true, info.Delay, info.Padding
	}
	return ok
}

// warmup returns the frames a segment's decoder decodes first, from prev (the frames before
// the segment): the last one, which leaves the filter bank's memory as a sequential decode
// would, and before it enough frames for its main data to find the bit reservoir filled.
func warmup(prev [][]byte) [][]byte {
	if len(prev) == 0 {
		return nil
	}
	n, data := 1, 0
	for n < len(prev) && data < mp3ReservoirMax {
		f := prev[len(prev)-1-n]
		n++
		if h, ok := mpegaudio.ParseHeader(f); ok {
			data += len(f) - 4 - h.SideInfo
		}
	}
	return slices.Clone(prev[len(prev)-n:])
}

// decodeMP3Segment decodes a job's frames, in a buffer from free, and drops the warm-up
// frames' output. Warm-up frames may fail (their own main data may reach before the first of
// them); segment frames that fail are concealed as silence and counted.
func decodeMP3Segment(j *mp3Job, free segmentBuffers[float64]) (res mp3Result, _ error) {
	d := mp3dec.NewDecoder()
	var scratch []float64
	for _, f := range j.frames[:j.skip] {
		scratch, _ = d.DecodeFrame(scratch[:0], f)
	}
	if len(j.frames) > j.skip {
		if h, ok := mpegaudio.ParseHeader(j.frames[j.skip]); ok {
			res.pcm = free.get((len(j.frames) - j.skip) * h.Samples * j.chans)
		}
	}
	for _, f := range j.frames[j.skip:] {
		var err error
		start := len(res.pcm)
		res.pcm, err = d.DecodeFrame(res.pcm, f)
		if h, ok := mpegaudio.ParseHeader(f); ok && h.Channels != j.chans {
			// A stream that switches between mono and stereo is measured in its first
			// frame's layout: mono frames are duplicated, stereo frames mixed down.
			res.pcm = append(res.pcm[:start], remix(res.pcm[start:], h.Channels, j.chans)...)
		}
		switch {
		case err == nil:
		case errors.Is(err, mp3dec.ErrCorrupt), errors.Is(err, mp3dec.ErrReservoir):
			res.concealed++
		default:
			return mp3Result{}, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
	}
	return res, nil
}

// mp3PCM stitches decoded segments in order, dropping skip frames at the start and holding
// back hold frames, which are dropped at the end.
type mp3PCM struct {
	segs      *segments[*mp3Job, mp3Result]
	channels  int
	skip      int
	hold      int
	buf       []float64 // samples received; buf[pos:] are not yet emitted
	pos       int
	concealed int64
	free      segmentBuffers[float64]
}

func (p *mp3PCM) read(dst []float64) (int, error) {
	ch := p.channels
	for (len(p.buf)-p.pos)/ch <= p.hold {
		_, r, err := p.segs.next()
		if err != nil {
			return 0, err // io.EOF after the last segment
		}
		p.concealed += r.concealed
		pcm := r.pcm
		if p.skip > 0 {
			k := min(p.skip, len(pcm)/ch)
			pcm = pcm[ch*k:]
			p.skip -= k
		}
		p.buf = append(p.buf[:copy(p.buf, p.buf[p.pos:])], pcm...)
		p.free.put(r.pcm)
		p.pos = 0
	}
	frames := min((len(p.buf)-p.pos)/ch-p.hold, len(dst)/ch)
	n := copy(dst[:frames*ch], p.buf[p.pos:])
	p.pos += n
	return n, nil
}

// remix converts interleaved samples from one channel count to another (1 or 2): mono is
// duplicated, stereo averaged.
func remix(pcm []float64, from, to int) []float64 {
	if from == to {
		return pcm
	}
	if to == 2 {
		out := make([]float64, 2*len(pcm))
		for i, v := range pcm {
			out[2*i], out[2*i+1] = v, v
		}
		return out
	}
	out := make([]float64, len(pcm)/2)
	for i := range out {
		out[i] = (pcm[2*i] + pcm[2*i+1]) / 2
	}
	return out
}
