package feeds

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// UnsupportedCharsetError is the underlying error ([Error.Err]) of a feed
// that declares a character encoding Parse does not read. Parse reads UTF-8,
// UTF-16 with a byte order mark, and the single-byte encodings US-ASCII,
// ISO-8859-1 and windows-1252 (all three decoded as windows-1252, as web
// browsers do).
type UnsupportedCharsetError struct {
	// Charset is the encoding name as the XML declaration writes it.
	Charset string
}

// Error says which declared encoding is not supported.
func (e *UnsupportedCharsetError) Error() string {
	return fmt.Sprintf("the feed's character encoding %q is not supported (only UTF-8, UTF-16 with a byte order mark, US-ASCII, ISO-8859-1 and windows-1252 are)", e.Charset)
}

// charsetReader opens the encodings an XML declaration may name. utf16 is
// set when the whole input was already converted from UTF-16, so that the
// declaration's "UTF-16" needs no further conversion.
type charsetReader struct {
	utf16 bool
}

// windows1252Labels are the WHATWG labels of windows-1252, which is what
// browsers (and gofeed) decode US-ASCII and ISO-8859-1 documents as.
var windows1252Labels = map[string]bool{
	"ansi_x3.4-1968": true, "ascii": true, "cp1252": true, "cp819": true, "csisolatin1": true,
	"ibm819": true, "iso-8859-1": true, "iso-ir-100": true, "iso8859-1": true, "iso88591": true,
	"iso_8859-1": true, "iso_8859-1:1987": true, "l1": true, "latin1": true, "us-ascii": true,
	"windows-1252": true, "x-cp1252": true,
}

var utf8Labels = map[string]bool{"utf-8": true, "utf8": true, "unicode-1-1-utf-8": true}

var utf16Labels = map[string]bool{
	"utf-16": true, "utf-16le": true, "utf-16be": true, "unicode": true, "unicodefeff": true,
	"unicodefffe": true, "ucs-2": true, "iso-10646-ucs-2": true, "csunicode": true,
}

// open is the xml.Decoder's CharsetReader.
func (c *charsetReader) open(label string, r io.Reader) (io.Reader, error) {
	l := strings.ToLower(strings.TrimSpace(label))
	switch {
	case utf8Labels[l]:
		return r, nil
	case utf16Labels[l] && c.utf16:
		return r, nil
	case windows1252Labels[l]:
		return &windows1252Reader{r: r}, nil
	}
	return nil, &UnsupportedCharsetError{Charset: label}
}

// windows1252High maps the bytes 0x80 to 0x9F; the others are their own
// code points. The five unassigned bytes become U+FFFD, as x/text's
// windows-1252 (which gofeed used) decodes them.
var windows1252High = [32]rune{
	'€', utf8.RuneError, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', utf8.RuneError, 'Ž', utf8.RuneError,
	utf8.RuneError, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', utf8.RuneError, 'ž', 'Ÿ',
}

// windows1252Reader converts windows-1252 to UTF-8.
type windows1252Reader struct {
	r       io.Reader
	pending []byte // converted bytes not yet returned
	buf     []byte
}

func (w *windows1252Reader) Read(p []byte) (int, error) {
	if len(w.pending) == 0 {
		if len(p) == 0 {
			return 0, nil
		}
		// Each byte becomes at most 3 bytes of UTF-8.
		n := max(len(p)/3, 1)
		if cap(w.buf) < n {
			w.buf = make([]byte, n)
		}
		n, err := w.r.Read(w.buf[:n])
		out := w.pending[:0]
		for _, b := range w.buf[:n] {
			switch {
			case b < 0x80:
				out = append(out, b)
			case b < 0xA0:
				out = utf8.AppendRune(out, windows1252High[b-0x80])
			default:
				out = utf8.AppendRune(out, rune(b))
			}
		}
		w.pending = out
		if len(out) == 0 {
			return 0, err
		}
		if err != nil && err != io.EOF {
			k := copy(p, w.pending)
			w.pending = w.pending[k:]
			return k, err
		}
	}
	k := copy(p, w.pending)
	w.pending = w.pending[k:]
	return k, nil
}

// utf16BOM reports the byte order of a UTF-16 byte order mark at the start
// of prefix.
func utf16BOM(prefix []byte) (bigEndian, ok bool) {
	switch {
	case len(prefix) >= 2 && prefix[0] == 0xFE && prefix[1] == 0xFF:
		return true, true
	case len(prefix) >= 2 && prefix[0] == 0xFF && prefix[1] == 0xFE:
		return false, true
	}
	return false, false
}

// utf16Reader converts UTF-16 (after its byte order mark) to UTF-8; unpaired
// surrogates become U+FFFD.
type utf16Reader struct {
	r         *bufio.Reader
	bigEndian bool
	pending   []byte
	err       error
}

func newUTF16Reader(r io.Reader, bigEndian bool) *utf16Reader {
	br := bufio.NewReader(r)
	_, _ = br.Discard(2) // the byte order mark
	return &utf16Reader{r: br, bigEndian: bigEndian}
}

func (u *utf16Reader) unit() (uint16, error) {
	var b [2]byte
	if _, err := io.ReadFull(u.r, b[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			// An odd trailing byte is not a character.
			return utf8.RuneError, nil
		}
		return 0, err
	}
	if u.bigEndian {
		return uint16(b[0])<<8 | uint16(b[1]), nil
	}
	return uint16(b[1])<<8 | uint16(b[0]), nil
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.pending) < len(p) && u.err == nil {
		c, err := u.unit()
		if err != nil {
			u.err = err
			break
		}
		r := rune(c)
		if utf16.IsSurrogate(r) {
			if r < 0xDC00 {
				if c2, err := u.unit(); err == nil {
					if r2 := utf16.DecodeRune(r, rune(c2)); r2 != utf8.RuneError {
						u.pending = utf8.AppendRune(u.pending, r2)
						continue
					}
					u.pending = utf8.AppendRune(u.pending, utf8.RuneError)
					r = rune(c2)
					if utf16.IsSurrogate(r) {
						r = utf8.RuneError
					}
				} else {
					u.err = err
					r = utf8.RuneError
				}
			} else {
				r = utf8.RuneError
			}
		}
		u.pending = utf8.AppendRune(u.pending, r)
	}
	k := copy(p, u.pending)
	u.pending = u.pending[k:]
	if k == 0 && u.err != nil {
		return 0, u.err
	}
	return k, nil
}
