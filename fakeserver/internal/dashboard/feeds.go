package dashboard

import (
	"net/http"
	"strings"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/hosted"
)

// The hosted feeds page: every feed the fake hosts, each episode with a player.

// feedsView is the hosted feeds page.
type feedsView struct {
	Feeds []uiFeed
}

type uiFeed struct {
	hosted.FeedListing
	// FeedPath is the feed's path on this fake, which the page links to.
	FeedPath string
	Episodes []uiEpisode
}

type uiEpisode struct {
	hosted.EpisodeListing
	// AudioPath is the audio's path on this fake, which the player loads (same origin).
	AudioPath string
	Duration  time.Duration
}

// sameOriginPath is u's path when u is on this fake, so that the page's player and links
// stay on the page's origin whatever host name the browser used.
func (ui *UI) sameOriginPath(u string) string {
	if p, ok := strings.CutPrefix(u, ui.deps.URL()); ok && strings.HasPrefix(p, "/") {
		return p
	}
	return u
}

// ServeFeeds is the hosted feeds page.
func (ui *UI) ServeFeeds(w http.ResponseWriter, r *http.Request) {
	var v feedsView
	for _, f := range ui.deps.Host.Feeds() {
		uf := uiFeed{FeedListing: f, FeedPath: ui.sameOriginPath(f.FeedURL)}
		for _, e := range f.Episodes {
			uf.Episodes = append(uf.Episodes, uiEpisode{EpisodeListing: e, AudioPath: ui.sameOriginPath(e.AudioURL),
				Duration: time.Duration(e.DurationS * float64(time.Second))})
		}
		v.Feeds = append(v.Feeds, uf)
	}
	ui.Render(w, r, http.StatusOK, "feeds", Page{Title: "Hosted feeds", Data: v})
}
