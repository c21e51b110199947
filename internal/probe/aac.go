package probe

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/podqa/podqa-go/internal/aacheader"
	"github.com/podqa/podqa-go/internal/mp4desc"
)

// mp4Format is ffprobe's format_name for the ISO base media family.
const mp4Format = "mov,mp4,m4a,3gp,3g2,mj2"

// isMP4 reports whether b starts with a box an MP4 file starts with.
func isMP4(b []byte) bool {
	if len(b) < 8 {
		return false
	}
	switch string(b[4:8]) {
	case "ftyp", "moov", "mdat", "free", "skip", "wide":
		return true
	}
	return false
}

// probeADTS counts an ADTS stream's frames: 1024 samples each. Locking needs two consecutive
// headers of the same stream (or one frame that ends the input); bytes that are not a frame of
// that stream are skipped. A truncated final frame is not counted.
func probeADTS(r *reader) (Info, error) {
	var first aacheader.ADTSHeader
	var frames uint64
	locked := false
	for {
		b, err := r.peek(aacheader.ADTSHeaderSize)
		if err != nil {
			return Info{}, err
		}
		if len(b) < aacheader.ADTSHeaderSize {
			break
		}
		h, herr := aacheader.ParseADTSHeader(b)
		ok := herr == nil || errors.Is(herr, aacheader.ErrUnsupported) && h.SampleRate > 0 && h.FrameLength >= h.HeaderLength
		if ok && locked {
			ok = h.SameStream(first)
		}
		var frame []byte
		if ok {
			if frame, err = r.peek(h.FrameLength + aacheader.ADTSHeaderSize); err != nil {
				return Info{}, err
			}
			if len(frame) < h.FrameLength {
				break // a truncated final frame
			}
			if !locked && len(frame) >= h.FrameLength+aacheader.ADTSHeaderSize {
				next, nerr := aacheader.ParseADTSHeader(frame[h.FrameLength:])
				ok = (nerr == nil || errors.Is(nerr, aacheader.ErrUnsupported)) && next.SameStream(h)
			}
		}
		if !ok {
			if _, err := r.discard(1); err != nil {
				return Info{}, err
			}
			continue
		}
		if !locked {
			first, locked = h, true
		}
		frames++
		if _, err := r.discard(int64(h.FrameLength)); err != nil {
			return Info{}, err
		}
	}
	if !locked || first.Channels == 0 {
		return Info{}, malformed("aac: no ADTS frame")
	}
	d, err := samplesDuration(frames*aacheader.FrameSamples, uint64(first.SampleRate))
	if err != nil {
		return Info{}, err
	}
	return Info{Format: "aac", Codec: "aac", Duration: d, SampleRate: first.SampleRate, Channels: first.Channels}, nil
}

// maxLeafBox bounds the boxes probeMP4 reads whole (headers and sample descriptions).
const maxLeafBox = 1 << 16

// mp4Probe is what the walk of an MP4 file has found.
type mp4Probe struct {
	movieScale uint32
	done       bool // a sound track was read
	info       Info
	// The current track's boxes.
	sound      bool
	mediaScale uint32
	mediaDur   uint64
	edit       uint64
	hasEdit    bool
}

// probeMP4 walks an MP4 file's boxes forward, descending into moov and its tracks and reading
// only the small boxes that say the first sound track's codec, channels, rate and duration
// (the edit list's, as ffprobe reports, else the media's); sample tables and media data are
// skipped, so memory stays within the read buffer.
func probeMP4(r *reader) (Info, error) {
	p := &mp4Probe{}
	if err := p.walk(r, -1, 0); err != nil {
		return Info{}, err
	}
	if !p.done {
		return Info{}, malformed("mp4: no sound track")
	}
	return p.info, nil
}

// walk reads the boxes of a container of size bytes (−1: to the end of the input).
func (p *mp4Probe) walk(r *reader, size int64, depth int) error {
	if depth > 8 {
		return malformed("mp4: boxes nested too deep")
	}
	for size != 0 {
		b, err := r.peek(16)
		if err != nil {
			return err
		}
		if len(b) < 8 {
			if size > 0 || len(b) > 0 {
				return malformed("mp4: box header cut short")
			}
			return nil
		}
		n, hdr := int64(binary.BigEndian.Uint32(b)), int64(8)
		typ := string(b[4:8])
		switch n {
		case 0:
			n = size
		case 1:
			if len(b) < 16 {
				return malformed("mp4: box header cut short")
			}
			n, hdr = int64(binary.BigEndian.Uint64(b[8:])), 16
		}
		if n >= 0 && n < hdr || size >= 0 && n > size {
			return malformed("mp4: box %q of %d bytes", typ, n)
		}
		if _, err := r.discard(hdr); err != nil {
			return err
		}
		body := int64(-1)
		if n >= 0 {
			body = n - hdr
		}
		if err := p.box(r, typ, body, depth); err != nil {
			return err
		}
		if size > 0 {
			size -= n
		}
		if n < 0 || p.done && depth == 0 {
			// To the end, or everything needed is known: skip the rest.
			_, err := r.discardAll()
			return err
		}
	}
	return nil
}

