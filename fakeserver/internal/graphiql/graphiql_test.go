package graphiql

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

func TestAssetsNegotiateGzip(t *testing.T) {
	t.Parallel()
	h := Assets()
	tests := []struct {
		name, path, acceptEncoding string
		status                     int
		gzipped                    bool
	}{
		{"script, gzip accepted", "explorer.js", "gzip, deflate, br", 200, true},
		{"script, gzip with a weight", "explorer.js", "br;q=1.0, gzip;q=0.5", 200, true},
		{"script, gzip refused", "explorer.js", "gzip;q=0, identity", 200, false},
		{"styles, no header", "explorer.css", "", 200, false},
		{"licences", "THIRD_PARTY_LICENSES.txt", "gzip", 200, true},
		{"unknown file", "index.html", "gzip", 404, false},
		{"no directory walk", "../page.html", "", 404, false},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(http.MethodGet, AssetsPrefix+tt.path, nil)
		if tt.acceptEncoding != "" {
			req.Header.Set("Accept-Encoding", tt.acceptEncoding)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tt.status {
			t.Errorf("%s: status %d, want %d", tt.name, rec.Code, tt.status)
			continue
		}
		if tt.status != 200 {
			continue
		}
		if got := rec.Header().Get("Content-Encoding") == "gzip"; got != tt.gzipped {
			t.Errorf("%s: gzipped %v, want %v", tt.name, got, tt.gzipped)
		}
		if n, _ := strconv.Atoi(rec.Header().Get("Content-Length")); n != rec.Body.Len() {
			t.Errorf("%s: Content-Length %d for %d bytes", tt.name, n, rec.Body.Len())
		}
		var body io.Reader = rec.Body
		if tt.gzipped {
			zr, err := gzip.NewReader(rec.Body)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			body = zr
		}
		plain, err := io.ReadAll(body)
		want, _ := dist.ReadFile("dist/" + tt.path)
		if err != nil || string(plain) != string(want) {
			t.Errorf("%s: served %d bytes (%v), want the %d embedded", tt.name, len(plain), err, len(want))
		}
	}
}

func TestPageLoadsOnlyItsOwnAssets(t *testing.T) {
	t.Parallel()
	p := string(Page())
	for _, ref := range []string{`href="/api/graphql/assets/explorer.css"`, `src="/api/graphql/assets/explorer.js"`, `id="key"`, `id="graphiql"`} {
		if !strings.Contains(p, ref) {
			t.Errorf("page lacks %s", ref)
		}
	}
	for _, external := range []string{"http:", "https:", `src="//`, `href="//`} {
		if strings.Contains(p, external) {
			t.Errorf("page refers to %s…: it must work offline", external)
		}
	}
}
