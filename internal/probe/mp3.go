package probe

import (
	"bytes"
	"fmt"
)

// maxMP3Scan is how far into input without an ID3v2 tag Probe looks for MPEG frames.
const maxMP3Scan = 1 << 16

// Bitrates in kbit/s by table and index (0 is free format, unsupported; 15 is invalid).
var mpegBitrates = [5][15]int{
	{0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448}, // MPEG-1 Layer I
	{0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384},    // MPEG-1 Layer II
	{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320},     // MPEG-1 Layer III
	{0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256},    // MPEG-2/2.5 Layer I
	{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},         // MPEG-2/2.5 Layer II, III
}

// Sample rates by version (MPEG-1, 2, 2.5) and index.
var mpegRates = [3][3]int{{44100, 48000, 32000}, {22050, 24000, 16000}, {11025, 12000, 8000}}

// mpegHeader is a decoded MPEG audio frame header.
type mpegHeader struct {
	version   int // 0: MPEG-1, 1: MPEG-2, 2: MPEG-2.5
	layer     int // 1, 2 or 3
	rate      int
	channels  int
	protected bool // a CRC follows the header
	length    int  // bytes, header included
	samples   int  // per channel
}

// parseMPEGHeader decodes the 4-byte frame header at b, reporting whether it is valid.
func parseMPEGHeader(b []byte) (mpegHeader, bool) {
	if len(b) < 4 || b[0] != 0xFF || b[1]&0xE0 != 0xE0 {
		return mpegHeader{}, false
	}
	var h mpegHeader
	switch (b[1] >> 3) & 3 {
	case 3:
		h.version = 0
	case 2:
		h.version = 1
	case 0:
		h.version = 2
	default:
		return h, false
	}
	lc := (b[1] >> 1) & 3
	if lc == 0 {
		return h, false
	}
	h.layer = 4 - int(lc)
	h.protected = b[1]&1 == 0
	bi, ri := int(b[2]>>4), int((b[2]>>2)&3)
	if bi == 0 || bi == 15 || ri == 3 || b[3]&3 == 2 {
		return h, false
	}
	table := h.layer - 1
	if h.version != 0 {
		table = 3
		if h.layer > 1 {
			table = 4
		}
	}
	br := mpegBitrates[table][bi] * 1000
	h.rate = mpegRates[h.version][ri]
	pad := int(b[2]>>1) & 1
	switch {
	case h.layer == 1:
		h.length, h.samples = (12*br/h.rate+pad)*4, 384
	case h.layer == 2 || h.version == 0:
		h.length, h.samples = 144*br/h.rate+pad, 1152
	default:
		h.length, h.samples = 72*br/h.rate+pad, 576
	}
	h.channels = 2
	if b[3]>>6 == 3 {
		h.channels = 1
	}
	return h, true
}

// compatible reports whether frames h and o can belong to the same stream.
func (h mpegHeader) compatible(o mpegHeader) bool {
	return h.version == o.version && h.layer == o.layer && h.rate == o.rate
}

// probeMP3 walks MPEG audio frames from the current position; hadID3 says an ID3v2 tag was
// skipped in front (so the input is committed to being MP3).
func probeMP3(r *reader, hadID3 bool) (Info, error) {
	var (
		locked, everLocked bool
		sawFirst           bool
		ref                mpegHeader
		frames             int
		samples            uint64
		gapless            uint64 // LAME encoder delay + padding
		scanned            int64
	)
	for {
		b, err := r.peek(4)
		if err != nil {
			return Info{}, err
		}
		if len(b) < 4 {
			break
		}
		h, ok := parseMPEGHeader(b)
		if ok && everLocked && !h.compatible(ref) {
			ok = false
		}
		if ok {
			fb, err := r.peek(h.length + 4)
			if err != nil {
				return Info{}, err
			}
			if len(fb) < h.length {
				break // truncated final frame
			}
			if !locked && len(fb) >= h.length+4 {
				if h2, ok2 := parseMPEGHeader(fb[h.length:]); ok2 && h2.compatible(h) {
					locked = true
					if !everLocked {
						everLocked, ref = true, h
					}
				}
			}
			if locked {
				if !sawFirst {
					sawFirst = true
					if isInfo, g := xingFrame(fb[:h.length], h); isInfo {
						gapless = g
						frames = -1 // the Info frame is not audio; count from the next frame
					}
				}
				frames++
				if frames > 0 {
					samples += uint64(h.samples)
				}
				if _, err := r.discard(int64(h.length)); err != nil {
					return Info{}, err
				}
				continue
			}
		}
		locked = false
		if n, err := mp3TagLength(r); err != nil {
			return Info{}, err
		} else if n > 0 {
			if _, err := r.discard(n); err != nil {
				return Info{}, err
			}
			continue
		}
		// Garbage: skip to the next byte that may start a frame or a tag.
		w, err := r.peek(4096)
		if err != nil {
			return Info{}, err
		}
		skip := len(w)
		if i := indexAny(w[1:]); i >= 0 {
			skip = i + 1
		}
		scanned += int64(skip)
		if !everLocked && !hadID3 && scanned > maxMP3Scan {
			return Info{}, fmt.Errorf("%w: no MPEG audio frames found", ErrUnknownFormat)
		}
		if _, err := r.discard(int64(skip)); err != nil {
			return Info{}, err
		}
	}
	if !everLocked {
		if hadID3 {
			return Info{}, malformed("mp3: no MPEG audio frames after ID3v2 tag")
		}
		return Info{}, fmt.Errorf("%w: no MPEG audio frames found", ErrUnknownFormat)
	}
	if gapless <= samples {
		samples -= gapless
	}
	d, err := samplesDuration(samples, uint64(ref.rate))
	if err != nil {
		return Info{}, err
	}
	return Info{
		Format:     "mp3",
		Codec:      [...]string{"mp1", "mp2", "mp3"}[ref.layer-1],
		Duration:   d,
		SampleRate: ref.rate,
		Channels:   ref.channels,
	}, nil
}

