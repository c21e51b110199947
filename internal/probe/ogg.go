package probe

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
)

// Ogg page header flags.
const (
	oggBOS = 0x02
	oggEOS = 0x04
)

// oggStream is the logical stream Probe follows.
type oggStream struct {
	serial  uint32
	info    Info
	preskip uint64
}

// oggIdent recognizes a codec identification packet; ok is false for codecs Probe does not
// know.
func oggIdent(pkt []byte) (Info, uint64, bool, error) {
	switch {
	case hasPrefix(pkt, "\x01vorbis"):
		if len(pkt) < 16 {
			return Info{}, 0, false, malformed("ogg: truncated Vorbis identification header")
		}
		ch, rate := int(pkt[11]), le32(pkt[12:16])
		if le32(pkt[7:11]) != 0 || ch == 0 || rate == 0 {
			return Info{}, 0, false, malformed("ogg: bad Vorbis identification header (version %d, %d channels, %d Hz)", le32(pkt[7:11]), ch, rate)
		}
		return Info{Format: "ogg", Codec: "vorbis", SampleRate: int(rate), Channels: ch}, 0, true, nil
	case hasPrefix(pkt, "OpusHead"):
		if len(pkt) < 19 {
			return Info{}, 0, false, malformed("ogg: truncated OpusHead")
		}
		ch := int(pkt[9])
		if pkt[8]>>4 != 0 || ch == 0 {
			return Info{}, 0, false, malformed("ogg: bad OpusHead (version %d, %d channels)", pkt[8], ch)
		}
		return Info{Format: "ogg", Codec: "opus", SampleRate: 48000, Channels: ch}, uint64(le16(pkt[10:12])), true, nil
	case hasPrefix(pkt, "\x7FFLAC"):
		if len(pkt) < 13+4+34 || string(pkt[9:13]) != "fLaC" || pkt[13]&0x7F != 0 {
			return Info{}, 0, false, malformed("ogg: bad Ogg FLAC identification header")
		}
		s, err := parseStreamInfo(pkt[17:])
		if err != nil {
			return Info{}, 0, false, err
		}
		return Info{Format: "ogg", Codec: "flac", SampleRate: int(s.rate), Channels: s.channels}, 0, true, nil
	}
	return Info{}, 0, false, nil
}

// probeOgg walks Ogg pages from the current position.
func probeOgg(r *reader) (Info, error) {
	var (
		st          *oggStream
		pages       int
		granule     uint64
		haveGranule bool
		unknown     []string
	)
walk:
	for {
		h, err := r.peek(27)
		if err != nil {
			return Info{}, err
		}
		if len(h) < 27 {
			break // end of input or a truncated page header
		}
		if string(h[:4]) != "OggS" || h[4] != 0 {
			// Garbage: skip to the next capture pattern.
			w, err := r.peek(4096)
			if err != nil {
				return Info{}, err
			}
			skip := len(w) - 3
			if i := bytes.Index(w[1:], []byte("OggS")); i >= 0 {
				skip = i + 1
			}
			if _, err := r.discard(int64(skip)); err != nil {
				return Info{}, err
			}
			continue
		}
		nsegs := int(h[26])
		hb, err := r.peek(27 + nsegs)
		if err != nil {
			return Info{}, err
		}
		if len(hb) < 27+nsegs {
			break
		}
		body := 0
		for _, l := range hb[27:] {
			body += int(l)
		}
		total := 27 + nsegs + body
		flags, gp, serial := h[5], binary.LittleEndian.Uint64(h[6:14]), le32(h[14:18])
		page, err := r.peek(total)
		if err != nil {
			return Info{}, err
		}
		if len(page) < total {
			break // truncated final page
		}
		pages++
		if st == nil {
			if flags&oggBOS == 0 {
				break // past the beginning-of-stream pages: no known codec
			}
			// The first packet ends at the first lacing value below 255.
			n := 0
			for _, l := range hb[27:] {
				n += int(l)
				if l < 255 {
					break
				}
			}
			in, preskip, ok, err := oggIdent(page[27+nsegs : 27+nsegs+n])
			if err != nil {
				return Info{}, err
			}
			if ok {
				st = &oggStream{serial: serial, info: in, preskip: preskip}
			} else {
				unknown = append(unknown, fmt.Sprintf("%q", page[27+nsegs:27+nsegs+min(n, 8)]))
			}
		}
		if st != nil && serial == st.serial {
			if gp <= math.MaxInt64 {
				granule, haveGranule = gp, true
			}
			if flags&oggEOS != 0 {
				if _, err := r.discard(int64(total)); err != nil {
					return Info{}, err
				}
				break walk
			}
		}
		if _, err := r.discard(int64(total)); err != nil {
			return Info{}, err
		}
	}
	switch {
	case pages == 0:
		return Info{}, malformed("ogg: no complete page")
	case st == nil:
		return Info{}, fmt.Errorf("%w: ogg: no Vorbis, Opus or FLAC stream (first packets %v)", ErrUnknownFormat, unknown)
	case !haveGranule:
		return Info{}, malformed("ogg: no granule position for stream %08x", st.serial)
	}
	samples := uint64(0)
	if granule > st.preskip {
		samples = granule - st.preskip
	}
	d, err := samplesDuration(samples, uint64(st.info.SampleRate))
	if err != nil {
		return Info{}, err
	}
	st.info.Duration = d
	return st.info, nil
}
