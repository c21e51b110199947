package hosted

import (
	"cmp"
	"slices"
	"time"

	"github.com/google/uuid"
)

// FeedListing is a hosted feed as the fake's dashboard lists it.
type FeedListing struct {
	ID       uuid.UUID
	Title    string
	FeedURL  string
	Explicit bool
	Broken   bool
	// Episodes are newest first.
	Episodes []EpisodeListing
}

// EpisodeListing is a hosted episode as the fake's dashboard lists it.
type EpisodeListing struct {
	GUID       string
	Title      string
	Published  time.Time
	DurationS  float64
	Format     string
	AudioURL   string
	Length     int64
	Transcript []string
	Tags       *Tags
}

// Feeds lists the hosted feeds by title, then id, with copies of what they hold.
func (h *Host) Feeds() []FeedListing {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]FeedListing, 0, len(h.feeds))
	for _, f := range h.feeds {
		l := FeedListing{ID: f.id, Title: f.title, FeedURL: h.feedURL(f.id), Explicit: f.explicit, Broken: f.broken}
		for _, e := range f.episodes {
			el := EpisodeListing{GUID: e.GUID, Title: e.Title, Published: e.Published, DurationS: e.DurationS,
				Format: e.Format, AudioURL: e.audioURL, Length: e.length}
			for _, line := range e.Transcript {
				el.Transcript = append(el.Transcript, line.Text)
			}
			if e.Tags != nil {
				tags := *e.Tags
				tags.Chapters = slices.Clone(tags.Chapters)
				el.Tags = &tags
			}
			l.Episodes = append(l.Episodes, el)
		}
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b FeedListing) int {
		return cmp.Or(cmp.Compare(a.Title, b.Title), cmp.Compare(a.ID.String(), b.ID.String()))
	})
	return out
}
