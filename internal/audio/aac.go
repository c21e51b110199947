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
	d, err := aacdec.NewDecoder(cfg)
	if err != nil {
		return MeterResult{}, 0, fmt.Errorf("%w: %w", ErrUnsupportedCodec, err)
	}
	ch := cfg.Channels
	var pending, decoded []float64
	var blocks, concealed int64
	skip, keep := trim.skip*int64(ch), trim.keep*int64(ch)
	res, err := measurePCM(in, cfg.SampleRate, ch, ChannelWeights(ch, 0), func(dst []float64) (int, error) {
		for len(pending) == 0 {
			if keep == 0 {
				return 0, io.EOF
			}
			block, err := next()
			if err != nil {
				return 0, err
			}
			blocks++
			decoded, err = d.Decode(decoded[:0], block)
			switch {
			case errors.Is(err, aacdec.ErrCorrupt):
				concealed++
			case err != nil:
				return 0, fmt.Errorf("%w: %w", ErrUnsupportedCodec, err)
			}
			pending = decoded
			if skip > 0 {
				n := min(skip, int64(len(pending)))
				pending, skip = pending[n:], skip-n
			}
			if keep > 0 && int64(len(pending)) > keep {
				pending = pending[:keep]
			}
			if keep > 0 {
				keep -= int64(len(pending))
			}
		}
		n := copy(dst, pending)
		pending = pending[n:]
		return n, nil
	})
	if err == nil && blocks > 0 && concealed == blocks {
		return res, concealed, fmt.Errorf("%w: none of the %d AAC frames decodes (%d channels, %d Hz)", ErrMalformed, blocks, ch, cfg.SampleRate)
	}
	return res, concealed, err
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
