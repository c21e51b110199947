// Package opusdec decodes Opus packets (RFC 6716) to 48 kHz float samples.
//
// It decodes the CELT layer in full: every frame size from 2.5 to 20 ms, mono and stereo
// (either way round from the stream's channel count), every band limit, transients, the
// pitch post-filter, intensity and dual stereo, and anti-collapse. Packets of the SILK and
// hybrid modes are refused with an error wrapping ErrUnsupported, as are frames of one byte
// or none (lost-packet concealment is not implemented); CELTOnly tells whether a packet is
// one this package decodes. All four packet codes (RFC 6716 section 3.2) are read.
//
// The decoder is the reference decoder's floating-point arithmetic in float32, so its output
// agrees with libopus's float decoder within float rounding (135 to 142 dB SNR on the vectors
// of testdata/gen.sh). Decode does not allocate; a Decoder's memory is fixed (about 50 KiB,
// plus 140 KiB of tables built once and shared), whatever the stream's duration. A stream
// decodes on one goroutine: each packet depends on the state the previous one left. To decode
// one stream on several cores, give each segment its own Decoder and start it some packets
// early, discarding their output (RFC 7845 section 4.6 asks for 80 ms; at 12 points of a
// 10-minute speech file at 20 ms frames, the output was bit-identical to a serial decode's
// after 320 ms); PacketSamples sizes segments without decoding.
package opusdec

import (
	"errors"
	"fmt"
)

// Errors of Decode. Each returned error wraps one of them.
var (
	// ErrInvalidPacket means the packet breaks RFC 6716's framing rules or its coded data
	// is inconsistent.
	ErrInvalidPacket = errors.New("opusdec: invalid Opus packet")
	// ErrUnsupported means a valid packet this package does not decode (SILK or hybrid
	// mode, or an empty frame that asks for concealment).
	ErrUnsupported = errors.New("opusdec: unsupported Opus packet")
)

// MaxFrameSamples is the most samples per channel one packet decodes to (120 ms).
const MaxFrameSamples = 5760

// Decoder decodes the packets of one Opus stream, in order. Its zero value is not usable;
// make one with NewDecoder.
type Decoder struct {
	channels int
	celt     *celtDecoder
	frames   [48][]byte
}

// NewDecoder returns a decoder whose output has channels (1 or 2) interleaved channels.
func NewDecoder(channels int) (*Decoder, error) {
	if channels != 1 && channels != 2 {
		return nil, fmt.Errorf("%w: %d channels; 1 or 2 are decoded", ErrUnsupported, channels)
	}
	return &Decoder{channels: channels, celt: newCELT(channels)}, nil
}

// Decode decodes one packet into pcm (interleaved, at least MaxFrameSamples per channel for
// any packet, or the packet's own duration) and returns the samples per channel written.
func (d *Decoder) Decode(packet []byte, pcm []float32) (int, error) {
	frames, err := splitFrames(packet, &d.frames)
	if err != nil {
		return 0, err
	}
	toc := packet[0]
	cfg := int(toc >> 3)
	if cfg < 16 {
		return 0, fmt.Errorf("%w: %s mode (configuration %d)", ErrUnsupported, modeName(cfg), cfg)
	}
	lm := cfg & 3
	n := shortMdctSize << uint(lm)
	if len(pcm) < len(frames)*n*d.channels {
		return 0, fmt.Errorf("opusdec: output buffer of %d samples holds less than the packet's %d", len(pcm), len(frames)*n*d.channels)
	}
	c := 1
	if toc&4 != 0 {
		c = 2
	}
	end := celtEndBand[(cfg-16)>>2]
	for i, f := range frames {
		if len(f) <= 1 {
			return 0, fmt.Errorf("%w: frame of %d bytes (concealment)", ErrUnsupported, len(f))
		}
		if err := d.celt.decode(f, pcm[i*n*d.channels:], lm, c, end); err != nil {
			return 0, err
		}
	}
	return len(frames) * n, nil
}

// celtEndBand is the number of coded bands by bandwidth: narrow, wide, super-wide, full.
var celtEndBand = [4]int{13, 17, 19, 21}

func modeName(cfg int) string {
	switch {
	case cfg < 12:
		return "SILK"
	case cfg < 16:
		return "hybrid"
	}
	return "CELT"
}

// CELTOnly reports whether Decode decodes packet: a valid CELT-only packet whose frames all
// hold at least two bytes.
func CELTOnly(packet []byte) bool {
	var buf [48][]byte
	frames, err := splitFrames(packet, &buf)
	if err != nil || packet[0]>>3 < 16 {
		return false
	}
	for _, f := range frames {
		if len(f) <= 1 {
			return false
		}
	}
	return true
}

