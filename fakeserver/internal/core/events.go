package core

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Email is a message the service would send to people, which the fake keeps for tests to read.
type Email struct {
	ID        uuid.UUID
	Workspace uuid.UUID
	// Kind is report_failed, report_out_of_quota, feed_broken or endpoint_disabled.
	Kind    string
	To      []string
	Subject string
	Text    string
	SentAt  time.Time
	// Report is the report the email is about; uuid.Nil for other emails.
	Report uuid.UUID
}

// Email kinds.
const (
	EmailReportFailed     = "report_failed"
	EmailReportOutOfQuota = "report_out_of_quota"
	EmailFeedBroken       = "feed_broken"
	EmailEndpointDisabled = "endpoint_disabled"
)

// maxEmails is how many emails the fake keeps per workspace; older ones are dropped.
const maxEmails = 200

// Emails returns the emails sent about a workspace (nil: about every workspace), newest first.
func (c *Core) Emails(ws *uuid.UUID) ([]Email, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []Email
	if ws != nil {
		if _, ok := c.workspaces[*ws]; !ok {
			return nil, ErrNotFound("Workspace")
		}
		out = slices.Clone(c.wh.emails[*ws])
	} else {
		for _, list := range c.wh.emails {
			out = append(out, list...)
		}
	}
	slices.SortStableFunc(out, func(a, b Email) int { return b.SentAt.Compare(a.SentAt) })
	if out == nil {
		out = []Email{}
	}
	return out, nil
}

// emailLocked sends an email to the people of a workspace who hear about such things: its user,
// or an organisation's owners (the fake has no Developer access grants to add). It returns the
// email kept, or nil when there was nobody to send it to.
func (c *Core) emailLocked(ws uuid.UUID, kind, subject, text string, now time.Time) *Email {
	w := c.workspaces[ws]
	if w == nil {
		return nil
	}
	var to []string
	for _, id := range w.Owners {
		if a := c.accounts[id]; a != nil {
			to = append(to, a.Email)
		}
	}
	if len(to) == 0 {
		return nil
	}
	list := append(c.wh.emails[ws], Email{ID: c.rand.UUID(), Workspace: ws, Kind: kind, To: to, Subject: subject, Text: text, SentAt: now})
	if len(list) > maxEmails {
		list = slices.Delete(list, 0, len(list)-maxEmails)
	}
	c.wh.emails[ws] = list
	return &list[len(list)-1]
}

// reportFinishedLocked raises the event of a report that reached a final status, and the email
// that goes with a failure or a lack of credits.
func (c *Core) reportFinishedLocked(r *Report, now time.Time) {
	c.wh.init()
	var typ string
	var mail *Email
	switch r.Status {
	case StatusComplete:
		typ = EventReportCompleted
	case StatusFailed:
		typ = EventReportFailed
		mail = c.emailLocked(r.Workspace, EmailReportFailed, "A report failed: "+r.OriginalFilename,
			fmt.Sprintf("The report %s on %s could not be completed: %s", r.ID, r.OriginalFilename, r.FailureReason), now)
	case StatusOutOfQuota:
		typ = EventReportOutOfQuota
		mail = c.emailLocked(r.Workspace, EmailReportOutOfQuota, "Out of credits: "+r.OriginalFilename,
			fmt.Sprintf("The report %s on %s was not analysed because the workspace is out of credits.", r.ID, r.OriginalFilename), now)
	default:
		return
	}
	if mail != nil {
		mail.Report = r.ID
	}
	n := Notice{Kind: NoticeReportFinished, At: now, Workspace: r.Workspace, Report: r.ID, Series: r.Series, Status: r.Status, Reason: r.FailureReason}
	switch {
	case r.Status == StatusComplete && r.Stats != nil:
		n.Passed, n.Failures = r.Stats.Passed, r.Stats.RequiredFailures
		if r.CreditsCharged != nil {
			n.Credits = *r.CreditsCharged
		}
	case r.Status == StatusOutOfQuota:
		n.Credits = minimumCharge
		if ws := c.workspaces[r.Workspace]; ws != nil {
			n.Balance = c.creditsLocked(ws, now).Balance
		}
	}
	c.noticeLocked(n)
	queued := len(c.wh.queue)
	c.deliverLocked(r.Workspace, r.Series, typ, func() []byte {
		return c.renderLocked(Event{Type: typ, At: now, Report: c.reportSnapshotLocked(r)})
	}, now)
	for _, d := range c.wh.queue[queued:] {
		d.Report = r.ID // the deliveries this report's event caused, for its account
	}
}

