package audio

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/pion/opus"

	"github.com/podqa/podqa-go/internal/opusdec"
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

// newOpusDecoder returns internal/opusdec when celt (opusStreamIsCELT's answer for the
// whole stream), else pion/opus, so that one stream never mixes two decoders.
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

// opusCheckEvery is how many packets the first pass reads between checks of the context.
const opusCheckEvery = 1 << 10

// opusStreamIsCELT reports whether every audio packet of the Ogg Opus stream that starts at
// the input's current position is one opusdec decodes (CELT-only, no empty frame). Deciding
// before decoding needs a first pass over the packets, which only a seekable input allows (an
// upload held in memory, a file): for any other input it reports false, and pion decodes.
// The pass costs page parsing only; the input is left where it was. A stream the pass cannot
// read is left to the decoding pass, whose errors are the ones reported.
func opusStreamIsCELT(in *source) (bool, error) {
	rs, ok := in.counter.r.(io.ReadSeeker)
	if !ok {
		return false, nil
	}
	here, err := rs.Seek(0, io.SeekCurrent)
	if err != nil {
		return false, nil
	}
	start := here - int64(in.r.Buffered())
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return false, nil
	}
	celt, scanErr := scanOpusCELT(in, bufio.NewReaderSize(rs, 1<<16))
	if _, err := rs.Seek(here, io.SeekStart); err != nil {
		return false, fmt.Errorf("audio: restoring the input's position after the Opus pre-scan: %w", err)
	}
	if scanErr != nil && !errors.Is(scanErr, ErrMalformed) {
		return false, scanErr // the context ended
	}
	return celt && scanErr == nil, nil
}

// scanOpusCELT reads the Ogg Opus stream of r (from its identification header) and reports
// whether every audio packet is CELT-only with frames opusdec decodes.
func scanOpusCELT(in *source, r io.Reader) (bool, error) {
	op := &oggPackets{r: r}
	for range 2 { // OpusHead, OpusTags
		if _, _, err := op.next(); err != nil {
			return false, oggErr("Opus", err)
		}
	}
	for n := 0; ; n++ {
		if n%opusCheckEvery == 0 {
			if err := in.ctx.Err(); err != nil {
				return false, err
			}
		}
		pkt, _, err := op.next()
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if !opusdec.CELTOnly(pkt) {
			return false, nil
		}
	}
}
