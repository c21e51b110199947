package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// maxMoov bounds the moov box read into memory (its sample tables grow with duration, by about
// 4 bytes per 23 ms AAC frame: a 10-hour file needs about 6 MiB).
const maxMoov = 64 << 20

// mp4FormatName is ffprobe's format_name for the ISO base media family.
const mp4FormatName = "mov,mp4,m4a,3gp,3g2,mj2"

// measureMP4 probes an MP4/M4A file without decoding its audio. Top-level boxes are walked
// forward only; everything but moov is skipped by reading past it, so a moov after the media
// data needs neither seeking nor buffering beyond the moov itself. The first sound track gives
// duration (its edit list's length when it has one, as ffprobe reports, else the media
// duration), channels, rate and bit rate (the sample sizes over the media duration); ilst
// items give tags and the cover, a Nero chpl box chapters. AAC returns the probed Measurement
// with an error wrapping ErrNotMeasured; other codecs wrap ErrUnsupportedCodec.
func measureMP4(in *source) (Measurement, error) {
	var moov []byte
	for {
		var hdr [8]byte
		if _, err := io.ReadFull(in.r, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return Measurement{}, fmt.Errorf("%w: MP4 box header cut short", ErrMalformed)
		}
		size := int64(binary.BigEndian.Uint32(hdr[:4]))
		typ := string(hdr[4:])
		body := size - 8
		switch size {
		case 0:
			body = -1 // to the end
		case 1:
			var ext [8]byte
			if _, err := io.ReadFull(in.r, ext[:]); err != nil {
				return Measurement{}, fmt.Errorf("%w: MP4 box header cut short", ErrMalformed)
			}
			body = int64(binary.BigEndian.Uint64(ext[:])) - 16
		}
		if size != 0 && body < 0 {
			return Measurement{}, fmt.Errorf("%w: MP4 box %q of %d bytes", ErrMalformed, typ, size)
		}
		if typ == "moov" && moov == nil {
			if body < 0 || body > maxMoov {
				return Measurement{}, fmt.Errorf("%w: MP4 moov box of %d bytes", ErrMalformed, body)
			}
			moov = make([]byte, body)
			if _, err := io.ReadFull(in.r, moov); err != nil {
				return Measurement{}, fmt.Errorf("%w: MP4 moov box cut short", ErrMalformed)
			}
			continue
		}
		if body < 0 {
			break
		}
		if n, err := io.CopyN(io.Discard, in.r, body); err != nil {
			if errors.Is(err, io.EOF) && n < body {
				break // a truncated mdat: the probe only needs moov
			}
			return Measurement{}, err
		}
	}
	if err := in.drain(); err != nil {
		return Measurement{}, err
	}
	if moov == nil {
		return Measurement{}, fmt.Errorf("%w: MP4 file without a moov box", ErrMalformed)
	}
	m, err := parseMoov(moov)
	if err != nil {
		return Measurement{}, err
	}
	m.FormatName = mp4FormatName
	m.Size = in.size()
	// Nothing was decoded: loudness and peaks are unknown, not silent.
	m.IntegratedLUFS, m.SamplePeakDB, m.TruePeakDB, m.LoudnessRange = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if m.CodecName != "aac" {
		return Measurement{}, fmt.Errorf("%w: %s audio in MP4", ErrUnsupportedCodec, m.CodecName)
	}
	return m, fmt.Errorf("%w (%d channels, %d Hz, %v)", ErrNotMeasured, m.Channels, m.SampleRate, m.Duration)
}

// mp4Box is a box inside a parsed buffer.
type mp4Box struct {
	typ  string
	body []byte
}

// mp4Children splits a buffer into boxes; a box overrunning the buffer ends the list.
func mp4Children(b []byte) []mp4Box {
	var out []mp4Box
	for len(b) >= 8 {
		size := uint64(binary.BigEndian.Uint32(b))
		typ := string(b[4:8])
		hdr := uint64(8)
		switch size {
		case 0:
			size = uint64(len(b))
		case 1:
			if len(b) < 16 {
				return out
			}
			size, hdr = binary.BigEndian.Uint64(b[8:]), 16
		}
		if size < hdr || size > uint64(len(b)) {
			return out
		}
		out = append(out, mp4Box{typ: typ, body: b[hdr:size]})
		b = b[size:]
	}
	return out
}

