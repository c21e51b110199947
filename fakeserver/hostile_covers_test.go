package fakeserver

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// TestCoversCannotScript: a cover is served only as the PNG or JPEG its bytes are, whatever the
// file declared, with nosniff and a script-free CSP, at a URL that is not the report id.
func TestCoversCannotScript(t *testing.T) {
	t.Parallel()
	var pngPic, jpegPic bytes.Buffer
	if err := png.Encode(&pngPic, image.NewRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&jpegPic, image.NewRGBA(image.Rect(0, 0, 4, 4)), nil); err != nil {
		t.Fatal(err)
	}
	covers := map[string]*core.Cover{
		"html":           {Data: []byte("<html><script>alert(document.cookie)</script></html>"), MIME: "text/html"},
		"svg":            {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), MIME: "image/svg+xml"},
		"svg as png":     {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), MIME: "image/png"},
		"gif":            {Data: []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), MIME: "image/gif"},
		"png as html":    {Data: pngPic.Bytes(), MIME: "text/html"},
		"jpeg":           {Data: jpegPic.Bytes(), MIME: "image/jpeg"},
		"png undeclared": {Data: pngPic.Bytes()},
	}
	analyzer := func(_ context.Context, r io.Reader, _ string) (core.Measurement, error) {
		b, _ := io.ReadAll(r)
		m := core.Measurement{Duration: 90 * time.Second, Size: int64(len(b)), Channels: 2, SampleRate: 44100, IntegratedLUFS: -16, TruePeakDB: -2}
		m.Tags = &core.Tags{Title: "t", Cover: covers[string(b)]}
		return m, nil
	}
	srv, seed := NewTest(t, WithAnalysisPace(0), withAnalyzer(analyzer), WithoutRateLimits())
	ids := map[string]string{}
	for name := range covers {
		ids[name] = uploadReport(t, srv, seed.APIKey, []byte(name))
	}
	if _, err := srv.Advance(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	for name, cv := range covers {
		t.Run(name, func(t *testing.T) {
			id := ids[name]
			_, _, body := call(t, srv, "GET", "/api/rest/v1/reports/"+id, bearer(seed.APIKey), "")
			var cover struct {
				URL string `json:"url"`
			}
			if err := json.Unmarshal(rawField(t, body, "cover_image"), &cover); err != nil || cover.URL == "" {
				t.Fatalf("cover_image of %s", body)
			}
			if strings.Contains(cover.URL, id) || !strings.HasPrefix(cover.URL, srv.URL()+"/_covers/") {
				t.Fatalf("cover URL %s carries the report id %s", cover.URL, id)
			}
			if status, _, _ := call(t, srv, "GET", "/_covers/"+id, nil, ""); status != http.StatusNotFound {
				t.Fatalf("the cover is still served at the report id: %d", status)
			}
			status, h, got := call(t, srv, "GET", strings.TrimPrefix(cover.URL, srv.URL()), nil, "")
			sniffed := http.DetectContentType(cv.Data)
			want := sniffed == "image/png" || sniffed == "image/jpeg"
			if h.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("no nosniff: %v", h)
			}
			if !want {
				if status != http.StatusNotFound {
					t.Fatalf("a %s cover declared %q was served: %d %s", sniffed, cv.MIME, status, h.Get("Content-Type"))
				}
				return
			}
			if status != 200 || h.Get("Content-Type") != sniffed || !bytes.Equal(got, cv.Data) {
				t.Fatalf("GET cover: %d %q, %d bytes", status, h.Get("Content-Type"), len(got))
			}
			if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "sandbox") {
				t.Fatalf("CSP %q does not forbid scripts", csp)
			}
		})
	}
}

// TestEveryServedFileIsNosniff reviews the headers of each kind of file the fake serves.
func TestEveryServedFileIsNosniff(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t, WithoutRateLimits())
	status, _, body := call(t, srv, "POST", "/_fake/feeds", jsonHeader(bearer(srv.AdminToken())),
		`{"title":"T","episodes":[{"title":"E","duration_s":1,"loudness_lufs":-16}]}`)
	if status != 201 {
		t.Fatalf("hosted feed: %d %s", status, body)
	}
	var feed struct {
		FeedURL string `json:"feed_url"`
	}
	if err := json.Unmarshal(body, &feed); err != nil {
		t.Fatalf("hosted feed answer %s", body)
	}
	_, _, rss := call(t, srv, "GET", strings.TrimPrefix(feed.FeedURL, srv.URL()), nil, "")
	_, after, _ := strings.Cut(string(rss), `<enclosure url="`)
	audioURL, _, _ := strings.Cut(after, `"`)
	if audioURL == "" {
		t.Fatalf("no enclosure in %s", rss)
	}
	feedBase := strings.TrimSuffix(strings.TrimPrefix(feed.FeedURL, srv.URL()), "/feed.rss")
	for _, tc := range []struct {
		path string
		csp  bool // a file, not a page: the script-free CSP applies
	}{
		{strings.TrimPrefix(feed.FeedURL, srv.URL()), true},
		{strings.TrimPrefix(audioURL, srv.URL()), true},
		{feedBase + "/cover.png", true},
		{"/api/rest/v1/docs", false},
		{"/api/rest/v1/docs/assets/swagger-ui-bundle.js", false},
		{"/api/rest/v1/openapi.json", false},
		{"/api/graphql", false},
		{"/schema.graphql", false},
		{"/nowhere", false},
	} {
		status, h, _ := call(t, srv, "GET", tc.path, nil, "")
		if status >= 500 || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d, X-Content-Type-Options %q", tc.path, status, h.Get("X-Content-Type-Options"))
		}
		if csp := h.Get("Content-Security-Policy"); tc.csp && !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s: CSP %q", tc.path, csp)
		}
	}
}