// ReportTrail returns what a report caused: the webhook deliveries of its events that the
// endpoints' logs still hold (each keeps its most recent ones), oldest first, and the emails
// about it, oldest first.
func (c *Core) ReportTrail(id uuid.UUID) ([]Delivery, []Email) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r := c.reports[id]
	if r == nil {
		return nil, nil
	}
	deliveries := []Delivery{}
	for _, ep := range c.wh.byWorkspace[r.Workspace] {
		for _, d := range ep.log {
			if d.Report == id {
				deliveries = append(deliveries, cloneDelivery(d))
			}
		}
	}
	slices.SortFunc(deliveries, func(a, b Delivery) int { return cmp.Compare(a.seq, b.seq) })
	emails := []Email{}
	for _, e := range c.wh.emails[r.Workspace] {
		if e.Report == id {
			emails = append(emails, e)
		}
	}
	return deliveries, emails
}

// endpointDisabledLocked tells the workspace's people that an endpoint was disabled.
func (c *Core) endpointDisabledLocked(ep *Endpoint, now time.Time) {
	c.noticeLocked(Notice{Kind: NoticeEndpointDisabled, At: now, Workspace: ep.Workspace, Endpoint: ep.ID, URL: ep.URL, Attempt: ep.exhausted})
	c.emailLocked(ep.Workspace, EmailEndpointDisabled, "Webhook endpoint disabled",
		fmt.Sprintf("The webhook endpoint %s (%s) was disabled after %d deliveries in a row failed every attempt.", ep.ID, ep.URL, ep.exhausted), now)
}

// Event is one webhook event as the core raises it: wire-neutral facts, taken under the core's
// lock when the event happens, which internal/views renders as the event's JSON body
// (WebhookConfig.Render). The fields an event type does not carry are nil.
type Event struct {
	// Type is one of the Event* names.
	Type string
	// At is the event's time, frozen in its body.
	At time.Time
	// Test marks Settings' test event.
	Test bool
	// Report is the report of a report.* event.
	Report *ReportSnapshot
	// Series is the series of an episode.created or series.feed_broken event; nil when the
	// series is gone.
	Series *SeriesRef
	// Episode is the new episode of an episode.created event.
	Episode *EpisodeRef
	// Failure is what broke in a series.feed_broken event.
	Failure *FeedFailure
}

// ReportSnapshot is a report as a webhook event carries it, as it stood when the event happened.
type ReportSnapshot struct {
	ID uuid.UUID
	// URL is the report's page in the web app.
	URL string
	// Status is the core's status (StatusComplete, ...).
	Status    string
	Filename  string
	CreatedAt time.Time
	// Series and Episode are the show a feed report is on; nil for an upload (and Episode nil
	// when the episode is gone).
	Series  *SeriesRef
	Episode *EpisodeRef
	// Stats and Results are set only when the report is scored (complete); Results in the
	// order the service lists them.
	Stats   *Stats
	Results []Result
}

// Scored reports whether the snapshot carries the scored fields.
func (r *ReportSnapshot) Scored() bool { return r.Stats != nil }

// SeriesRef is a series as events name it.
type SeriesRef struct {
	ID      uuid.UUID
	Title   *string
	FeedURL string
}

// EpisodeRef is an episode as events name it.
type EpisodeRef struct {
	ID          uuid.UUID
	Title       *string
	GUID        string
	PublishedOn *time.Time
	AudioURL    string
}

// FeedFailure is why a feed is broken: its kind (BrokenFetch or BrokenIngest), how many checks
// in a row failed, and the last error.
type FeedFailure struct {
	Kind                string
	ConsecutiveFailures int
	LastError           string
}

