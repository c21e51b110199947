// Package graphiql serves the fake's GraphQL explorer: GraphiQL, bundled from the official npm
// package by build.sh into dist/ and embedded, so that the explorer works with no internet.
// The page posts to the same origin's /api/graphql with the API key typed into its field, or
// with the browser's session cookie.
package graphiql

import (
	"bytes"
	"compress/gzip"
	"embed"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
)

//go:embed page.html
var page []byte

//go:embed dist/explorer.js dist/explorer.css dist/THIRD_PARTY_LICENSES.txt
var dist embed.FS

// AssetsPrefix is the path under which the page loads its script, styles and licences.
const AssetsPrefix = "/api/graphql/assets/"

// Page returns the explorer's HTML.
func Page() []byte { return append([]byte(nil), page...) }

var contentTypes = map[string]string{
	".js":  "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
	".txt": "text/plain; charset=utf-8",
}

// asset is one file of dist/ with its gzip form, made once on first use.
type asset struct {
	plain, gzipped []byte
	contentType    string
}

// Assets serves dist/ under AssetsPrefix, gzip-compressed for browsers that accept it (the
// script is 1.2 MB plain, about 0.4 MB compressed) and cacheable, since the bytes change only
// with the binary.
func Assets() http.Handler {
	var once sync.Once
	assets := map[string]asset{}
	load := func() {
		for _, name := range []string{"explorer.js", "explorer.css", "THIRD_PARTY_LICENSES.txt"} {
			plain, err := dist.ReadFile("dist/" + name)
			if err != nil {
				continue // embedded at build time: cannot happen
			}
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
			_, _ = zw.Write(plain)
			_ = zw.Close()
			assets[name] = asset{plain: plain, gzipped: buf.Bytes(), contentType: contentTypes[path.Ext(name)]}
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(load)
		a, ok := assets[strings.TrimPrefix(r.URL.Path, AssetsPrefix)]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", a.contentType)
		h.Set("Cache-Control", "public, max-age=3600")
		h.Add("Vary", "Accept-Encoding")
		body := a.plain
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			h.Set("Content-Encoding", "gzip")
			body = a.gzipped
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		if r.Method != http.MethodHead {
			_, _ = w.Write(body)
		}
	})
}

// acceptsGzip reports whether an Accept-Encoding header lists gzip without refusing it (q=0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") {
			q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}
