package audio

import (
	"errors"
	"fmt"
	"io"

	"github.com/mewkiz/flac"
	"github.com/mewkiz/flac/meta"
)

// measureFLAC decodes FLAC with github.com/mewkiz/flac, frame by frame. Vorbis comments give
// the tags and the first PICTURE block (a front cover first) the cover.
func measureFLAC(in *source) (Measurement, error) {
	st, err := flac.Parse(in)
	if err != nil {
		return Measurement{}, fmt.Errorf("%w: FLAC metadata: %v", ErrMalformed, err)
	}
	info := st.Info
	ch, rate := int(info.NChannels), int(info.SampleRate)
	if ch < 1 || ch > MaxChannels || rate < MinSampleRate || rate > MaxSampleRate {
		return Measurement{}, fmt.Errorf("%w: FLAC with %d channels at %d Hz", ErrUnsupportedCodec, ch, rate)
	}
	var pending []int32 // interleaved samples of the current frame not yet emitted
	var scale float64
	res, err := measurePCM(in, rate, ch, ChannelWeights(ch, 0), func(dst []float64) (int, error) {
		for len(pending) == 0 {
			f, err := st.ParseNext()
			if errors.Is(err, io.EOF) {
				return 0, io.EOF
			}
			if err != nil {
				return 0, fmt.Errorf("%w: FLAC frame: %v", ErrMalformed, err)
			}
			if len(f.Subframes) != ch || f.BitsPerSample == 0 || f.BitsPerSample > 32 {
				return 0, fmt.Errorf("%w: FLAC frame with %d channels of %d bits", ErrMalformed, len(f.Subframes), f.BitsPerSample)
			}
			scale = 1 / float64(uint64(1)<<(f.BitsPerSample-1))
			n := len(f.Subframes[0].Samples)
			for _, sf := range f.Subframes {
				if len(sf.Samples) != n {
					return 0, fmt.Errorf("%w: FLAC subframes of unequal length", ErrMalformed)
				}
			}
			pending = pending[:0]
			for i := range n {
				for _, sf := range f.Subframes {
					pending = append(pending, sf.Samples[i])
				}
			}
		}
		n := min(len(dst), len(pending))
		for i, v := range pending[:n] {
			dst[i] = float64(v) * scale
		}
		pending = pending[n:]
		return n, nil
	})
	if err != nil {
		return Measurement{}, err
	}
	if err := in.drain(); err != nil {
		return Measurement{}, err
	}
	m := Measurement{
		Channels: ch, SampleRate: rate, BitsPerSample: int(info.BitsPerSample),
		CodecName: "flac", FormatName: "flac", Size: in.size(),
	}
	m.fill(res)
	m.BitRate = bytesRate(m.Size, m.Duration.Seconds())
	var cover *Cover
	for _, b := range st.Blocks {
		switch body := b.Body.(type) {
		case *meta.VorbisComment:
			m.Tags, _ = vorbisComments(body.Tags)
		case *meta.Picture:
			if c := newCover(body.Data, body.MIME); c != nil && (cover == nil || body.Type == 3) {
				cover = c
			}
		}
	}
	m.Cover = cover
	m.Tags.Chapters = sortChapters(m.Tags.Chapters, m.Duration)
	return m, nil
}