// mp4Child returns the first child of type typ along a path of types.
func mp4Child(b []byte, path ...string) ([]byte, bool) {
	for _, p := range path {
		found := false
		for _, c := range mp4Children(b) {
			if c.typ == p {
				b, found = c.body, true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return b, true
}

// fullBoxTimes reads a version-0 or -1 header's timescale and duration (mvhd, mdhd).
func fullBoxTimes(b []byte) (scale uint32, dur uint64, ok bool) {
	if len(b) < 1 {
		return 0, 0, false
	}
	if b[0] == 1 {
		if len(b) < 32 {
			return 0, 0, false
		}
		return binary.BigEndian.Uint32(b[20:]), binary.BigEndian.Uint64(b[24:]), true
	}
	if len(b) < 20 {
		return 0, 0, false
	}
	return binary.BigEndian.Uint32(b[12:]), uint64(binary.BigEndian.Uint32(b[16:])), true
}

func scaledDuration(v uint64, scale uint32) time.Duration {
	if scale == 0 {
		return 0
	}
	sec := v / uint64(scale)
	rem := v % uint64(scale)
	if sec > uint64(1<<63-1)/uint64(time.Second) {
		return 0
	}
	return time.Duration(sec)*time.Second + time.Duration(rem*uint64(time.Second)/uint64(scale))
}

// parseMoov reads the first sound track and the metadata of a moov box.
func parseMoov(moov []byte) (Measurement, error) {
	var m Measurement
	mvhd, _ := mp4Child(moov, "mvhd")
	movieScale, _, _ := fullBoxTimes(mvhd)
	found := false
	for _, c := range mp4Children(moov) {
		if c.typ != "trak" {
			continue
		}
		hdlr, ok := mp4Child(c.body, "mdia", "hdlr")
		if !ok || len(hdlr) < 12 || string(hdlr[8:12]) != "soun" {
			continue
		}
		mdhd, _ := mp4Child(c.body, "mdia", "mdhd")
		scale, dur, ok := fullBoxTimes(mdhd)
		if !ok || scale == 0 {
			return m, fmt.Errorf("%w: MP4 sound track without a media header", ErrMalformed)
		}
		m.Duration = scaledDuration(dur, scale)
		if elst, ok := mp4Child(c.body, "edts", "elst"); ok && movieScale > 0 {
			if d, ok := editDuration(elst); ok {
				m.Duration = scaledDuration(d, movieScale)
			}
		}
		stbl, _ := mp4Child(c.body, "mdia", "minf", "stbl")
		stsd, ok := mp4Child(stbl, "stsd")
		if !ok || len(stsd) < 8 {
			return m, fmt.Errorf("%w: MP4 sound track without sample descriptions", ErrMalformed)
		}
		entries := mp4Children(stsd[8:])
		if len(entries) == 0 || len(entries[0].body) < 28 {
			return m, fmt.Errorf("%w: MP4 sound track with a bad sample description", ErrMalformed)
		}
		e := entries[0]
		m.Channels = int(binary.BigEndian.Uint16(e.body[16:]))
		m.SampleRate = int(binary.BigEndian.Uint32(e.body[24:]) >> 16)
		m.CodecName = mp4Codec(e)
		// The AudioSpecificConfig is the truth for AAC; stsd often says 2 channels regardless.
		if asc, ok := esdsConfig(e); ok {
			if ch, rate, ok := aacConfig(asc); ok {
				if ch > 0 {
					m.Channels = ch
				}
				if rate > 0 {
					m.SampleRate = rate
				}
			}
		}
		if stsz, ok := mp4Child(stbl, "stsz"); ok && dur > 0 {
			if total, ok := stszTotal(stsz); ok {
				m.BitRate = int64(float64(total) * 8 * float64(scale) / float64(dur))
			}
		}
		found = true
		break
	}
	if !found {
		return m, fmt.Errorf("%w: MP4 file without a sound track", ErrUnsupportedCodec)
	}
	if m.SampleRate <= 0 {
		m.SampleRate = 0
	}
	if m.Duration > 0 && m.SampleRate > 0 {
		m.Frames = int64(m.Duration.Seconds()*float64(m.SampleRate) + 0.5)
	}
	m.Tags, m.Cover = mp4Tags(moov)
	m.Tags.Chapters = sortChapters(m.Tags.Chapters, m.Duration)
	return m, nil
}

// editDuration sums the non-empty segments of an elst box, in the movie's timescale.
func editDuration(b []byte) (uint64, bool) {
	if len(b) < 8 {
		return 0, false
	}
	v1 := b[0] == 1
	n := int(binary.BigEndian.Uint32(b[4:]))
	b = b[8:]
	var total uint64
	found := false
	for range n {
		if v1 {
			if len(b) < 20 {
				break
			}
			d, mt := binary.BigEndian.Uint64(b), int64(binary.BigEndian.Uint64(b[8:]))
			if mt >= 0 {
				total += d
				found = true
			}
			b = b[20:]
		} else {
			if len(b) < 12 {
				break
			}
			d, mt := binary.BigEndian.Uint32(b), int32(binary.BigEndian.Uint32(b[4:]))
			if mt >= 0 {
				total += uint64(d)
				found = true
			}
			b = b[12:]
		}
	}
	return total, found && total > 0
}

// mp4Codec names a sample entry's codec as ffprobe does.
func mp4Codec(e mp4Box) string {
	switch e.typ {
	case "mp4a":
		// The esds object type says which MPEG audio codec it is.
		if esds, ok := mp4Child(e.body[28:], "esds"); ok {
			if ot, ok := esdsObjectType(esds); ok {
				switch ot {
				case 0x40, 0x66, 0x67, 0x68:
					return "aac"
				case 0x69, 0x6B:
					return "mp3"
				}
				return fmt.Sprintf("mp4a object type 0x%02x", ot)
			}
		}
		return "aac"
	case "alac":
		return "alac"
	case "Opus":
		return "opus"
	case "fLaC":
		return "flac"
	case "ac-3":
		return "ac3"
	case "ec-3":
		return "eac3"
	}
	return e.typ
}

// esdsConfig returns the DecoderSpecificInfo of an mp4a entry's esds box.
func esdsConfig(e mp4Box) ([]byte, bool) {
	if e.typ != "mp4a" || len(e.body) < 28 {
		return nil, false
	}
	esds, ok := mp4Child(e.body[28:], "esds")
	if !ok {
		return nil, false
	}
	_, dsi, ok := esdsDescriptors(esds)
	return dsi, ok && len(dsi) >= 2
}

var aacRates = [...]int{96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350}

// aacConfig reads channels and rate from an AudioSpecificConfig.
func aacConfig(b []byte) (channels, rate int, ok bool) {
	v := uint64(0)
	for i := range min(len(b), 8) {
		v |= uint64(b[i]) << (56 - 8*i)
	}
	aot := int(v >> 59)
	v <<= 5
	if aot == 31 {
		v <<= 6
	}
	fi := int(v >> 60)
	v <<= 4
	if fi == 15 {
		rate = int(v >> 40)
		v <<= 24
	} else if fi < len(aacRates) {
		rate = aacRates[fi]
	}
	channels = int(v >> 60)
	if channels == 7 {
		channels = 8
	} else if channels > 7 {
		channels = 0
	}
	return channels, rate, true
}

// esdsObjectType finds the object type of an esds box's DecoderConfigDescriptor.
func esdsObjectType(b []byte) (byte, bool) {
	ot, _, ok := esdsDescriptors(b)
	return ot, ok
}

// esdsDescriptors walks an esds box's descriptors for the object type and the
// DecoderSpecificInfo.
func esdsDescriptors(b []byte) (objectType byte, dsi []byte, ok bool) {
	if len(b) < 4 {
		return 0, nil, false
	}
	b = b[4:] // version and flags
	for len(b) >= 2 {
		tag := b[0]
		i := 1
		n := 0
		for ; i < len(b) && i <= 4; i++ {
			n = n<<7 | int(b[i]&0x7F)
			if b[i]&0x80 == 0 {
				i++
				break
			}
		}
		body := b[i:]
		switch tag {
		case 3: // ES_Descriptor: ES_ID, flags, then optional fields
			if len(body) < 3 {
				return objectType, dsi, ok
			}
			flags := body[2]
			off := 3
			if flags&0x80 != 0 {
				off += 2
			}
			if flags&0x40 != 0 && off < len(body) {
				off += 1 + int(body[off])
			}
			if flags&0x20 != 0 {
				off += 2
			}
			if off > len(body) {
				return objectType, dsi, ok
			}
			b = body[off:]
		case 4: // DecoderConfigDescriptor, whose children follow its 13 bytes
			if len(body) < 13 {
				return objectType, dsi, ok
			}
			objectType, ok = body[0], true
			b = body[13:min(n, len(body))]
		case 5:
			return objectType, body[:min(n, len(body))], ok
		default:
			if n > len(body) {
				return objectType, dsi, ok
			}
			b = body[n:]
		}
	}
	return objectType, dsi, ok
}

// stszTotal sums a stsz box's sample sizes.
func stszTotal(b []byte) (uint64, bool) {
	if len(b) < 12 {
		return 0, false
	}
	size := uint64(binary.BigEndian.Uint32(b[4:]))
	count := uint64(binary.BigEndian.Uint32(b[8:]))
	if size != 0 {
		return size * count, true
	}
	b = b[12:]
	if uint64(len(b)) < 4*count {
		return 0, false
	}
	var total uint64
	for i := range count {
		total += uint64(binary.BigEndian.Uint32(b[4*i:]))
	}
	return total, true
}

// mp4Tags reads iTunes-style ilst items and Nero chapters from moov/udta.
func mp4Tags(moov []byte) (Tags, *Cover) {
	var t Tags
	var cover *Cover
	udta, ok := mp4Child(moov, "udta")
	if !ok {
		return t, nil
	}
	if meta, ok := mp4Child(udta, "meta"); ok {
		// MP4's meta is a full box; QuickTime's is not.
		if len(meta) >= 4 && binary.BigEndian.Uint32(meta) == 0 {
			meta = meta[4:]
		}
		ilst, _ := mp4Child(meta, "ilst")
		for _, item := range mp4Children(ilst) {
			data, ok := mp4Child(item.body, "data")
			if !ok || len(data) < 8 {
				continue
			}
			kind := binary.BigEndian.Uint32(data) & 0xFFFFFF
			val := data[8:]
			switch item.typ {
			case "\xa9nam":
				t.Title = cleanText(string(val))
			case "\xa9ART":
				t.Artist = cleanText(string(val))
			case "\xa9alb":
				t.Album = cleanText(string(val))
			case "\xa9day":
				t.Year = cleanText(string(val))
			case "cprt", "\xa9cpy":
				t.Copyright = cleanText(string(val))
			case "\xa9cmt", "desc":
				t.addComment(string(val))
			case "trkn":
				if len(val) >= 4 {
					t.Track = int(binary.BigEndian.Uint16(val[2:]))
				}
			case "covr":
				if cover != nil {
					continue
				}
				mime := ""
				switch kind {
				case 13:
					mime = "image/jpeg"
				case 14:
					mime = "image/png"
				}
				cover = newCover(val, mime)
			}
		}
	}
	if chpl, ok := mp4Child(udta, "chpl"); ok {
		t.Chapters = neroChapters(chpl)
	}
	return t, cover
}

// neroChapters reads a Nero chpl box: starts in 100 ns units and titles.
func neroChapters(b []byte) []Chapter {
	if len(b) < 5 {
		return nil
	}
	p := 4
	if b[0] != 0 {
		p += 4
	}
	if p >= len(b) {
		return nil
	}
	n := int(b[p])
	p++
	var out []Chapter
	for range n {
		if p+9 > len(b) {
			break
		}
		start := binary.BigEndian.Uint64(b[p:])
		l := int(b[p+8])
		p += 9
		if p+l > len(b) || start > uint64(1<<62)/100 {
			break
		}
		out = append(out, Chapter{Start: time.Duration(start * 100), Title: cleanText(string(b[p : p+l]))})
		p += l
	}
	return out
}
