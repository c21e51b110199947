package core

import (
	"context"
	"errors"
	"net/url"
	"time"

	"github.com/google/uuid"
)

// The feed checker's rules.
const (
	// FeedCheckPeriod is how often each tracked feed is read again, counted from when the first
	// workspace added the show.
	FeedCheckPeriod = time.Hour
	// BrokenAfter is how many checks in a row must fail before a feed is declared broken.
	BrokenAfter = 3
	// BrokenNoticeGap is the least time between two series.feed_broken notices of one feed, so a
	// flapping feed is reported at most once a day.
	BrokenNoticeGap = 24 * time.Hour
	// feedCheckTimeout bounds one read of a feed.
	feedCheckTimeout = 30 * time.Second
)

// Kinds of feed breakage.
const (
	BrokenFetch  = "fetch"
	BrokenIngest = "ingest"
)

// trackedFeed is the checker's view of one feed URL, shared by every workspace tracking it.
type trackedFeed struct {
	url string
	// series are the series, one per workspace, that track the feed.
	series []uuid.UUID
	// known holds every guid the checker has seen in the feed, so that only genuinely new
	// episodes are announced.
	known    map[string]bool
	failures int
	kind     string
	lastErr  string
	broken   bool
	noticed  time.Time // last series.feed_broken notice
	// lastCheck is when the feed was last read: when its first series was added, then at
	// every check, failed or not.
	lastCheck time.Time
}

func episodeKey(fe FeedEpisode) string {
	if fe.GUID != "" {
		return fe.GUID
	}
	return fe.AudioURL
}

// trackFeedLocked starts checking the feed of a newly added series; the episodes the feed
// holds now are the back catalogue, never announced.
func (c *Core) trackFeedLocked(s *Series, doc *FeedDoc, now time.Time) {
	c.wh.init()
	f := c.wh.feeds[s.FeedURL]
	if f == nil {
		f = &trackedFeed{url: s.FeedURL, known: map[string]bool{}}
		for _, fe := range doc.Episodes {
			f.known[episodeKey(fe)] = true
		}
		f.lastCheck = now
		c.wh.feeds[s.FeedURL] = f
		c.clock.At(now.Add(FeedCheckPeriod), c.checkFeedTask(s.FeedURL))
	}
	f.series = append(f.series, s.ID)
}

func (c *Core) checkFeedTask(feedURL string) func(time.Time) {
	return func(now time.Time) { c.checkFeed(feedURL, now) }
}

// checkFeed reads a tracked feed without the core's lock, applies what it found and schedules
// the next check. On a real clock the read runs apart from the clock, so a slow feed holds
// nothing up.
func (c *Core) checkFeed(feedURL string, now time.Time) {
	work := func() {
		ctx, cancel := context.WithTimeout(context.Background(), feedCheckTimeout)
		doc, err := c.deps.FetchFeed(ctx, feedURL)
		cancel()
		defer c.FlushNotices()
		c.mu.Lock()
		defer c.mu.Unlock()
		if f := c.wh.feeds[feedURL]; f != nil {
			c.applyFeedCheckLocked(f, doc, err, now)
		}
		c.clock.At(now.Add(FeedCheckPeriod), c.checkFeedTask(feedURL))
	}
	if c.clock.Manual() {
		work()
		return
	}
	go work()
}

// applyFeedCheckLocked handles one check: a failure (counted, and a broken feed announced on
// the transition), the explicit flag, and the episodes new since the last check.
func (c *Core) applyFeedCheckLocked(f *trackedFeed, doc *FeedDoc, err error, now time.Time) {
	f.lastCheck = now
	if err != nil {
		c.feedFailedLocked(f, BrokenFetch, err.Error(), now)
		return
	}
	c.explicitFlagLocked(f, doc.Explicit)
	c.feedCoverLocked(f, doc.ImageURL)
	if len(doc.Episodes) > 0 && !storable(doc.Episodes[0]) {
		c.feedFailedLocked(f, BrokenIngest, "the newest episode's audio URL is not an absolute http(s) URL: "+doc.Episodes[0].AudioURL, now)
		return
	}
	f.failures, f.broken, f.lastErr = 0, false, ""
	// The feed lists newest first: what comes before the first known episode is new; unknown
	// episodes after it are backfilled old ones, recorded as known without a word.
	var fresh []FeedEpisode
	seenKnown := false
	for _, fe := range doc.Episodes {
		key := episodeKey(fe)
		switch {
		case f.known[key]:
			seenKnown = true
		case !seenKnown:
			fresh = append(fresh, fe)
		}
		f.known[key] = true
	}
	for i := len(fresh) - 1; i >= 0; i-- {
		for _, sid := range f.series {
			if s := c.series[sid]; s != nil {
				c.ingestLocked(s, fresh[i], now)
			}
		}
	}
}

