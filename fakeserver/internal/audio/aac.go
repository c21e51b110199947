package audio

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/podqa/podqa-go/fakeserver/internal/aacdec"
)

// aacTrim is what the container says to cut from the decode: skip samples per channel at the
// start (the encoder's priming, an edit list's media time) and keep at most keep after them
// (the edit's duration), or everything when keep < 0.
type aacTrim struct {
	skip, keep int64
}

// measureAACBlocks decodes the raw AAC blocks next returns until io.EOF and measures them.
// Corrupt blocks are concealed as silence and counted, but a stream of which no block decodes
// (a configuration that lies about the channels, say) is ErrMalformed; a stream the decoder
// does not decode wraps ErrUnsupportedCodec with the decoder's reason (the profile it found).
func measureAACBlocks(in *source, cfg aacdec.Config, trim aacTrim, next func() ([]byte, error)) (MeterResult, int64, error) {
	p, err := newAACPCM(cfg, trim, next)
	if err != nil {
		return MeterResult{}, 0, err
	}
	res, err := measurePCM(in, cfg.SampleRate, cfg.Channels, ChannelWeights(cfg.Channels, 0), p.read)
	p.close()
	if err == nil && p.blocks > 0 && p.concealed == p.blocks {
		return res, p.concealed, fmt.Errorf("%w: none of the %d AAC frames decodes (%d channels, %d Hz)", ErrMalformed, p.blocks, cfg.Channels, cfg.SampleRate)
	}
	return res, p.concealed, err
}

// The AAC pipeline's sizes: blocks handed on at a time, and batches in flight (being parsed,
// synthesized, measured): about 1.9 MB for stereo (42 KiB a parsed block, 128 KiB of samples a
// batch) whatever the duration.
const (
	aacBatchBlocks = 8
	aacBatches     = 4
)

// aacBatch is a run of parsed blocks on its way through the pipeline.
type aacBatch struct {
	blocks [aacBatchBlocks]aacdec.Block
	n      int        // blocks parsed
	pcm    []float64  // their interleaved samples
	err    error      // what ended the stream after the n blocks (io.EOF at its end), or nil
	right  chan error // the second channel's synthesis is done (with a decoder panic, if any)
}

// aacPCM is the trimmed, interleaved decode of a stream of raw AAC blocks, in three stages on
// their own goroutines: parsing (in stream order), the second channel's synthesis, and, in
// read, the first channel's synthesis and trimming. Each channel's blocks are synthesized in
// order by one goroutine, so the samples are those of aacdec.Decoder.Decode.
type aacPCM struct {
	d                 *aacdec.Decoder
	channels          int
	next              func() ([]byte, error)
	free, parsed      chan *aacBatch
	right             chan *aacBatch // to the second channel's synthesis (stereo)
	quit              chan struct{}  // closed by close: stop the stages
	wg                sync.WaitGroup
	cur               *aacBatch // the batch pending is in
	pending           []float64
	done              bool
	err               error // the stream's end after pending, if not io.EOF
	skip, keep        int64 // in samples (all channels); keep < 0: no end
	blocks, concealed int64 // counted by the parser; read them after close
	bytes             int64 // of the blocks parsed
}

// The work of an AAC decode is bounded by the bytes of its frames as well as by the duration
// of its audio: every frame decodes to 1,024 samples however small it is, so a 10 KB M4A of
// 1-byte frames at repeated offsets (or megabytes of ADTS headers without payload) decoded
// to twelve hours of audio. A real frame of LC holds at least its elements' headers (digital
// silence takes 6 bytes or more); aacFreeBlocks lets a short stream of them through.
const (
	aacMinBlockBytes = 4
	aacFreeBlocks    = 1024
)

// maxAACRate is the highest rate of AAC's sampling frequency table; an explicit rate above it
// (the escape value allows up to 16 MHz) is refused: 384 kHz multiplied the work of every
// second of audio by eight.
const maxAACRate = 96000

func newAACPCM(cfg aacdec.Config, trim aacTrim, next func() ([]byte, error)) (*aacPCM, error) {
	if cfg.SampleRate > maxAACRate {
		return nil, fmt.Errorf("%w: AAC at %d Hz; its rates go up to %d Hz", ErrUnsupportedCodec, cfg.SampleRate, maxAACRate)
	}
	d, err := aacdec.NewDecoder(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupportedCodec, err)
	}
	ch := int64(cfg.Channels)
	p := &aacPCM{d: d, channels: cfg.Channels, next: next, skip: trim.skip * ch, keep: trim.keep * ch,
		free: make(chan *aacBatch, aacBatches), parsed: make(chan *aacBatch, aacBatches), quit: make(chan struct{})}
	for range aacBatches {
		p.free <- &aacBatch{pcm: make([]float64, 0, aacBatchBlocks*aacdec.FrameSamples*cfg.Channels), right: make(chan error, 1)}
	}
	var toParsed chan<- *aacBatch = p.parsed
	if cfg.Channels == 2 {
		p.right = make(chan *aacBatch, aacBatches)
		toParsed = p.right
		p.wg.Add(1)
		go p.synthesizeRight()
	}
	p.wg.Add(1)
	go p.parse(toParsed)
	return p, nil
}

// close stops the stages and waits for them; read must not be called after.
func (p *aacPCM) close() {
	close(p.quit)
	p.wg.Wait()
}

