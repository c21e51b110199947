package audio

import (
	"errors"
	"fmt"
	"io"

	"github.com/mewkiz/flac"
	"github.com/mewkiz/flac/meta"
	"github.com/podqa/podqa-go/fakeserver/internal/flacdec"
)

// measureFLAC reads the metadata blocks with github.com/mewkiz/flac and decodes the frames with
// internal/flacdec. Vorbis comments give the tags and the first PICTURE block (a front cover
// first) the cover.
func measureFLAC(in *source) (Measurement, error) {
	// flac.Parse reads through in.r itself (a bufio.Reader large enough for it to keep), so the
	// frames start where the metadata ends.
	st, err := flac.Parse(in.r)
	if err != nil {
		return Measurement{}, fmt.Errorf("%w: FLAC metadata: %v", ErrMalformed, err)
	}
	info := st.Info
	ch, rate := int(info.NChannels), int(info.SampleRate)
	if ch < 1 || ch > MaxChannels || rate < MinSampleRate || rate > MaxSampleRate {
		return Measurement{}, fmt.Errorf("%w: FLAC with %d channels at %d Hz", ErrUnsupportedCodec, ch, rate)
	}
	dec := flacdec.NewDecoder(in.r, flacdec.StreamInfo{SampleRate: rate, BitsPerSample: int(info.BitsPerSample)})
	var buf [flacdec.MaxChannels][]int32
	var pending [][]int32 // the current frame's samples not yet emitted, per channel
	var scale float64
	res, err := measurePCM(in, rate, ch, ChannelWeights(ch, 0), func(dst []float64) (int, error) {
		for len(pending) == 0 || len(pending[0]) == 0 {
			f, err := dec.Next()
			if errors.Is(err, io.EOF) {
				return 0, io.EOF
			}
			if err != nil {
				return 0, fmt.Errorf("%w: FLAC frame: %v", ErrMalformed, err)
			}
			if len(f.Samples) != ch {
				return 0, fmt.Errorf("%w: FLAC frame with %d channels in a stream of %d", ErrMalformed, len(f.Samples), ch)
			}
			scale = 1 / float64(uint64(1)<<(f.BitsPerSample-1))
			pending = buf[:copy(buf[:], f.Samples)]
		}
		n := min(len(dst)/ch, len(pending[0]))
		for c, s := range pending {
			for i, v := range s[:n] {
				dst[i*ch+c] = float64(v) * scale
			}
			pending[c] = s[n:]
		}
		return n * ch, nil
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
