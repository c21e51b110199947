package core

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/internal/apitime"
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
		return envelope(typ, now, map[string]any{"report": c.reportPayloadLocked(r)}, false)
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

// envelope renders an event body: type, timestamp (the event's time, frozen) and data, and test
// only on test events.
func envelope(typ string, at time.Time, data any, test bool) []byte {
	v := struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Data      any    `json:"data"`
		Test      bool   `json:"test,omitempty"`
	}{typ, apitime.Format(at), data, test}
	b, err := json.Marshal(v)
	if err != nil {
		// Every value here is plain data; a failure is a bug, and a body saying so beats none.
		b, _ = json.Marshal(map[string]string{"type": typ, "error": err.Error()})
	}
	return b
}

type seriesRef struct {
	ID      uuid.UUID `json:"id"`
	Title   *string   `json:"title"`
	FeedURL string    `json:"feed_url"`
}

type reportEpisode struct {
	ID      uuid.UUID `json:"id"`
	Title   *string   `json:"title"`
	GUID    string    `json:"guid"`
	PubDate *string   `json:"pub_date"`
}

type createdEpisode struct {
	reportEpisode
	AudioURL string `json:"audio_url"`
}

type issue struct {
	Name            string          `json:"name"`
	VerboseName     string          `json:"verbose_name"`
	Status          string          `json:"status"`
	Value           json.RawMessage `json:"value"`
	MeasurementUnit *string         `json:"measurement_unit"`
	Description     string          `json:"description"`
	WarningMessage  *string         `json:"warning_message"`
	Link            string          `json:"link"`
	Severity        string          `json:"severity"`
	Limit           *string         `json:"limit"`
}

type reportPayload struct {
	ID              uuid.UUID      `json:"id"`
	URL             string         `json:"url"`
	Status          string         `json:"status"`
	Passed          *bool          `json:"passed"`
	Score           *int           `json:"score"`
	Passes          *int           `json:"passes"`
	Failures        *int           `json:"failures"`
	Total           *int           `json:"total"`
	Filename        string         `json:"filename"`
	ClientReference string         `json:"client_reference"`
	CreatedAt       string         `json:"created_at"`
	Series          *seriesRef     `json:"series"`
	Episode         *reportEpisode `json:"episode"`
	Issues          []issue        `json:"issues"`
}

func (c *Core) seriesRefLocked(id *uuid.UUID) *seriesRef {
	if id == nil {
		return nil
	}
	s := c.series[*id]
	if s == nil {
		return nil
	}
	return &seriesRef{ID: s.ID, Title: s.Title, FeedURL: s.FeedURL}
}

func episodeRef(e *Episode) reportEpisode {
	out := reportEpisode{ID: e.ID, Title: e.Title, GUID: e.GUID}
	if e.PublishedOn != nil {
		day := e.PublishedOn.Format(apitime.DateLayout)
		out.PubDate = &day
	}
	return out
}

// reportPayloadLocked renders data.report: the scored fields only for a complete report.
func (c *Core) reportPayloadLocked(r *Report) reportPayload {
	p := reportPayload{
		ID: r.ID, URL: strings.TrimSuffix(c.wh.cfg.AppURL, "/") + "/reports/" + r.ID.String(),
		Status: strings.ToLower(r.Status), Filename: r.OriginalFilename, CreatedAt: apitime.Format(r.CreatedAt),
		Series: c.seriesRefLocked(r.Series),
	}
	if p.Series != nil && r.Episode != nil {
		if e := c.episodes[*r.Episode]; e != nil {
			ref := episodeRef(e)
			p.Episode = &ref
		}
	}
	if r.Status == StatusComplete && r.Stats != nil {
		st := *r.Stats
		p.Passed, p.Score, p.Passes, p.Failures, p.Total = &st.Passed, &st.Percent, &st.Passes, &st.Failures, &st.Total
		p.Issues = make([]issue, 0, len(r.Results))
		for _, res := range r.Results {
			p.Issues = append(p.Issues, issueOf(res))
		}
		// Required checks first, as the service lists them.
		slices.SortStableFunc(p.Issues, func(a, b issue) int {
			return boolRank(a.Severity != Required) - boolRank(b.Severity != Required)
		})
	}
	return p
}

func issueOf(r Result) issue {
	//lint:ignore S1016 field by field on purpose: Result may grow fields the payload must not carry.
	return issue{
		Name: r.Name, VerboseName: r.VerboseName, Status: r.Status, Value: r.Value, MeasurementUnit: r.MeasurementUnit,
		Description: r.Description, WarningMessage: r.WarningMessage, Link: r.Link, Severity: r.Severity, Limit: r.Limit,
	}
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
	if latest != nil {
		return envelope(EventReportCompleted, now, map[string]any{"report": c.reportPayloadLocked(latest)}, true)
	}
	return envelope(EventReportCompleted, now, map[string]any{"report": c.sampleReportLocked(now)}, true)
}

// sampleReport is the canned report of a test event in a workspace without a completed report:
// fixed ids, one episode of an example show, every check passing.
func (c *Core) sampleReportLocked(now time.Time) reportPayload {
	m := Measurement{Duration: 30 * time.Minute, Channels: 2, SampleRate: 44100, IntegratedLUFS: -16, TruePeakDB: -1.5}
	explicit := false
	results := judge(judgeInput{std: c.standards[0], m: m, explicit: &explicit})
	st := summarise(results)
	title, episodeTitle := "Example show", "Example episode"
	day := now.Format(apitime.DateLayout)
	p := reportPayload{
		ID: sampleID("report"), Status: "complete", Filename: "example-episode.mp3", CreatedAt: apitime.Format(now),
		Passed: &st.Passed, Score: &st.Percent, Passes: &st.Passes, Failures: &st.Failures, Total: &st.Total,
		Series:  &seriesRef{ID: sampleID("series"), Title: &title, FeedURL: "https://feeds.example.com/example-show.rss"},
		Episode: &reportEpisode{ID: sampleID("episode"), Title: &episodeTitle, GUID: "example-episode", PubDate: &day},
	}
	p.URL = strings.TrimSuffix(c.wh.cfg.AppURL, "/") + "/reports/" + p.ID.String()
	for _, res := range results {
		p.Issues = append(p.Issues, issueOf(res))
	}
	return p
}

func sampleID(what string) uuid.UUID { return uuid.NewSHA1(standardNamespace, []byte("sample "+what)) }
