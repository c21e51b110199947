package probe

import (
	"fmt"

	"github.com/podqa/podqa-go/internal/mpegaudio"
)

// maxMP3Scan is how far into input without an ID3v2 tag Probe looks for MPEG frames.
const maxMP3Scan = 1 << 16

// compatible reports whether frames h and o can belong to the same stream.
func compatible(h, o mpegaudio.Header) bool {
	return h.Version == o.Version && h.Layer == o.Layer && h.Rate == o.Rate
}

// probeMP3 walks MPEG audio frames from the current position; hadID3 says an ID3v2 tag was
// skipped in front (so the input is committed to being MP3).
func probeMP3(r *reader, hadID3 bool) (Info, error) {
	var (
		locked, everLocked bool
		sawFirst           bool
		ref                mpegaudio.Header
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
		h, ok := mpegaudio.ParseHeader(b)
		if ok && everLocked && !compatible(h, ref) {
			ok = false
		}
		if ok {
			fb, err := r.peek(h.Size + 4)
			if err != nil {
				return Info{}, err
			}
			if len(fb) < h.Size {
				break // truncated final frame
			}
			if !locked && len(fb) >= h.Size+4 {
				if h2, ok2 := mpegaudio.ParseHeader(fb[h.Size:]); ok2 && compatible(h2, h) {
					locked = true
					if !everLocked {
						everLocked, ref = true, h
					}
				}
			}
			if locked {
				if !sawFirst {
					sawFirst = true
					if info, isInfo := mpegaudio.ParseInfoFrame(fb[:h.Size], h); isInfo {
						gapless = uint64(info.Delay + info.Padding)
						frames = -1 // the Info frame is not audio; count from the next frame
					}
				}
				frames++
				if frames > 0 {
					samples += uint64(h.Samples)
				}
				if _, err := r.discard(int64(h.Size)); err != nil {
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
	d, err := samplesDuration(samples, uint64(ref.Rate))
	if err != nil {
		return Info{}, err
	}
	return Info{
		Format:     "mp3",
		Codec:      [...]string{"mp1", "mp2", "mp3"}[ref.Layer-1],
		Duration:   d,
		SampleRate: ref.Rate,
		Channels:   ref.Channels,
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
