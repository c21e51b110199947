package audio

import (
	"bytes"
	"strings"
	"unicode/utf16"
)

// parseID3v22 reads an ID3v2.2 tag: three-character frame ids with three-byte sizes, as old
// iTunes versions and some podcast tools still write them; github.com/bogem/id3v2 reads only
// versions 3 and 4. Unsynchronisation applies to the whole tag in this version; a compressed
// tag (a flag the version defined but never specified) is skipped. Bad frames end the reading
// and keep what came before them.
func parseID3v22(b []byte) (Tags, *Cover) {
	var t Tags
	if len(b) < 10 || string(b[:3]) != "ID3" || b[3] != 2 {
		return t, nil
	}
	flags := b[5]
	size := int(b[6]&0x7f)<<21 | int(b[7]&0x7f)<<14 | int(b[8]&0x7f)<<7 | int(b[9]&0x7f)
	body := b[10:min(len(b), 10+size)]
	if flags&0x40 != 0 {
		return t, nil
	}
	if flags&0x80 != 0 {
		body = bytes.ReplaceAll(body, []byte{0xff, 0x00}, []byte{0xff})
	}
	var cover *Cover
	coverType := -1
	for len(body) >= 6 && body[0] != 0 {
		id := string(body[:3])
		n := int(body[3])<<16 | int(body[4])<<8 | int(body[5])
		if n > len(body)-6 {
			break
		}
		data := body[6 : 6+n]
		body = body[6+n:]
		switch id {
		case "TT2":
			t.Title = cleanText(id3v22Text(data))
		case "TP1":
			t.Artist = cleanText(id3v22Text(data))
		case "TAL":
			t.Album = cleanText(id3v22Text(data))
		case "TYE":
			t.Year = cleanText(id3v22Text(data))
		case "TCR":
			t.Copyright = cleanText(id3v22Text(data))
		case "TRK":
			t.Track = trackNumber(id3v22Text(data))
		case "COM":
			// Encoding, language, a short description, then the comment.
			if len(data) >= 4 {
				if _, text, ok := splitTerminated(data[4:], data[0]); ok {
					t.addComment(decodeID3Text(data[0], text))
				}
			}
		case "TXX":
			// ffmpeg writes a comment as a user text frame described "comment".
			if len(data) >= 1 {
				if desc, value, ok := splitTerminated(data[1:], data[0]); ok && strings.EqualFold(decodeID3Text(data[0], desc), "comment") {
					t.addComment(decodeID3Text(data[0], value))
				}
			}
		case "PIC":
			// Encoding, a three-letter image format, the picture type, a description, the data.
			if len(data) < 5 || (coverType == 3) {
				continue
			}
			mime := map[string]string{"JPG": "image/jpeg", "PNG": "image/png"}[strings.ToUpper(string(data[1:4]))]
			_, img, ok := splitTerminated(data[5:], data[0])
			if !ok {
				continue
			}
			// The front cover (type 3) wins over other pictures.
			if c := newCover(img, mime); c != nil && (cover == nil || data[4] == 3) {
				cover, coverType = c, int(data[4])
			}
		}
	}
	return t, cover
}

// id3v22Text decodes a text frame's body: an encoding byte, then the text.
func id3v22Text(data []byte) string {
	if len(data) < 1 {
		return ""
	}
	return decodeID3Text(data[0], data[1:])
}

// splitTerminated splits b after its first string terminator of the encoding (one NUL byte for
// ISO-8859-1, two aligned ones for UTF-16), returning the string before it and the rest.
func splitTerminated(b []byte, encoding byte) (head, rest []byte, ok bool) {
	if encoding == 1 {
		for i := 0; i+1 < len(b); i += 2 {
			if b[i] == 0 && b[i+1] == 0 {
				return b[:i], b[i+2:], true
			}
		}
		return nil, nil, false
	}
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return nil, nil, false
	}
	return b[:i], b[i+1:], true
}

// decodeID3Text decodes ID3v2.2 text: encoding 0 is ISO-8859-1, encoding 1 is UTF-16 with a
// byte-order mark (big-endian without one). Trailing NULs are dropped.
func decodeID3Text(encoding byte, b []byte) string {
	if encoding != 1 {
		r := make([]rune, 0, len(b))
		for _, c := range b {
			if c == 0 {
				break
			}
			r = append(r, rune(c))
		}
		return string(r)
	}
	little := false
	if len(b) >= 2 && (b[0] == 0xff && b[1] == 0xfe || b[0] == 0xfe && b[1] == 0xff) {
		little = b[0] == 0xff
		b = b[2:]
	}
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		v := uint16(b[i])<<8 | uint16(b[i+1])
		if little {
			v = uint16(b[i+1])<<8 | uint16(b[i])
		}
		if v == 0 {
			break
		}
		u = append(u, v)
	}
	return string(utf16.Decode(u))
}
