package hosted

import (
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// The hosting of feeds as the Go API (HostFeed, AddHostedEpisode, ChangeFeed) and the control
// API (POST /_fake/feeds, POST /_fake/feeds/{id}/episodes, PATCH /_fake/feeds/{id}) ask for it:
// ids as they were sent, an episode's defaults minted here.

// Minter gives what is hosted its defaults: ids from the fake's generator, the day from its
// clock.
type Minter struct {
	NewID func() uuid.UUID
	Now   func() time.Time
}

// complete is e with its defaults: a fresh GUID when it has none, and its publication day
// (Published, or today) as midnight UTC.
func (m Minter) complete(e Episode) Episode {
	if e.GUID == "" {
		e.GUID = m.NewID().String()
	}
	day := e.Published
	if day.IsZero() {
		day = m.Now()
	}
	e.Published = day.UTC().Truncate(24 * time.Hour)
	return e
}

// FeedAdder is where a feed is hosted: the Host, or a Staging the fake's reset builds.
type FeedAdder interface {
	AddFeed(id uuid.UUID, title string, explicit bool, episodes []Episode) (string, error)
}

// HostFeed hosts a feed with a fresh id in into, its episodes given their defaults (the feed's
// id is minted first), and returns the id and the feed's URL. A refused episode is an
// *EpisodeError.
func (m Minter) HostFeed(into FeedAdder, title string, explicit bool, episodes []Episode) (uuid.UUID, string, error) {
	if strings.TrimSpace(title) == "" {
		return uuid.Nil, "", core.ErrValidation("A feed needs a title.")
	}
	id := m.NewID()
	completed := make([]Episode, 0, len(episodes))
	for _, e := range episodes {
		completed = append(completed, m.complete(e))
	}
	url, err := into.AddFeed(id, title, explicit, completed)
	if err != nil {
		return uuid.Nil, "", err
	}
	return id, url, nil
}

// FeedID reads a feed id by the id rule: any other text names no feed.
func FeedID(s string) (uuid.UUID, error) {
	id, ok := core.CanonicalID(s)
	if !ok {
		return uuid.Nil, core.ErrNotFound("Feed")
	}
	return id, nil
}

// AddEpisode publishes e, given its defaults, as the newest episode of the feed feedID names,
// and returns its GUID and audio URL.
func (m Minter) AddEpisode(h *Host, feedID string, e Episode) (guid, url string, err error) {
	id, err := FeedID(feedID)
	if err != nil {
		return "", "", err
	}
	e = m.complete(e)
	url, err = h.AddEpisode(id, e)
	if err != nil {
		return "", "", err
	}
	return e.GUID, url, nil
}

// ChangeFeed is Change of the feed feedID names.
func (h *Host) ChangeFeed(feedID string, explicit, broken *bool) error {
	id, err := FeedID(feedID)
	if err != nil {
		return err
	}
	return h.Change(id, explicit, broken)
}