// storable reports whether an episode can be stored: its audio URL must be absolute http(s).
func storable(fe FeedEpisode) bool {
	u, err := url.Parse(fe.AudioURL)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func (c *Core) feedFailedLocked(f *trackedFeed, kind, msg string, now time.Time) {
	f.failures++
	f.kind, f.lastErr = kind, msg
	for _, sid := range f.series {
		if s := c.series[sid]; s != nil {
			c.noticeLocked(Notice{Kind: NoticeFeedCheckFailed, At: now, Workspace: s.Workspace, Series: &s.ID, URL: f.url, Reason: kind, Err: msg, Attempt: f.failures})
		}
	}
	if f.broken || f.failures < BrokenAfter {
		return
	}
	f.broken = true
	if !f.noticed.IsZero() && now.Sub(f.noticed) < BrokenNoticeGap {
		return // flapping: announced within the last day already
	}
	f.noticed = now
	for _, sid := range f.series {
		s := c.series[sid]
		if s == nil {
			continue
		}
		ref := c.seriesRefLocked(&s.ID)
		failure := &FeedFailure{Kind: kind, ConsecutiveFailures: f.failures, LastError: msg}
		c.deliverLocked(s.Workspace, &s.ID, EventSeriesFeedBroken, func() []byte {
			return c.renderLocked(Event{Type: EventSeriesFeedBroken, At: now, Series: ref, Failure: failure})
		}, now)
		c.emailLocked(s.Workspace, EmailFeedBroken, "A feed is broken: "+s.FeedURL,
			"The feed "+s.FeedURL+" could not be "+map[string]string{BrokenFetch: "read", BrokenIngest: "ingested"}[kind]+": "+msg, now)
	}
}

// ingestLocked records a new episode under one workspace's series, announces it, and reports on
// it when the workspace has automated reporting on.
func (c *Core) ingestLocked(s *Series, fe FeedEpisode, now time.Time) {
	eps := c.catalogLocked(s.Workspace).episodes[s.ID]
	if _, seen := eps.byGUID[episodeKey(fe)]; seen {
		return // this workspace recorded it already, when it reported on it
	}
	e := c.seeEpisodeLocked(s, fe, now)
	ref := c.seriesRefLocked(&s.ID)
	ev := Event{Type: EventEpisodeCreated, At: now, Series: ref, Episode: episodeRef(e)}
	c.deliverLocked(s.Workspace, &s.ID, EventEpisodeCreated, func() []byte { return c.renderLocked(ev) }, now)
	if s.AutomatedReporting {
		c.autoReportLocked(s, e, now)
	}
}

// autoReportLocked creates the automatic report on a new episode: analysed like any other, or
// OUT_OF_QUOTA at once when the workspace lacks credits.
func (c *Core) autoReportLocked(s *Series, e *Episode, now time.Time) {
	ws := c.workspaces[s.Workspace]
	r := &Report{
		ID: c.rand.UUID(), Workspace: ws.ID, Status: StatusPending, CreatedAt: now, UpdatedAt: now,
		OriginalFilename: fileNameOf(e.AudioURL), Personal: ws.Type == Personal,
		AudioURL: &e.AudioURL, Series: &s.ID, Episode: &e.ID, Standard: c.standardForLocked(ws, s),
	}
	r.Source = SourceAutomated
	shortErr := c.requireCreditsLocked(ws, minimumCharge, now)
	// The scheduled steps move a report only from PENDING, so an OUT_OF_QUOTA one stays put.
	c.addReportLocked(r)
	if shortErr != nil {
		reason := shortErr.Error()
		var refusal *Error
		if errors.As(shortErr, &refusal) {
			reason = refusal.Message // the balance and the cost, without the API's code
		}
		c.setStatusLocked(r, StatusOutOfQuota, reason, now)
		r.FailureReason = reason
		c.reportFinishedLocked(r, now)
	}
}

// explicitFlagLocked takes in a changed explicit flag: every series of the feed gets it, and
// their completed reports are judged again (setSeriesExplicitLocked). The verdict may change;
// updated_at does not move, and no event is sent.
func (c *Core) explicitFlagLocked(f *trackedFeed, explicit *bool) {
	if explicit == nil {
		return
	}
	for _, sid := range f.series {
		if s := c.series[sid]; s != nil {
			c.setSeriesExplicitLocked(s, explicit)
		}
	}
}

// SetAutomatedReporting turns a series' automated reporting on or off, as its workspace does in
// the dashboard.
func (c *Core) SetAutomatedReporting(seriesID uuid.UUID, on bool) (Series, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.series[seriesID]
	if s == nil {
		return Series{}, ErrNotFound("Series")
	}
	s.AutomatedReporting = on
	return *s, nil
}

// FeedLastCheck returns when the feed at feedURL was last read (when its first series was
// added, then by the feed checker), and false for a feed no series tracks.
func (c *Core) FeedLastCheck(feedURL string) (time.Time, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	f := c.wh.feeds[feedURL]
	if f == nil {
		return time.Time{}, false
	}
	return f.lastCheck, true
}
