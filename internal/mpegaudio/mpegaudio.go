// Package mpegaudio reads MPEG audio frame headers and the Xing/Info/VBRI metadata frame that
// encoders put first, for the probe (durations) and the analysis engine (decoding) alike.
package mpegaudio

import (
	"bytes"
	"encoding/binary"
)

// Header is a parsed MPEG audio frame header.
type Header struct {
	// Version is 1, 2 or 25 (MPEG 2.5).
	Version int
	// Layer is 1, 2 or 3.
	Layer int
	// Bitrate is in bits per second; Rate in samples per second.
	Bitrate, Rate int
	// ChannelMode is the header's mode field: 0 stereo, 1 joint stereo, 2 dual, 3 mono.
	ChannelMode int
	// ModeExt is the mode extension of joint stereo.
	ModeExt int
	// Channels is 1 for mono, else 2.
	Channels int
	// CRC says a 16-bit CRC follows the header.
	CRC bool
	// Size is the whole frame's length in bytes, header included.
	Size int
	// Samples is the number of samples per channel the frame carries.
	Samples int
	// SideInfo is the length of layer III side information in bytes (0 for layers I and II).
	SideInfo int
}

// Mono reports whether the frame is single-channel.
func (h Header) Mono() bool { return h.ChannelMode == 3 }

var (
	rates = [3][3]int{{44100, 48000, 32000}, {22050, 24000, 16000}, {11025, 12000, 8000}}
	// bitrates in kbit/s by [MPEG-1?][layer-1][index].
	bitrates = [2][3][15]int{
		{ // MPEG 2 and 2.5
			{0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256},
			{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
			{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
		},
		{ // MPEG 1
			{0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448},
			{0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384},
			{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320},
		},
	}
)

// ParseHeader reads the frame header at the start of b. Free-format frames (bit rate index 0)
// and reserved values (version, layer, bit rate, sample rate, emphasis) are not accepted.
func ParseHeader(b []byte) (Header, bool) {
	if len(b) < 4 || b[0] != 0xFF || b[1]&0xE0 != 0xE0 {
		return Header{}, false
	}
	vbits, lbits := b[1]>>3&3, b[1]>>1&3
	bri, sri := int(b[2]>>4), int(b[2]>>2&3)
	if vbits == 1 || lbits == 0 || bri == 0 || bri == 15 || sri == 3 || b[3]&3 == 2 {
		return Header{}, false
	}
	h := Header{Layer: 4 - int(lbits), CRC: b[1]&1 == 0, ChannelMode: int(b[3] >> 6), ModeExt: int(b[3] >> 4 & 3)}
	v1, rateRow := 0, 1
	switch vbits {
	case 3:
		h.Version, v1, rateRow = 1, 1, 0
	case 2:
		h.Version = 2
	default:
		h.Version, rateRow = 25, 2
	}
	h.Bitrate = bitrates[v1][h.Layer-1][bri] * 1000
	h.Rate = rates[rateRow][sri]
	h.Channels = 2
	if h.Mono() {
		h.Channels = 1
	}
	pad := int(b[2] >> 1 & 1)
	switch {
	case h.Layer == 1:
		h.Size, h.Samples = (12*h.Bitrate/h.Rate+pad)*4, 384
	case h.Layer == 2 || h.Version == 1:
		h.Size, h.Samples = 144*h.Bitrate/h.Rate+pad, 1152
	default:
		h.Size, h.Samples = 72*h.Bitrate/h.Rate+pad, 576
	}
	switch {
	case h.Layer != 3:
	case h.Version == 1 && h.Mono():
		h.SideInfo = 17
	case h.Version == 1:
		h.SideInfo = 32
	case h.Mono():
		h.SideInfo = 9
	default:
		h.SideInfo = 17
	}
	return h, h.Size >= 4+h.SideInfo
}

// InfoFrame is what a metadata frame says about the stream.
type InfoFrame struct {
	// LAME is true when a LAME (or Lavc/Lavf) tag gave Delay and Padding: the encoder's delay
	// at the start and padding at the end, in samples.
	LAME           bool
	Delay, Padding int
}

// ParseInfoFrame reports whether frame (whose header is h) is a Xing, Info or VBRI metadata
// frame, which carries no audio, and reads a LAME tag's delay and padding from it.
func ParseInfoFrame(frame []byte, h Header) (InfoFrame, bool) {
	if h.Layer != 3 {
		return InfoFrame{}, false
	}
	if len(frame) >= 40 && string(frame[36:40]) == "VBRI" {
		return InfoFrame{}, true
	}
	// LAME writes the tag right after the side information even when the header announces a
	// CRC, and ffmpeg reads it there; a writer that counts the CRC puts it 2 bytes later.
	off := 4 + h.SideInfo
	if h.CRC && !infoTagAt(frame, off) {
		off += 2
	}
	if !infoTagAt(frame, off) {
		return InfoFrame{}, false
	}
	flags := binary.BigEndian.Uint32(frame[off+4:])
	p := off + 8
	for _, f := range []struct {
		bit  uint32
		size int
	}{{1, 4}, {2, 4}, {4, 100}, {8, 4}} {
		if flags&f.bit != 0 {
			p += f.size
		}
	}
	// LAME tag: encoder string (9), revision, lowpass, peak (4), gains (2+2), flags, ABR rate,
	// then 12 bits of delay and 12 of padding.
	if len(frame) < p+24 {
		return InfoFrame{}, true
	}
	tag := frame[p:]
	if !bytes.HasPrefix(tag, []byte("LAME")) && !bytes.HasPrefix(tag, []byte("Lavc")) && !bytes.HasPrefix(tag, []byte("Lavf")) {
		return InfoFrame{}, true
	}
	return InfoFrame{LAME: true, Delay: int(tag[21])<<4 | int(tag[22])>>4, Padding: int(tag[22]&0x0F)<<8 | int(tag[23])}, true
}

// infoTagAt reports whether a Xing or Info tag and its flags lie at frame[off:].
func infoTagAt(frame []byte, off int) bool {
	if len(frame) < off+8 {
		return false
	}
	tag := string(frame[off : off+4])
	return tag == "Xing" || tag == "Info"
}
