package audio

import (
	"errors"
	"fmt"
	"io"

	"github.com/podqa/podqa-go/internal/aacdec"
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
	if err == nil && p.blocks > 0 && p.concealed == p.blocks {
		return res, p.concealed, fmt.Errorf("%w: none of the %d AAC frames decodes (%d channels, %d Hz)", ErrMalformed, p.blocks, cfg.Channels, cfg.SampleRate)
	}
	return res, p.concealed, err
}

// aacPCM is the trimmed, interleaved decode of a stream of raw AAC blocks.
type aacPCM struct {
	d                 *aacdec.Decoder
	next              func() ([]byte, error)
	pending, decoded  []float64
	skip, keep        int64 // in samples (all channels); keep < 0: no end
	blocks, concealed int64
}

func newAACPCM(cfg aacdec.Config, trim aacTrim, next func() ([]byte, error)) (*aacPCM, error) {
	d, err := aacdec.NewDecoder(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupportedCodec, err)
	}
	ch := int64(cfg.Channels)
	return &aacPCM{d: d, next: next, skip: trim.skip * ch, keep: trim.keep * ch}, nil
}

// read fills dst with the next samples, returning io.EOF after the last.
func (p *aacPCM) read(dst []float64) (int, error) {
	for len(p.pending) == 0 {
		if p.keep == 0 {
			return 0, io.EOF
		}
		block, err := p.next()
		if err != nil {
			return 0, err
		}
		p.blocks++
		p.decoded, err = p.d.Decode(p.decoded[:0], block)
		switch {
		case errors.Is(err, aacdec.ErrCorrupt):
			p.concealed++
		case err != nil:
			return 0, fmt.Errorf("%w: %w", ErrUnsupportedCodec, err)
		}
		p.pending = p.decoded
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
	}
	n := copy(dst, p.pending)
	p.pending = p.pending[n:]
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