// PacketSamples returns the samples per channel that packet decodes to at 48 kHz (of any
// mode), from its TOC byte and frame count, without decoding it; it fails as Decode does on a
// packet that breaks RFC 6716's framing rules. A parallel decoder uses it to cut a stream into
// segments and to size each segment's pre-roll.
func PacketSamples(packet []byte) (int, error) {
	var buf [48][]byte
	frames, err := splitFrames(packet, &buf)
	if err != nil {
		return 0, err
	}
	return len(frames) * frameSamples(int(packet[0]>>3)), nil
}

// frameSamples is the duration of one frame of a configuration at 48 kHz.
func frameSamples(cfg int) int {
	switch {
	case cfg < 12:
		return 480 << uint(cfg&3) // 10, 20, 40, 60 ms
	case cfg < 16:
		return 480 << uint(cfg&1) // 10, 20 ms
	}
	return shortMdctSize << uint(cfg&3)
}

// splitFrames cuts a packet into its frames (RFC 6716 section 3.2), into buf.
func splitFrames(p []byte, buf *[48][]byte) ([][]byte, error) {
	if len(p) < 1 {
		return nil, fmt.Errorf("%w: empty packet", ErrInvalidPacket)
	}
	toc := p[0]
	data := p[1:]
	out := buf[:0]
	switch toc & 3 {
	case 0:
		if len(data) > 1275 {
			return nil, fmt.Errorf("%w: frame over 1275 bytes", ErrInvalidPacket)
		}
		out = append(out, data)
	case 1:
		if len(data)%2 != 0 || len(data)/2 > 1275 {
			return nil, fmt.Errorf("%w: code 1 packet of odd or oversized length", ErrInvalidPacket)
		}
		h := len(data) / 2
		out = append(out, data[:h], data[h:])
	case 2:
		n, used, err := frameLen(data)
		if err != nil {
			return nil, err
		}
		data = data[used:]
		if n > len(data) || len(data)-n > 1275 {
			return nil, fmt.Errorf("%w: code 2 frame lengths exceed the packet", ErrInvalidPacket)
		}
		out = append(out, data[:n], data[n:])
	case 3:
		if len(data) < 1 {
			return nil, fmt.Errorf("%w: code 3 packet without a frame count", ErrInvalidPacket)
		}
		fc := data[0]
		data = data[1:]
		count := int(fc & 0x3f)
		if count == 0 || count*frameSamples(int(toc>>3)) > MaxFrameSamples {
			return nil, fmt.Errorf("%w: %d frames in a code 3 packet", ErrInvalidPacket, count)
		}
		if fc&0x40 != 0 {
			pad := 0
			for {
				if len(data) < 1 {
					return nil, fmt.Errorf("%w: padding length cut short", ErrInvalidPacket)
				}
				b := int(data[0])
				data = data[1:]
				if b == 255 {
					pad += 254
					continue
				}
				pad += b
				break
			}
			if pad > len(data) {
				return nil, fmt.Errorf("%w: padding longer than the packet", ErrInvalidPacket)
			}
			data = data[:len(data)-pad]
		}
		if fc&0x80 == 0 { // constant bit rate
			if len(data)%count != 0 || len(data)/count > 1275 {
				return nil, fmt.Errorf("%w: code 3 CBR frames of unequal length", ErrInvalidPacket)
			}
			sz := len(data) / count
			for i := range count {
				out = append(out, data[i*sz:(i+1)*sz])
			}
		} else {
			var lens [48]int
			total := 0
			for i := range count - 1 {
				n, used, err := frameLen(data)
				if err != nil {
					return nil, err
				}
				data = data[used:]
				lens[i] = n
				total += n
			}
			if total > len(data) || len(data)-total > 1275 {
				return nil, fmt.Errorf("%w: code 3 frame lengths exceed the packet", ErrInvalidPacket)
			}
			for i := range count - 1 {
				out = append(out, data[:lens[i]])
				data = data[lens[i]:]
			}
			out = append(out, data)
		}
	}
	return out, nil
}

// frameLen reads a one- or two-byte frame length.
func frameLen(b []byte) (n, used int, err error) {
	if len(b) < 1 {
		return 0, 0, fmt.Errorf("%w: frame length cut short", ErrInvalidPacket)
	}
	if b[0] < 252 {
		return int(b[0]), 1, nil
	}
	if len(b) < 2 {
		return 0, 0, fmt.Errorf("%w: frame length cut short", ErrInvalidPacket)
	}
	return int(b[1])*4 + int(b[0]), 2, nil
}
