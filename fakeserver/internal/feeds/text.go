package feeds

import (
	"encoding/base64"
	"html"
	"strings"
)

const (
	cdataStart = "<![CDATA["
	cdataEnd   = "]]>"
)

// textOf turns an element's inner XML into text: trimmed, CDATA sections
// taken verbatim and everything else entity-decoded (HTML entities such as
// &nbsp; included). Markup outside CDATA is kept as written.
func textOf(inner string) string {
	s := strings.TrimSpace(inner)
	if strings.Contains(s, cdataStart) {
		return stripCDATA(s)
	}
	return decodeEntities(s)
}

// stripCDATA unwraps the CDATA sections of s and entity-decodes the text
// around them. An unterminated section is kept as written, marker included.
func stripCDATA(s string) string {
	var b strings.Builder
	for s != "" {
		start := strings.Index(s, cdataStart)
		if start < 0 {
			b.WriteString(decodeEntities(s))
			break
		}
		b.WriteString(decodeEntities(s[:start]))
		end := strings.Index(s[start+len(cdataStart):], cdataEnd)
		if end < 0 {
			b.WriteString(decodeEntities(s[start:]))
			break
		}
		end += start + len(cdataStart)
		b.WriteString(s[start+len(cdataStart) : end])
		s = s[end+len(cdataEnd):]
	}
	return b.String()
}

// maxEntityLen bounds how far past an '&' its ';' may be: the longest HTML
// entity name is 31 bytes, and the bound keeps the scan linear.
const maxEntityLen = 64

// decodeEntities decodes the XML and HTML character references in s. An '&'
// that does not start a reference ending in ';' stays literal, so URLs with
// query strings like "?a=1&copy=2" are kept.
func decodeEntities(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	var b strings.Builder
	for s != "" {
		i := strings.IndexByte(s, '&')
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i:]
		window := s
		if len(window) > maxEntityLen {
			window = window[:maxEntityLen]
		}
		end := strings.IndexByte(window, ';')
		if end < 0 && len(window) == len(s) {
			b.WriteString(s)
			break
		}
		if end < 0 || strings.ContainsAny(s[1:end], " \t\r\n") {
			b.WriteByte('&')
			s = s[1:]
			continue
		}
		span := s[:end+1]
		dec := html.UnescapeString(span)
		// html.UnescapeString also decodes legacy references without a
		// ';' ("&copy=2;"): accept only a decode that used the ';'.
		if dec == html.UnescapeString(span[:len(span)-1])+";" {
			b.WriteByte('&')
			s = s[1:]
			continue
		}
		b.WriteString(dec)
		s = s[end+1:]
	}
	return b.String()
}

// atomText reads an Atom text construct (title, id, logo, ...) from its inner
// XML and type and mode attributes: plain text is entity-decoded, "html" is
// entity-decoded (its markup is kept), "xhtml" keeps its markup without the
// wrapping div, base64 and binary media types are decoded.
func atomText(inner, typ, mode string) string {
	s := strings.TrimSpace(inner)
	typ, mode = strings.ToLower(typ), strings.ToLower(mode)
	switch {
	case strings.Contains(s, cdataStart):
		return stripCDATA(s)
	case typ == "text" || strings.HasPrefix(typ, "text/") || (typ == "" && mode == ""):
		return decodeEntities(s)
	case strings.Contains(typ, "xhtml"):
		return stripWrappingDiv(s)
	case typ == "html":
		return decodeEntities(s)
	case mode == "base64" || isBinaryMediaType(typ):
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			return string(b)
		}
	}
	return s
}

// stripWrappingDiv returns the content of s when s is one <div> element,
// else s.
func stripWrappingDiv(s string) string {
	if !strings.HasPrefix(s, "<div") || !strings.HasSuffix(s, "</div>") {
		return s
	}
	open := strings.IndexByte(s, '>')
	if open < 0 || open > len(s)-len("</div>") {
		return s
	}
	inner := s[open+1 : len(s)-len("</div>")]
	if strings.Contains(inner, "<div") || strings.Contains(inner, "</div") {
		return s
	}
	return strings.TrimSpace(inner)
}

func isBinaryMediaType(t string) bool {
	if t == "" || strings.HasPrefix(t, "text/") || strings.Contains(t, "xml") {
		return false
	}
	if strings.HasPrefix(t, "image/") || strings.HasPrefix(t, "audio/") || strings.HasPrefix(t, "video/") {
		return true
	}
	switch t {
	case "application/octet-stream", "application/pdf", "application/zip",
		"application/gzip", "application/x-gzip", "application/ogg":
		return true
	}
	return false
}