// indexAny returns the index of the first byte in b that may start a frame (0xFF) or a tag
// ('I', 'A', 'T'), or -1.
func indexAny(b []byte) int {
	for i, c := range b {
		switch c {
		case 0xFF, 'I', 'A', 'T':
			return i
		}
	}
	return -1
}

// xingFrame reports whether frame (with header h) is a Xing/Info or VBRI metadata frame and,
// from a LAME tag in it, the encoder delay plus padding in samples.
func xingFrame(frame []byte, h mpegHeader) (bool, uint64) {
	if h.layer != 3 {
		return false, 0
	}
	if len(frame) >= 40 && string(frame[36:40]) == "VBRI" {
		return true, 0
	}
	off := 4
	if h.protected {
		off += 2
	}
	switch {
	case h.version == 0 && h.channels == 1:
		off += 17
	case h.version == 0:
		off += 32
	case h.channels == 1:
		off += 9
	default:
		off += 17
	}
	if len(frame) < off+8 {
		return false, 0
	}
	if tag := string(frame[off : off+4]); tag != "Xing" && tag != "Info" {
		return false, 0
	}
	flags := be32(frame[off+4:])
	p := off + 8
	for _, f := range []struct {
		bit  uint32
		size int
	}{{1, 4}, {2, 4}, {4, 100}, {8, 4}} {
		if flags&f.bit != 0 {
			p += f.size
		}
	}
	if len(frame) < p+24 {
		return true, 0
	}
	lame := frame[p:]
	if !bytes.HasPrefix(lame, []byte("LAME")) && !bytes.HasPrefix(lame, []byte("Lavc")) &&
		!bytes.HasPrefix(lame, []byte("Lavf")) {
		return true, 0
	}
	delay := uint64(lame[21])<<4 | uint64(lame[22])>>4
	padding := uint64(lame[22]&0x0F)<<8 | uint64(lame[23])
	return true, delay + padding
}

// id3v2Length returns the full length of an ID3v2 tag at the current position, or 0.
func id3v2Length(r *reader) (int64, error) {
	b, err := r.peek(10)
	if err != nil {
		return 0, err
	}
	if len(b) < 10 || string(b[:3]) != "ID3" || b[3] == 0xFF || b[4] == 0xFF ||
		(b[6]|b[7]|b[8]|b[9])&0x80 != 0 {
		return 0, nil
	}
	n := int64(b[6])<<21 | int64(b[7])<<14 | int64(b[8])<<7 | int64(b[9])
	n += 10
	if b[5]&0x10 != 0 {
		n += 10 // footer
	}
	return n, nil
}

// mp3TagLength returns the length of an ID3v2, APEv2 (with header) or final ID3v1 tag at the
// current position, or 0.
func mp3TagLength(r *reader) (int64, error) {
	if n, err := id3v2Length(r); n > 0 || err != nil {
		return n, err
	}
	b, err := r.peek(129)
	if err != nil {
		return 0, err
	}
	switch {
	case len(b) == 128 && string(b[:3]) == "TAG":
		return 128, nil
	case len(b) >= 32 && string(b[:8]) == "APETAGEX":
		if le32(b[20:24])&(1<<29) != 0 { // header: the items and footer follow
			return 32 + int64(le32(b[12:16])), nil
		}
		return 32, nil
	}
	return 0, nil
}