// renderLocked is the body of ev, by the configured renderer; none without one (a core that
// only counts deliveries).
func (c *Core) renderLocked(ev Event) []byte {
	if c.wh.cfg.Render == nil {
		return nil
	}
	return c.wh.cfg.Render(ev)
}

func (c *Core) seriesRefLocked(id *uuid.UUID) *SeriesRef {
	if id == nil {
		return nil
	}
	s := c.series[*id]
	if s == nil {
		return nil
	}
	return &SeriesRef{ID: s.ID, Title: s.Title, FeedURL: s.FeedURL}
}

func episodeRef(e *Episode) *EpisodeRef {
	out := &EpisodeRef{ID: e.ID, Title: e.Title, GUID: e.GUID, AudioURL: e.AudioURL}
	if e.PublishedOn != nil {
		day := *e.PublishedOn
		out.PublishedOn = &day
	}
	return out
}

func (c *Core) reportURL(id uuid.UUID) string {
	return strings.TrimSuffix(c.wh.cfg.AppURL, "/") + "/reports/" + id.String()
}

// reportSnapshotLocked is r as its events carry it: the scored fields only for a complete
// report, required checks first.
func (c *Core) reportSnapshotLocked(r *Report) *ReportSnapshot {
	p := &ReportSnapshot{
		ID: r.ID, URL: c.reportURL(r.ID), Status: r.Status, Filename: r.OriginalFilename, CreatedAt: r.CreatedAt,
		Series: c.seriesRefLocked(r.Series),
	}
	if p.Series != nil && r.Episode != nil {
		if e := c.episodes[*r.Episode]; e != nil {
			p.Episode = episodeRef(e)
		}
	}
	if r.Status == StatusComplete && r.Stats != nil {
		st := *r.Stats
		p.Stats = &st
		// Required checks first, as the service lists them.
		p.Results = slices.Clone(r.Results)
		if p.Results == nil {
			p.Results = []Result{}
		}
		slices.SortStableFunc(p.Results, func(a, b Result) int {
			return boolRank(a.Severity != Required) - boolRank(b.Severity != Required)
		})
	}
	return p
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// testEventBodyLocked builds Settings' test event: the workspace's most recently completed
// report, else a canned sample.
func (c *Core) testEventBodyLocked(ws uuid.UUID, now time.Time) []byte {
	var latest *Report
	if idx := c.reportIdx[ws]; idx != nil {
		for e := idx.updated.Back(); e != nil; e = e.Prev() {
			if r := e.Value.(*Report); r.Status == StatusComplete {
				latest = r
				break
			}
		}
	}
	ev := Event{Type: EventReportCompleted, At: now, Test: true}
	if latest != nil {
		ev.Report = c.reportSnapshotLocked(latest)
	} else {
		ev.Report = c.sampleReportLocked(now)
	}
	return c.renderLocked(ev)
}

// sampleReportLocked is the canned report of a test event in a workspace without a completed
// report: fixed ids, one episode of an example show, every check passing.
func (c *Core) sampleReportLocked(now time.Time) *ReportSnapshot {
	m := Measurement{Duration: 30 * time.Minute, Channels: 2, SampleRate: 44100, IntegratedLUFS: -16, TruePeakDB: -1.5}
	explicit := false
	results := judge(judgeInput{std: c.standards[0], m: m, explicit: &explicit})
	st := summarise(results)
	title, episodeTitle := "Example show", "Example episode"
	day := now
	id := sampleID("report")
	return &ReportSnapshot{
		ID: id, URL: c.reportURL(id), Status: StatusComplete, Filename: "example-episode.mp3", CreatedAt: now,
		Stats: &st, Results: results,
		Series:  &SeriesRef{ID: sampleID("series"), Title: &title, FeedURL: "https://feeds.example.com/example-show.rss"},
		Episode: &EpisodeRef{ID: sampleID("episode"), Title: &episodeTitle, GUID: "example-episode", PublishedOn: &day},
	}
}

func sampleID(what string) uuid.UUID { return uuid.NewSHA1(standardNamespace, []byte("sample "+what)) }
