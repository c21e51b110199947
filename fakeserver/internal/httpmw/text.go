package httpmw

import (
	"strings"
	"unicode/utf8"
)

// CutText is a copy of the first n bytes at most of s, cut at a character boundary, and whether
// anything was cut. It is always a copy: a request's method, path and query are substrings of
// its whole request line, which an entry must not keep alive (but for a short line, see
// Record).
func CutText(s string, n int) (string, bool) {
	if len(s) <= n {
		return strings.Clone(s), false
	}
	cut := n
	for cut > 0 && cut > n-utf8.UTFMax && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.Clone(s[:cut]), true
}
