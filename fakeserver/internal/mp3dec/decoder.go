package mp3dec

import (
	"errors"
	"fmt"
	"slices"

	"github.com/podqa/podqa-go/internal/mpegaudio"
)

// ErrNotFrame means the bytes given as a frame do not start with a valid MPEG audio layer III
// frame header; nothing is decoded or appended.
var ErrNotFrame = errors.New("mp3dec: not an MPEG audio layer III frame")

// Decoder decodes a stream of MPEG-1, MPEG-2 and MPEG-2.5 layer III frames into samples. It
// keeps what carries from frame to frame (the bit reservoir, the IMDCT overlap and the
// synthesis history), so frames must be given in stream order. A Decoder is not safe for
// concurrent use; decoders are independent of each other.
type Decoder struct {
	bits    bitstream
	spectra frameSpectra
	banks   [2]filterBank
}

// NewDecoder returns a decoder at the start of a stream.
func NewDecoder() *Decoder { return &Decoder{} }

// Reset returns the decoder to the start of a stream, as after a seek.
func (d *Decoder) Reset() {
	d.bits.reset()
	d.banks[0].reset()
	d.banks[1].reset()
}

// DecodeFrame decodes one whole frame (header included) and appends its samples to dst,
// interleaved when the frame is stereo, at full scale 1.0 and not clipped. A frame carries
// 1152 samples per channel (MPEG-1) or 576 (MPEG-2 and 2.5); Channels of its header says how
// many channels.
//
// When the frame's main data is corrupt (ErrCorrupt) or lies in earlier frames that the
// decoder has not seen (ErrReservoir, at the start of a cut stream), the frame is decoded as
// silence: its samples are still appended, the filter bank's memory fades out into them, and the
// frames after it decode normally. The error says so; callers that conceal errors go on. A
// frame that does not start with a layer III header gives ErrNotFrame and appends nothing.
func (d *Decoder) DecodeFrame(dst []float64, frame []byte) ([]float64, error) {
	h, ok := mpegaudio.ParseHeader(frame)
	if !ok || h.Layer != 3 {
		return dst, fmt.Errorf("%w: %d bytes starting % x", ErrNotFrame, len(frame), frame[:min(len(frame), 4)])
	}
	err := d.bits.decode(frame, h, &d.spectra)
	s := &d.spectra
	ch := s.channels
	n := s.granules * 576 * ch
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	out := dst[start:]
	for g := range s.granules {
		for c := range ch {
			d.banks[c].granule(&s.spectra[g][c], out[g*576*ch+c:], ch)
		}
	}
	return dst, err
}
