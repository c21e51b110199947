package fakeserver

import (
	"bytes"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// seriesCover reads the only series' coverImageUrl over GraphQL.
func seriesCover(t *testing.T, srv *Server, key string) *string {
	t.Helper()
	var got struct {
		SeriesList []struct{ CoverImageURL *string }
	}
	gqlData(t, srv, key, `{ seriesList { coverImageUrl } }`, nil, &got)
	if len(got.SeriesList) != 1 {
		t.Fatalf("series %+v, want one", got)
	}
	return got.SeriesList[0].CoverImageURL
}

// TestHostedFeedCoverImage: a hosted feed names a cover the fake serves without credentials,
// and GraphQL returns it as the show's coverImageUrl.
func TestHostedFeedCoverImage(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	_, feedURL := feedReport(t, srv, seed.APIKey, "Covered", HostedEpisode{})
	want := strings.TrimSuffix(feedURL, "feed.rss") + "cover.png"
	got := seriesCover(t, srv, seed.APIKey)
	if got == nil || *got != want {
		t.Fatalf("coverImageUrl = %v, want %s", got, want)
	}
	status, h, body := call(t, srv, "GET", strings.TrimPrefix(want, srv.URL()), nil, "")
	if status != http.StatusOK || h.Get("Content-Type") != "image/png" {
		t.Fatalf("GET the cover: %d %s", status, h.Get("Content-Type"))
	}
	img, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1400 || b.Dy() != 1400 {
		t.Errorf("cover is %v, want 1400×1400", b)
	}
	if status, _, _ := call(t, srv, "GET", "/_feeds/00000000-0000-0000-0000-000000000000/cover.png", nil, ""); status != http.StatusNotFound {
		t.Errorf("cover of an unknown feed: %d, want 404", status)
	}
}

// TestFeedCoverImageURL: the channel's itunes:image wins over its RSS image; a feed without
// artwork, or with a URL that is not absolute http(s), gives null; a feed check takes in a
// changed image.
func TestFeedCoverImageURL(t *testing.T) {
	t.Parallel()
	const itunes = `<itunes:image href="https://cdn.test/itunes.jpg"/>`
	const rss = `<image><url>https://cdn.test/rss.png</url><title>t</title><link>https://show.test/</link></image>`
	tests := []struct {
		name, channel string
		want          string // "" for null
	}{
		{"itunes image", itunes, "https://cdn.test/itunes.jpg"},
		{"rss image", rss, "https://cdn.test/rss.png"},
		{"both", rss + itunes, "https://cdn.test/itunes.jpg"},
		{"none", "", ""},
		{"relative", `<itunes:image href="/art.jpg"/>`, ""},
		{"not http", `<itunes:image href="ftp://cdn.test/art.jpg"/>`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			channel := tt.channel
			feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				w.Header().Set("Content-Type", "application/rss+xml")
				fmt.Fprintf(w, `<?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Show</title>%s<item><title>One</title><guid>1</guid><enclosure url="http://%s/one.mp3" type="audio/mpeg" length="1"/></item></channel></rss>`, channel, r.Host)
			}))
			t.Cleanup(feed.Close)
			srv, seed := NewTest(t)
			if status, body := createFromFeed(t, srv, seed.APIKey, `{"feed_url":"`+feed.URL+`/feed.rss"}`); status != http.StatusCreated {
				t.Fatalf("create: %d %s", status, body)
			}
			got := seriesCover(t, srv, seed.APIKey)
			if (got == nil) != (tt.want == "") || (got != nil && *got != tt.want) {
				t.Fatalf("coverImageUrl = %v, want %q", got, tt.want)
			}
			mu.Lock()
			channel = `<itunes:image href="https://cdn.test/new.jpg"/>`
			mu.Unlock()
			advance(t, srv, FeedCheckPeriod+time.Minute)
			if got := seriesCover(t, srv, seed.APIKey); got == nil || *got != "https://cdn.test/new.jpg" {
				t.Fatalf("after a feed check coverImageUrl = %v, want the new image", got)
			}
		})
	}
}
