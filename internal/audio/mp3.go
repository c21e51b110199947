package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	mp3 "github.com/hajimehoshi/go-mp3"

	"github.com/podqa/podqa-go/internal/mpegaudio"
)

// mp3DecoderDelay is the delay of the standard decoder's filter banks, in samples; ffmpeg adds
// it to the encoder delay that a LAME tag records.
const mp3DecoderDelay = 529

// Segmenting of MP3 decoding.
const (
	mp3SegmentFrames = 256 // frames of audio one worker decodes at a time
	mp3RealWarmup    = 2   // decoded frames before a segment whose output is discarded
	mp3ReservoirMax  = 512 // bytes of main data a frame may take from earlier frames (< 2^9)
	mp3MaxZeroed     = 8   // silenced frames before those, to fill the bit reservoir
	mp3MaxGarbage    = sniffSize
)

// mp3Job is one segment of frames for a worker.
type mp3Job struct {
	data   []byte // warm-up frames then the segment's frames
	skip   int    // warm-up frames whose output is discarded
	frames int    // frames in data
	res    chan mp3Result
}

type mp3Result struct {
	pcm []byte // interleaved stereo 16-bit little-endian, the segment's frames only
	err error
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
	err         error
}

// measureMP3 measures an MPEG layer III stream. Frames are found by walking their headers (two
// consecutive valid headers lock the walk; bytes that are not frames are skipped). Segments of
// frames are decoded by o.workers goroutines in parallel; each segment's decoder starts a few
// frames early, on frames whose side information is silenced so that they only fill the bit
// reservoir, and those frames' output is discarded, so the stitched output equals a sequential
// decode. A Xing/Info frame is not audio; when it carries a LAME tag, the encoder delay plus
// the decoder's 529 samples are skipped at the start and the padding less 529 at the end, as
// ffmpeg does.
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
	quit := make(chan struct{}) // closed when the meter stops taking segments
	jobs := make(chan *mp3Job)
	// Segments in flight are bounded (queued, being decoded, being measured), so memory does
	// not depend on the duration.
	order := make(chan *mp3Job, o.workers)
	var wg sync.WaitGroup
	for range o.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				j.res <- decodeMP3Segment(j)
			}
		}()
	}
	walkDone := make(chan struct{})
	go func() {
		defer close(walkDone)
		defer close(jobs)
		defer close(order)
		defer func() {
			if p := recover(); p != nil {
				st.err = fmt.Errorf("%w: MP3 framing: %v", ErrMalformed, p)
			}
		}()
		st.err = st.walk(in, func(j *mp3Job) bool {
			select {
			case order <- j:
			case <-quit:
				return false
			}
			select {
			case jobs <- j:
				return true
			case <-quit:
				return false
			}
		})
	}()
	startSkip, endDrop := 0, 0
	if st.lame {
		startSkip = st.delay + mp3DecoderDelay
		endDrop = max(st.padding-mp3DecoderDelay, 0)
	}
	rd := &mp3PCM{order: order, mono: h.Mono(), skip: startSkip, hold: endDrop}
	res, err := measurePCM(h.Rate, channels, nil, rd.read)
	// After an error the walker may be blocked handing over a segment nobody will take.
	close(quit)
	<-walkDone
	wg.Wait()
	if err == nil {
		err = st.err
	}
	if err != nil {
		return Measurement{}, err
	}
	if st.frames == 0 {
		return Measurement{}, fmt.Errorf("%w: no MPEG audio frames", ErrMalformed)
	}
	if err := in.drain(); err != nil {
		return Measurement{}, err
	}
	m := Measurement{Channels: channels, SampleRate: h.Rate, CodecName: "mp3", FormatName: "mp3", Size: in.size()}
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
			case h.Version == 25:
				return fmt.Errorf("%w: MPEG 2.5 layer III audio", ErrUnsupportedCodec)
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
	var seg []byte
	var segFrames int
	var recent [][]byte // the last frames, for the next segment's warm-up
	flush := func() bool {
		if segFrames == 0 {
			return true
		}
		j := &mp3Job{res: make(chan mp3Result, 1)}
		j.data, j.skip = warmup(recent[:max(len(recent)-segFrames, 0)])
		j.data = append(j.data, seg...)
		j.frames = j.skip + segFrames
		recent = recent[max(len(recent)-mp3MaxZeroed-mp3RealWarmup, 0):]
		seg, segFrames = nil, 0
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
			seg = append(seg, frame...)
			segFrames++
			recent = append(recent, frame)
			if segFrames == st.segFrames && !flush() {
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

// warmup builds the frames that precede a segment for its decoder: the last mp3RealWarmup
// frames as they are, and before them silenced frames carrying enough main data for the bit
// reservoir. It returns the bytes and the number of frames.
func warmup(prev [][]byte) ([]byte, int) {
	if len(prev) == 0 {
		return nil, 0
	}
	real := prev[max(len(prev)-mp3RealWarmup, 0):]
	rest := prev[:len(prev)-len(real)]
	zs := 0
	var slot int
	for zs < len(rest) && zs < mp3MaxZeroed && slot < mp3ReservoirMax {
		slot += len(rest[len(rest)-1-zs])
		zs++
	}
	var out []byte
	for _, f := range rest[len(rest)-zs:] {
		out = append(out, silenceFrame(f)...)
	}
	for _, f := range real {
		out = append(out, f...)
	}
	return out, zs + len(real)
}

// silenceFrame returns a copy of a layer III frame whose side information, except
// main_data_begin, is zero: it decodes to silence without reading main data, yet its bytes
// still feed the bit reservoir of the frames after it.
func silenceFrame(f []byte) []byte {
	g := bytes.Clone(f)
	h, ok := mpegaudio.ParseHeader(g)
	if !ok {
		return g
	}
	si := 4
	if h.CRC {
		si += 2
	}
	if si+h.SideInfo > len(g) {
		return g
	}
	side := g[si : si+h.SideInfo]
	if h.Version == 1 {
		side[1] &= 0x80 // main_data_begin is 9 bits
	} else {
		side[1] = 0 // 8 bits
	}
	clear(side[2:])
	return g
}

// onlyReader hides a reader's other methods, so that go-mp3 does not scan a seekable input.
type onlyReader struct{ io.Reader }

// decodeMP3Segment decodes a job's frames and drops the warm-up frames' output.
func decodeMP3Segment(j *mp3Job) (res mp3Result) {
	defer func() {
		if p := recover(); p != nil {
			res = mp3Result{err: fmt.Errorf("%w: MP3 decoder failed: %v", ErrMalformed, p)}
		}
	}()
	h, _ := mpegaudio.ParseHeader(j.data)
	d, err := mp3.NewDecoder(onlyReader{bytes.NewReader(j.data)})
	if err != nil {
		return mp3Result{err: fmt.Errorf("%w: MP3 decoder: %v", ErrMalformed, err)}
	}
	raw := make([]byte, j.frames*h.Samples*4)
	n, err := io.ReadFull(d, raw)
	if err != nil && n < len(raw) {
		return mp3Result{err: fmt.Errorf("%w: MP3 decoder: %d of %d samples: %v", ErrMalformed, n/4, len(raw)/4, err)}
	}
	return mp3Result{pcm: raw[j.skip*h.Samples*4:]}
}

// mp3PCM stitches decoded segments in order into float64 samples, dropping skip frames at the
// start and holding back hold frames, which are dropped at the end.
type mp3PCM struct {
	order <-chan *mp3Job
	mono  bool
	skip  int
	hold  int
	buf   []byte // stereo 16-bit frames received; buf[pos:] are not yet emitted
	pos   int
	done  bool
}

func (p *mp3PCM) read(dst []float64) (int, error) {
	ch := 2
	if p.mono {
		ch = 1
	}
	for (len(p.buf)-p.pos)/4 <= p.hold {
		if p.done {
			return 0, io.EOF
		}
		j, ok := <-p.order
		if !ok {
			p.done = true
			continue
		}
		r := <-j.res
		if r.err != nil {
			return 0, r.err
		}
		pcm := r.pcm
		if p.skip > 0 {
			k := min(p.skip, len(pcm)/4)
			pcm = pcm[4*k:]
			p.skip -= k
		}
		p.buf = append(p.buf[:copy(p.buf, p.buf[p.pos:])], pcm...)
		p.pos = 0
	}
	frames := min((len(p.buf)-p.pos)/4-p.hold, len(dst)/ch)
	src := p.buf[p.pos:]
	const scale = 1.0 / 32767 // go-mp3 scales by 32767
	if p.mono {
		for i := range frames {
			dst[i] = float64(int16(binary.LittleEndian.Uint16(src[4*i:]))) * scale
		}
	} else {
		for i := range 2 * frames {
			dst[i] = float64(int16(binary.LittleEndian.Uint16(src[2*i:]))) * scale
		}
	}
	p.pos += 4 * frames
	return frames * ch, nil
}
