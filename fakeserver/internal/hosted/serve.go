package hosted

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/feeds"
)

// Handler serves the feeds, their episodes' audio and their artwork, keyless, under /_feeds/.
func (h *Host) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /_feeds/{feed}/feed.rss", h.serveFeed)
	mux.HandleFunc("GET /_feeds/{feed}/audio/{file}", h.serveAudio)
	mux.HandleFunc("GET /_feeds/{feed}/cover.png", h.serveCover)
	return mux
}

func (h *Host) feedByPath(r *http.Request) (*feed, bool) {
	id, err := uuid.Parse(r.PathValue("feed"))
	if err != nil {
		return nil, false
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	f, ok := h.feeds[id]
	return f, ok
}

func (h *Host) serveFeed(w http.ResponseWriter, r *http.Request) {
	f, ok := h.feedByPath(r)
	if !ok {
		http.NotFound(w, r)
		return
	}
	h.mu.RLock()
	if f.broken {
		h.mu.RUnlock()
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	out := feeds.Feed{
		Title: f.title, Link: h.base, Description: "A feed hosted by the podqa fake.", Explicit: f.explicit,
		ImageURL: h.base + "/_feeds/" + f.id.String() + "/cover.png",
	}
	for _, e := range f.episodes {
		out.Items = append(out.Items, feeds.Item{
			Title: e.Title, GUID: e.GUID, PublishedOn: e.Published, AudioURL: e.audioURL,
			AudioType: contentType(e.Episode), AudioLength: e.length, Duration: time.Duration(e.DurationS * float64(time.Second)),
		})
	}
	h.mu.RUnlock()
	w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
	_, _ = w.Write(feeds.Render(out))
}

func (h *Host) serveAudio(w http.ResponseWriter, r *http.Request) {
	h.mu.RLock()
	ep := h.byAudio[h.base+r.URL.Path]
	h.mu.RUnlock()
	if ep == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", contentType(ep.Episode))
	w.Header().Set("Content-Length", strconv.FormatInt(ep.length, 10))
	if r.Method == http.MethodHead {
		return // the length is known without rendering anything
	}
	if ep.FailAnalysis {
		_, _ = w.Write([]byte(failAnalysisBody))
		return
	}
	// Streamed as it is made, so an hour of audio never sits in memory. The episode's values were
	// checked when it was hosted; a failure here cuts the stream, and the analysis says so.
	out := &pacedWriter{w: w, now: time.Now}
	err := h.writeAudio(r.Context(), out, ep)
	switch {
	case errors.Is(err, errBusy) && out.written == 0:
		w.Header().Del("Content-Length")
		w.Header().Set("Retry-After", strconv.Itoa(int(BusyRetryAfter/time.Second)))
		http.Error(w, "Too many hosted episodes are being rendered; retry later.", http.StatusServiceUnavailable)
	case err != nil && r.Context().Err() == nil && !errors.Is(err, errTooSlow) && !errors.Is(err, errRenderGone):
		h.log.Debug("hosted audio download ended", "audio_url", ep.audioURL, "err", err)
	}
}

// serveCover serves a feed's artwork: the default episode cover, a plain 1400×1400 PNG.
func (h *Host) serveCover(w http.ResponseWriter, r *http.Request) {
	if _, ok := h.feedByPath(r); !ok {
		http.NotFound(w, r)
		return
	}
	cover := DefaultCover()
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(len(cover)))
	_, _ = w.Write(cover)
}
