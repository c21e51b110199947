package core

import (
	"net/url"
	"time"

	"github.com/google/uuid"
)

// Series is a show a workspace holds. Two workspaces that track the same feed hold two series.
type Series struct {
	ID                 uuid.UUID
	Workspace          uuid.UUID
	Title              *string
	FeedURL            string
	AutomatedReporting bool
	CreatedAt          time.Time
	// Explicit is the feed's iTunes explicit flag as last read; nil until known.
	Explicit *bool
	// CoverImageURL is the feed's artwork as last read; nil when it names none usable.
	CoverImageURL *string
}

// Episode is an episode the service has seen of a series since the series was added.
type Episode struct {
	ID          uuid.UUID
	Series      uuid.UUID
	Title       *string
	GUID        string
	AudioURL    string
	PublishedOn *time.Time
	FirstSeenAt time.Time
}

// catalog holds a workspace's shows.
type catalog struct {
	order    []uuid.UUID          // series in the order they were added
	byFeed   map[string]uuid.UUID // feed URL -> series
	episodes map[uuid.UUID]*seriesEpisodes
}

type seriesEpisodes struct {
	seen   []*Episode // in the order first seen
	byGUID map[string]*Episode
}

func (c *Core) catalogLocked(ws uuid.UUID) *catalog {
	cat := c.catalogs[ws]
	if cat == nil {
		cat = &catalog{byFeed: map[string]uuid.UUID{}, episodes: map[uuid.UUID]*seriesEpisodes{}}
		c.catalogs[ws] = cat
	}
	return cat
}

// addSeriesLocked returns the workspace's series for a feed, adding it (within the plan's cap)
// when the workspace does not hold it yet.
func (c *Core) addSeriesLocked(ws *Workspace, feedURL string, doc *FeedDoc, now time.Time) (*Series, error) {
	cat := c.catalogLocked(ws.ID)
	if id, ok := cat.byFeed[feedURL]; ok {
		s := c.series[id]
		c.setSeriesExplicitLocked(s, doc.Explicit)
		s.CoverImageURL = coverImageURL(doc.ImageURL)
		return s, nil
	}
	if len(cat.order) >= ws.Plan.PodcastLimit {
		return nil, errorf(CodePlanLimitReached,
			"The %s plan allows %d podcasts and this workspace holds %d; remove one or upgrade the plan.",
			ws.Plan.Name, ws.Plan.PodcastLimit, len(cat.order))
	}
	s := &Series{ID: c.rand.UUID(), Workspace: ws.ID, FeedURL: feedURL, CreatedAt: now, Explicit: doc.Explicit, CoverImageURL: coverImageURL(doc.ImageURL)}
	if doc.Title != "" {
		title := doc.Title
		s.Title = &title
	}
	c.series[s.ID] = s
	cat.order = append(cat.order, s.ID)
	cat.byFeed[feedURL] = s.ID
	cat.episodes[s.ID] = &seriesEpisodes{byGUID: map[string]*Episode{}}
	c.trackFeedLocked(s, doc, now)
	return s, nil
}

// seeEpisodeLocked records a feed episode under a series, once.
func (c *Core) seeEpisodeLocked(s *Series, fe FeedEpisode, now time.Time) *Episode {
	eps := c.catalogLocked(s.Workspace).episodes[s.ID]
	guid := fe.GUID
	if guid == "" {
		guid = fe.AudioURL
	}
	if e, ok := eps.byGUID[guid]; ok {
		return e
	}
	e := &Episode{ID: c.rand.UUID(), Series: s.ID, GUID: guid, AudioURL: fe.AudioURL, PublishedOn: fe.PublishedOn, FirstSeenAt: now}
	if fe.Title != "" {
		title := fe.Title
		e.Title = &title
	}
	eps.seen = append(eps.seen, e)
	eps.byGUID[guid] = e
	c.episodes[e.ID] = e
	return e
}

// Page is a window of a listing.
type Page[T any] struct {
	Items   []T
	Limit   int
	Offset  int
	HasMore bool
}

// window cuts a page out of n items produced by at(i).
func window[T any](n, limit, offset int, at func(i int) T) Page[T] {
	p := Page[T]{Items: []T{}, Limit: limit, Offset: offset}
	for i := offset; i < n && i < offset+limit; i++ {
		p.Items = append(p.Items, at(i))
	}
	p.HasMore = offset+limit < n
	return p
}

// ListSeries lists the workspace's shows in the order they were added; the error is a refusal
// of a principal admitted before a reset (see principalLocked).
func (c *Core) ListSeries(p Principal, limit, offset int) (Page[Series], error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	p, _, err := c.principalLocked(p, c.clock.Now())
	if err != nil {
		return Page[Series]{}, err
	}
	cat := c.catalogs[p.Workspace.ID]
	if cat == nil {
		return window(0, limit, offset, func(int) Series { return Series{} }), nil
	}
	return window(len(cat.order), limit, offset, func(i int) Series { return *c.series[cat.order[i]] }), nil
}

// GetSeries returns one of the workspace's shows.
func (c *Core) GetSeries(p Principal, id uuid.UUID) (Series, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	p, _, err := c.principalLocked(p, c.clock.Now())
	if err != nil {
		return Series{}, err
	}
	s, ok := c.series[id]
	if !ok || s.Workspace != p.Workspace.ID {
		return Series{}, ErrNotFound("Series")
	}
	return *s, nil
}

// ListEpisodes lists the episodes seen of a show, newest first by first_seen_at.
func (c *Core) ListEpisodes(p Principal, seriesID uuid.UUID, limit, offset int) (Page[Episode], error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	p, _, err := c.principalLocked(p, c.clock.Now())
	if err != nil {
		return Page[Episode]{}, err
	}
	s, ok := c.series[seriesID]
	if !ok || s.Workspace != p.Workspace.ID {
		return Page[Episode]{}, ErrNotFound("Series")
	}
	seen := c.catalogs[s.Workspace].episodes[s.ID].seen
	return window(len(seen), limit, offset, func(i int) Episode { return *seen[len(seen)-1-i] }), nil
}

// Episode returns an episode by id.
func (c *Core) Episode(id uuid.UUID) (Episode, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.episodes[id]
	if !ok {
		return Episode{}, false
	}
	return *e, true
}

// SeriesByID returns a series by id, whatever its workspace.
func (c *Core) SeriesByID(id uuid.UUID) (Series, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	s, ok := c.series[id]
	if !ok {
		return Series{}, false
	}
	return *s, true
}

// coverImageURL is the cover image URL a show keeps from its feed's artwork: an absolute
// http(s) URL, else none (a relative or other URL is of no use to a client).
func coverImageURL(raw string) *string {
	u, err := url.Parse(raw)
	if raw == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil
	}
	return &raw
}

// feedCoverLocked stores the artwork read at a feed check on every series of the feed.
func (c *Core) feedCoverLocked(f *trackedFeed, imageURL string) {
	for _, sid := range f.series {
		if s := c.series[sid]; s != nil {
			s.CoverImageURL = coverImageURL(imageURL)
		}
	}
}