// box handles one box whose header has been read.
func (p *mp4Probe) box(r *reader, typ string, body int64, depth int) error {
	switch typ {
	case "moov", "mdia", "minf", "stbl", "edts":
		return p.walk(r, body, depth+1)
	case "trak":
		if p.done {
			break
		}
		p.sound, p.mediaScale, p.mediaDur, p.hasEdit, p.edit = false, 0, 0, false, 0
		if err := p.walk(r, body, depth+1); err != nil {
			return err
		}
		if p.sound && p.info.SampleRate > 0 {
			d := scaled(p.mediaDur, p.mediaScale)
			if p.hasEdit {
				d = scaled(p.edit, p.movieScale)
			}
			p.info.Duration, p.info.Format, p.done = d, mp4Format, true
		}
		return nil
	case "mvhd", "mdhd", "hdlr", "elst", "stsd":
		if body < 0 || body > maxLeafBox {
			return malformed("mp4: %s box of %d bytes", typ, body)
		}
		b, err := r.peek(int(body))
		if err != nil {
			return err
		}
		if int64(len(b)) < body {
			return malformed("mp4: %s box cut short", typ)
		}
		p.leaf(typ, b)
	}
	if body < 0 {
		_, err := r.discardAll()
		return err
	}
	_, err := r.discard(body)
	return err
}

// leaf reads one of the small boxes that describe a track.
func (p *mp4Probe) leaf(typ string, b []byte) {
	switch typ {
	case "mvhd":
		p.movieScale, _ = fullBoxTimes(b)
	case "mdhd":
		p.mediaScale, p.mediaDur = fullBoxTimes(b)
	case "hdlr":
		p.sound = len(b) >= 12 && string(b[8:12]) == "soun"
	case "elst":
		p.edit, p.hasEdit = editDuration(b)
	case "stsd":
		if !p.sound || len(b) < 16+28 {
			return
		}
		entry := b[8:]
		size := int(binary.BigEndian.Uint32(entry))
		if size < 36 || size > len(entry) {
			return
		}
		esds := esdsBox(entry[36:size])
		p.info.Codec = mp4desc.Codec(string(entry[4:8]), esds)
		p.info.Channels = int(binary.BigEndian.Uint16(entry[24:]))
		p.info.SampleRate = int(binary.BigEndian.Uint32(entry[32:]) >> 16)
		if _, asc, _ := mp4desc.ESDS(esds); asc != nil {
			// The AudioSpecificConfig is the truth; stsd often says 2 channels regardless.
			if c, err := aacheader.ParseConfig(asc); c.SampleRate > 0 && (err == nil || errors.Is(err, aacheader.ErrUnsupported)) {
				p.info.SampleRate = c.SampleRate
				if c.Channels > 0 {
					p.info.Channels = c.Channels
				}
			}
		}
	}
}

// esdsBox returns the body of the esds box among a sample entry's child boxes, or nil.
func esdsBox(children []byte) []byte {
	for len(children) >= 8 {
		n := int(binary.BigEndian.Uint32(children))
		if n < 8 || n > len(children) {
			return nil
		}
		if string(children[4:8]) == "esds" {
			return children[8:n]
		}
		children = children[n:]
	}
	return nil
}

// fullBoxTimes reads a version 0 or 1 mvhd or mdhd box's timescale and duration.
func fullBoxTimes(b []byte) (uint32, uint64) {
	switch {
	case len(b) >= 32 && b[0] == 1:
		return binary.BigEndian.Uint32(b[20:]), binary.BigEndian.Uint64(b[24:])
	case len(b) >= 20 && b[0] == 0:
		return binary.BigEndian.Uint32(b[12:]), uint64(binary.BigEndian.Uint32(b[16:]))
	}
	return 0, 0
}

// editDuration sums an elst box's non-empty segments.
func editDuration(b []byte) (uint64, bool) {
	if len(b) < 8 {
		return 0, false
	}
	v1 := b[0] == 1
	n := binary.BigEndian.Uint32(b[4:])
	b = b[8:]
	var total uint64
	found := false
	for range n {
		var d uint64
		var mt int64
		switch {
		case v1 && len(b) >= 20:
			d, mt, b = binary.BigEndian.Uint64(b), int64(binary.BigEndian.Uint64(b[8:])), b[20:]
		case !v1 && len(b) >= 12:
			d, mt, b = uint64(binary.BigEndian.Uint32(b)), int64(int32(binary.BigEndian.Uint32(b[4:]))), b[12:]
		default:
			return total, found && total > 0
		}
		if mt >= 0 {
			total += d
			found = true
		}
	}
	return total, found && total > 0
}

// scaled is v units of 1/scale s, or 0 for a zero scale or a duration that overflows.
func scaled(v uint64, scale uint32) time.Duration {
	if scale == 0 {
		return 0
	}
	d, err := samplesDuration(v, uint64(scale))
	if err != nil {
		return 0
	}
	return d
}
