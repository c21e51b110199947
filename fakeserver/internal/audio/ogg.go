package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// measureOgg measures an Ogg Vorbis or Ogg Opus file; head is its first bytes.
func measureOgg(in *source, head []byte, o options) (Measurement, error) {
	// The first page holds the identification header of the first logical stream.
	switch {
	case bytes.Contains(head[:min(len(head), 200)], []byte("\x01vorbis")):
		return measureVorbis(in, o)
	case bytes.Contains(head[:min(len(head), 200)], []byte("OpusHead")):
		return measureOpus(in, o)
	case bytes.Contains(head[:min(len(head), 200)], []byte("\x7fFLAC")):
		return Measurement{}, fmt.Errorf("%w: FLAC in Ogg", ErrUnsupportedCodec)
	}
	return Measurement{}, fmt.Errorf("%w: an Ogg stream that is neither Vorbis nor Opus", ErrUnsupportedCodec)
}

// vorbisWeights returns BS.1770 weights for the Vorbis (and Opus family 1) channel order:
// mono; L R; L C R; L R Ls Rs; L C R Ls Rs; then LFE last with 6 to 8 channels.
func vorbisWeights(ch int) []float64 {
	w := make([]float64, ch)
	for i := range w {
		w[i] = 1
	}
	switch ch {
	case 4:
		w[2], w[3] = 1.41, 1.41
	case 5:
		w[3], w[4] = 1.41, 1.41
	case 6, 7, 8:
		for i := 3; i < ch-1; i++ {
			w[i] = 1.41
		}
		w[ch-1] = 0
	}
	return w
}

// oggErr classifies an error of the Ogg decoders.
func oggErr(codec string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrMalformed) || errors.Is(err, ErrUnsupportedCodec):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: %s stream cut short: %v", ErrMalformed, codec, err)
	}
	return fmt.Errorf("%w: %s: %v", ErrMalformed, codec, err)
}

// bytesRate is size in bits per second of duration, or 0.
func bytesRate(size int64, seconds float64) int64 {
	if seconds <= 0 {
		return 0
	}
	return int64(math.Round(float64(size) * 8 / seconds))
}

// oggPackets reads the packets of the first logical stream of an Ogg file.
type oggPackets struct {
	r       io.Reader
	serial  uint32
	started bool
	segs    []byte // lacing values of the current page not yet consumed
	partial []byte // a packet continued on the next page
	granule int64  // granule position of the current page
	eos     bool
	hdr     [27]byte
}

// next returns the next packet and whether it is the last one completed on its page (whose
// granule position is then in o.granule).
func (o *oggPackets) next() ([]byte, bool, error) {
	for {
		for len(o.segs) > 0 {
			n := 0
			i := 0
			for ; i < len(o.segs); i++ {
				n += int(o.segs[i])
				if o.segs[i] < 255 {
					break
				}
			}
			complete := i < len(o.segs)
			if !complete {
				i = len(o.segs) - 1
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(o.r, body); err != nil {
				return nil, false, fmt.Errorf("%w: Ogg page cut short", ErrMalformed)
			}
			o.segs = o.segs[i+1:]
			if len(o.partial)+n > 1<<24 {
				return nil, false, fmt.Errorf("%w: Ogg packet over 16 MiB", ErrMalformed)
			}
			if complete && len(o.partial) == 0 {
				return body, len(o.segs) == 0 || allContinuation(o.segs), nil // one page's packet: no second copy
			}
			o.partial = append(o.partial, body...)
			if complete {
				p := o.partial
				o.partial = nil
				return p, len(o.segs) == 0 || allContinuation(o.segs), nil
			}
		}
		if o.eos {
			return nil, false, io.EOF
		}
		if err := o.page(); err != nil {
			return nil, false, err
		}
	}
}

// allContinuation reports whether the remaining lacing values only start a packet that ends
// on a later page.
func allContinuation(segs []byte) bool {
	for _, s := range segs {
		if s < 255 {
			return false
		}
	}
	return true
}

// page reads the next page header of the followed stream, skipping pages of other streams.
func (o *oggPackets) page() error {
	for {
		if _, err := io.ReadFull(o.r, o.hdr[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return io.EOF // a stream without an end-of-stream page ends here
			}
			return fmt.Errorf("%w: Ogg page header cut short", ErrMalformed)
		}
		h := o.hdr[:]
		if string(h[:4]) != "OggS" || h[4] != 0 {
			return fmt.Errorf("%w: bad Ogg page header", ErrMalformed)
		}
		serial := binary.LittleEndian.Uint32(h[14:])
		nseg := int(h[26])
		segs := make([]byte, nseg)
		if _, err := io.ReadFull(o.r, segs); err != nil {
			return fmt.Errorf("%w: Ogg page cut short", ErrMalformed)
		}
		if !o.started {
			o.started, o.serial = true, serial
		}
		if serial != o.serial {
			total := 0
			for _, s := range segs {
				total += int(s)
			}
			if _, err := io.CopyN(io.Discard, o.r, int64(total)); err != nil {
				return fmt.Errorf("%w: Ogg page cut short", ErrMalformed)
			}
			continue
		}
		o.granule = int64(binary.LittleEndian.Uint64(h[6:]))
		o.eos = h[5]&4 != 0
		o.segs = segs
		return nil
	}
}

// opusMaxFrame is the most samples per channel one Opus packet holds (120 ms at 48 kHz).
const opusMaxFrame = 5760

// opusMeasurement reads the input to its end and makes the Measurement of an Ogg Opus stream.
func opusMeasurement(in *source, ch int, res MeterResult, tagsPkt []byte) (Measurement, error) {
	if err := in.drain(); err != nil {
		return Measurement{}, err
	}
	m := Measurement{Channels: ch, SampleRate: 48000, CodecName: "opus", FormatName: "ogg", Size: in.size()}
	m.fill(res)
	m.BitRate = bytesRate(m.Size, m.Duration.Seconds())
	m.Tags, m.Cover = vorbisComments(opusTags(tagsPkt))
	m.Tags.Chapters = sortChapters(m.Tags.Chapters, m.Duration)
	return m, nil
}

// opusTags reads the comments of an OpusTags packet (the Vorbis comment layout).
func opusTags(b []byte) [][2]string {
	if len(b) < 8 || string(b[:8]) != "OpusTags" {
		return nil
	}
	return parseVorbisCommentBody(b[8:])
}

// parseVorbisCommentBody reads a vendor string and a list of KEY=value comments.
func parseVorbisCommentBody(b []byte) [][2]string {
	u32 := func() (int, bool) {
		if len(b) < 4 {
			return 0, false
		}
		v := binary.LittleEndian.Uint32(b)
		b = b[4:]
		return int(min(v, uint32(len(b)+1))), true
	}
	n, ok := u32()
	if !ok || n > len(b) {
		return nil
	}
	b = b[n:]
	count, ok := u32()
	if !ok {
		return nil
	}
	var out [][2]string
	for range count {
		n, ok := u32()
		if !ok || n > len(b) {
			break
		}
		k, v, _ := strings.Cut(string(b[:n]), "=")
		out = append(out, [2]string{k, v})
		b = b[n:]
	}
	return out
}
