// Package mp4desc reads an MP4 sound track's sample description the same way for the audio
// engine (internal/audio) and the light prober the SDK's client links (internal/probe): the
// codec's name as ffprobe gives it, and the esds box's descriptors (the MPEG object type and
// the DecoderSpecificInfo, which for AAC is the AudioSpecificConfig). It imports nothing
// heavier than the standard library, so that the prober stays small.
package mp4desc

import "fmt"

// Codec names the codec of a sound sample entry of type entryType as ffprobe's codec_name
// does. esds is the body of the entry's esds box, nil when it has none: for "mp4a" its object
// type tells AAC from MP3. An entry type it does not know is returned as it is.
func Codec(entryType string, esds []byte) string {
	switch entryType {
	case "mp4a":
		if ot, _, ok := ESDS(esds); ok {
			switch ot {
			case 0x40, 0x66, 0x67, 0x68:
				return "aac"
			case 0x69, 0x6B:
				return "mp3"
			}
			return fmt.Sprintf("mp4a object type 0x%02x", ot)
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
	return entryType
}

// ESDS walks the descriptors of an esds box's body (version and flags first) for the
// DecoderConfigDescriptor's object type and the DecoderSpecificInfo. ok reports that the
// object type was found; dsi is nil when there is none. A truncated body yields what was read
// before the cut.
func ESDS(b []byte) (objectType byte, dsi []byte, ok bool) {
	if len(b) < 4 {
		return 0, nil, false
	}
	b = b[4:] // version and flags
	for len(b) >= 2 {
		tag := b[0]
		// The length: one to four bytes of seven bits each, the high bit set on all but the last.
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
			if len(body) < 13 || n < 13 {
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
