package httpmw

import (
	"net/http"
	"strings"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// PathID is the path parameter name of the route r matched, read by the id rule
// (core.CanonicalID) once for every surface: the value as the request sent it when that is an id
// in its canonical form; core.NoID's text when it is an id written otherwise, upper-case or
// percent-encoded, which names nothing, so that the request is answered as for any id the fake
// does not hold; else (text that is no id at all) the value, as before the rule.
func PathID(r *http.Request, name string) string {
	sent := sentValue(r, name)
	if core.IsCanonicalID(sent) {
		return sent
	}
	v := r.PathValue(name)
	if core.IsCanonicalID(strings.ToLower(v)) {
		return core.NoID.String()
	}
	return v
}

// sentValue is the path parameter name of the route r matched as the request sent it: the
// segment of the escaped path, so that an id written with percent-escapes is not taken for the
// id it decodes to.
func sentValue(r *http.Request, name string) string {
	if r.URL.RawPath == "" {
		// Nothing in the path was escaped: the decoded value is the one sent.
		return r.PathValue(name)
	}
	_, pattern, found := strings.Cut(r.Pattern, " ")
	if !found {
		pattern = r.Pattern
	}
	if i := strings.IndexByte(pattern, '/'); i > 0 {
		pattern = pattern[i:] // a host before the path
	}
	path := r.URL.EscapedPath()
	for pattern != "" && path != "" {
		var pseg, seg string
		pseg, pattern, _ = strings.Cut(pattern, "/")
		seg, path, _ = strings.Cut(path, "/")
		if pseg == "{"+name+"}" {
			return seg
		}
	}
	return r.PathValue(name)
}