// parse parses blocks in stream order into batches and hands them on to out, until the stream
// ends, fails or close is called.
func (p *aacPCM) parse(out chan<- *aacBatch) {
	defer p.wg.Done()
	defer close(out)
	for {
		var b *aacBatch
		select {
		case b = <-p.free:
		case <-p.quit:
			return
		}
		b.n, b.err = 0, nil
		func() {
			defer func() {
				if r := recover(); r != nil {
					b.err = fmt.Errorf("%w: AAC decoder failed: %v", ErrMalformed, r)
				}
			}()
			for b.n < aacBatchBlocks && b.err == nil {
				block, err := p.next()
				if err != nil {
					b.err = err
					break
				}
				p.blocks++
				p.bytes += int64(len(block))
				if p.blocks > p.bytes/aacMinBlockBytes+aacFreeBlocks {
					b.err = fmt.Errorf("%w: %d AAC frames in %d bytes; each decodes to %d samples, so on average a frame must hold at least %d bytes",
						ErrOverCeiling, p.blocks, p.bytes, aacdec.FrameSamples, aacMinBlockBytes)
					break
				}
				err = p.d.Parse(&b.blocks[b.n], block)
				switch {
				case errors.Is(err, aacdec.ErrCorrupt):
					p.concealed++
				case err != nil:
					b.err = fmt.Errorf("%w: %w", ErrUnsupportedCodec, err)
					continue
				}
				b.n++
			}
		}()
		select {
		case out <- b:
		case <-p.quit:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// synthesizeRight synthesizes the second channel of each batch into its samples and passes
// the batch on to read.
func (p *aacPCM) synthesizeRight() {
	defer p.wg.Done()
	defer close(p.parsed)
	var tmp [aacdec.FrameSamples]float64
	for b := range p.right {
		select {
		case p.parsed <- b:
		case <-p.quit:
			return
		}
		b.right <- p.synthesize(b, 1, &tmp)
	}
}

// synthesize synthesizes channel c of a batch's blocks into its interleaved samples.
func (p *aacPCM) synthesize(b *aacBatch, c int, tmp *[aacdec.FrameSamples]float64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: AAC decoder failed: %v", ErrMalformed, r)
		}
	}()
	n := p.channels
	pcm := b.pcm[:b.n*aacdec.FrameSamples*n]
	for k := range b.n {
		p.d.Synthesize(tmp, &b.blocks[k], c)
		out := pcm[k*aacdec.FrameSamples*n:]
		for i, v := range tmp {
			out[i*n+c] = v
		}
	}
	return nil
}

// read fills dst with the next samples, returning io.EOF after the last.
func (p *aacPCM) read(dst []float64) (int, error) {
	for len(p.pending) == 0 {
		if p.keep == 0 || p.done {
			return 0, io.EOF
		}
		if p.cur != nil {
			p.free <- p.cur
			p.cur = nil
		}
		b, ok := <-p.parsed
		if !ok {
			p.done = true
			continue
		}
		p.cur = b
		var tmp [aacdec.FrameSamples]float64
		err := p.synthesize(b, 0, &tmp)
		if p.channels == 2 {
			if e := <-b.right; err == nil {
				err = e
			}
		}
		if err != nil {
			return 0, err
		}
		p.pending = b.pcm[:b.n*aacdec.FrameSamples*p.channels]
		if p.skip > 0 {
			n := min(p.skip, int64(len(p.pending)))
			p.pending, p.skip = p.pending[n:], p.skip-n
		}
		if p.keep > 0 {
			if int64(len(p.pending)) > p.keep {
				p.pending = p.pending[:p.keep]
			}
			p.keep -= int64(len(p.pending))
		}
		if b.err != nil {
			p.done = true
			if !errors.Is(b.err, io.EOF) && len(p.pending) == 0 {
				return 0, b.err
			}
			p.err = b.err
		}
	}
	n := copy(dst, p.pending)
	p.pending = p.pending[n:]
	if len(p.pending) == 0 && p.err != nil && !errors.Is(p.err, io.EOF) {
		return n, p.err
	}
	return n, nil
}

// measureADTS measures an ADTS stream (a .aac file), after an ID3v2 tag if one leads it.
// ffmpeg cuts nothing from an ADTS decode (the stream does not say the encoder's delay), and
// neither does this; the duration is exact, from the number of frames, where ffprobe
// estimates it from the bit rate.
func measureADTS(in *source) (Measurement, error) {
	var tags Tags
	var cover *Cover
	if head, _ := in.r.Peek(sniffSize); len(head) >= 10 && string(head[:3]) == "ID3" {
		n, _ := id3Size(head)
		st := &mp3Stream{}
		if err := st.readID3(in, n); err != nil {
			return Measurement{}, err
		}
		tags, cover = st.tags, st.cover
	}
	a := aacdec.NewADTSReader(in.r)
	h, first, err := a.Next()
	if err != nil {
		if errors.Is(err, aacdec.ErrUnsupported) {
			return Measurement{}, fmt.Errorf("%w: %w", ErrUnsupportedCodec, err)
		}
		return Measurement{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	pending := first
	var bytes int64
	res, concealed, err := measureAACBlocks(in, h.Config, aacTrim{keep: -1}, func() ([]byte, error) {
		if pending != nil {
			b := pending
			pending = nil
			bytes += int64(h.FrameLength)
			return b, nil
		}
		g, b, err := a.Next()
		bytes += int64(g.FrameLength)
		return b, err
	})
	if err != nil {
		return Measurement{}, err
	}
	if err := in.drain(); err != nil {
		return Measurement{}, err
	}
	m := Measurement{Channels: h.Channels, SampleRate: h.SampleRate, CodecName: "aac", FormatName: "aac",
		Size: in.size(), Tags: tags, Cover: cover}
	m.fill(res)
	m.ConcealedFrames = concealed
	m.BitRate = bytesRate(bytes, m.Duration.Seconds())
	return m, nil
}
