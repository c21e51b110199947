package core

import (
	"container/list"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Report statuses.
const (
	StatusPending    = "PENDING"
	StatusScheduled  = "SCHEDULED"
	StatusInProgress = "IN_PROGRESS"
	StatusComplete   = "COMPLETE"
	StatusFailed     = "FAILED"
	StatusOutOfQuota = "OUT_OF_QUOTA"
)

// Report sources.
const (
	SourceUpload    = "upload"
	SourceFeed      = "feed"
	SourceAutomated = "automated"
	SourceSeeded    = "seeded"
)

// stepDelay is the clock time between PENDING, SCHEDULED and IN_PROGRESS at a non-zero pace.
const stepDelay = time.Second

// overrun makes every run take 10% longer than its estimate, so time_remaining goes negative
// near the end of each run, as it may on the service.
const overrun = 1.1

// Report is a report and the state of its analysis.
type Report struct {
	// gen is the core's generation the report was made in (see Reset).
	gen              uint64
	ID               uuid.UUID
	Workspace        uuid.UUID
	Status           string
	Name             *string
	CreatedAt        time.Time
	UpdatedAt        time.Time
	StartedAt        *time.Time
	OriginalFilename string
	Personal         bool
	CreditsCharged   *int
	AudioURL         *string
	Series           *uuid.UUID
	Episode          *uuid.UUID
	Standard         Standard
	Measurement      *Measurement
	Results          []Result
	Stats            *Stats
	// Version counts the changes to the report, so adapters can cache what they render of it.
	Version uint64
	// Transcript is nil until transcription finishes, and for audio without one.
	Transcript []TranscriptLine
	// FailureReason says why analysis failed.
	FailureReason string
	// Source is how the report was made: SourceUpload, SourceFeed, SourceAutomated or
	// SourceSeeded.
	Source string
	// Timeline is every status the report took, in order, on the fake's clock.
	Timeline []StatusStep
	// Recorded is set on a report imported as recorded (SourceImported): its parts are served
	// as they are, and it is never measured, judged or charged.
	Recorded *Recorded

	estimatedEnd time.Time
	upload       uploadAudio
	// uploadFreed is set when the upload's audio was freed unused before the report was made.
	uploadFreed bool
	// heard is what transcription returned (speakers as scripted), kept to judge the report
	// again when its show's explicit flag changes; heardOK is false when there was none.
	heard   []TranscriptLine
	heardOK bool
	// seq orders reports by creation within the core; byUpdate is the report's place in its
	// workspace's update order; pos and seriesPos its places in its workspace's and its
	// series' report lists (see reportList).
	seq            uint64
	byUpdate       *list.Element
	pos, seriesPos int
}

// TimeRemaining is the estimate of remaining run time while IN_PROGRESS, 0 otherwise; negative
// when the run overruns.
func (r *Report) TimeRemaining(now time.Time) time.Duration {
	if r.Status != StatusInProgress || r.estimatedEnd.IsZero() {
		return 0
	}
	return r.estimatedEnd.Sub(now)
}

// FromFeed is what CreateReportFromFeed needs.
type FromFeed struct {
	FeedURL      string
	SeriesID     *uuid.UUID
	EpisodeIndex int
}

// CreateReportFromFeed creates a report on one episode of a feed (or of a held series' feed).
// Credits are checked first, then the feed is read, then the show is added if needed.
func (c *Core) CreateReportFromFeed(ctx context.Context, p Principal, in FromFeed) (Report, error) {
	defer c.FlushNotices()
	if p.Key == nil {
		return Report{}, ErrInvalidAPIKey()
	}
	c.mu.Lock()
	feedURL, _, err := c.feedReportLocked(p, in)
	c.mu.Unlock()
	if err != nil {
		return Report{}, err
	}

	doc, err := c.deps.FetchFeed(ctx, feedURL)
	var refusal *Error
	if errors.As(err, &refusal) {
		return Report{}, refusal
	}
	if err != nil {
		return Report{}, ErrValidation("The feed could not be read: %s", err.Error())
	}
	if in.EpisodeIndex >= len(doc.Episodes) {
		return Report{}, ErrValidation("episode_index %d is past the end of the feed, which has %d episodes with audio.", in.EpisodeIndex, len(doc.Episodes))
	}
	fe := doc.Episodes[in.EpisodeIndex]

	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	// Checked again: the credits may have gone meanwhile, or a reset may have put another
	// state in place, in which the caller, the show or the feed may be another's or none.
	again, ws, err := c.feedReportLocked(p, in)
	if err != nil {
		return Report{}, err
	}
	if again != feedURL {
		return Report{}, ErrNotFound("Series")
	}
	s, err := c.addSeriesLocked(ws, feedURL, doc, now)
	if err != nil {
		return Report{}, err
	}
	e := c.seeEpisodeLocked(s, fe, now)
	r := &Report{
		ID: c.rand.UUID(), Workspace: ws.ID, Status: StatusPending, CreatedAt: now, UpdatedAt: now,
		OriginalFilename: fileNameOf(fe.AudioURL), Personal: ws.Type == Personal,
		AudioURL: &e.AudioURL, Series: &s.ID, Episode: &e.ID, Standard: c.standardForLocked(ws, s),
		Source: SourceFeed,
	}
	c.addReportLocked(r)
	return *r, nil
}

// feedReportLocked checks what CreateReportFromFeed needs before and after reading the feed:
// p as the current state admits it, the show named (one of its workspace's), and the credits.
// It returns the feed to read and the workspace.
func (c *Core) feedReportLocked(p Principal, in FromFeed) (string, *Workspace, error) {
	now := c.clock.Now()
	_, ws, err := c.principalLocked(p, now)
	if err != nil {
		return "", nil, err
	}
	feedURL := in.FeedURL
	if in.SeriesID != nil {
		s, ok := c.series[*in.SeriesID]
		if !ok || s.Workspace != ws.ID {
			return "", nil, ErrNotFound("Series")
		}
		feedURL = s.FeedURL
	}
	if err := c.requireCreditsLocked(ws, minimumCharge, now); err != nil {
		return "", nil, err
	}
	return feedURL, ws, nil
}

func fileNameOf(audioURL string) string {
	name := path.Base(strings.SplitN(strings.SplitN(audioURL, "?", 2)[0], "#", 2)[0])
	if name == "." || name == "/" || name == "" {
		return "episode"
	}
	return name
}

func (c *Core) addReportLocked(r *Report) {
	c.insertReportLocked(r)
	r.Timeline = append(r.Timeline, StatusStep{Status: r.Status, At: r.CreatedAt})
	c.noticeLocked(Notice{Kind: NoticeReportCreated, At: r.CreatedAt, Workspace: r.Workspace, Report: r.ID, Series: r.Series, Source: r.Source, FileName: r.OriginalFilename})
	c.scheduleLocked(r.ID)
}

// insertReportLocked adds a new report to the core and to its workspace's lists. Its created_at
// is not before the workspace's newest report's, so that the lists stay in created_at order
// when the wall clock steps back or two creations read it in one order and lock in the other.
func (c *Core) insertReportLocked(r *Report) {
	c.reports[r.ID] = r
	r.gen = c.gen
	c.reportSeq++
	r.seq = c.reportSeq
	idx := c.reportIndexLocked(r.Workspace)
	if n := len(idx.all.reports); n > 0 {
		if newest := idx.all.reports[n-1].CreatedAt; r.CreatedAt.Before(newest) {
			r.CreatedAt = newest
		}
	}
	if r.UpdatedAt.Before(r.CreatedAt) {
		r.UpdatedAt = r.CreatedAt
	}
	idx.all.add(r, workspaceSide)
	if r.Series != nil {
		idx.seriesListLocked(*r.Series).add(r, seriesSide)
	}
	r.byUpdate = idx.updated.PushBack(r)
	idx.cursors.after(r, 0)
}

// reportIndex keeps a workspace's reports in creation order, in all and by series, each list
// with its tree (see reportList), so that a listing's page costs about what it holds; and in
// update order, for the newest update.
type reportIndex struct {
	all     reportList
	series  map[uuid.UUID]*reportList
	updated *list.List // of *Report, oldest update first
	// cursors are where the latest pages of listings ended, for their next pages.
	cursors cursorSet
}

func (c *Core) reportIndexLocked(ws uuid.UUID) *reportIndex {
	idx := c.reportIdx[ws]
	if idx == nil {
		idx = &reportIndex{updated: list.New(), series: map[uuid.UUID]*reportList{}}
		c.reportIdx[ws] = idx
	}
	return idx
}

// seriesListLocked is the list of series id's reports, made on first use.
func (idx *reportIndex) seriesListLocked(id uuid.UUID) *reportList {
	l := idx.series[id]
	if l == nil {
		l = &reportList{}
		idx.series[id] = l
	}
	return l
}

// touchLocked moves updated_at to now and the report to the end of the update order. updated_at
// never goes back (nor before created_at), which the listings rely on.
func (c *Core) touchLocked(r *Report, now time.Time) {
	idx := c.reportIdx[r.Workspace]
	before := idx.cursors.before(r)
	if now.Before(r.UpdatedAt) {
		now = r.UpdatedAt
	}
	r.UpdatedAt = now
	r.Version++
	idx.updated.MoveToBack(r.byUpdate)
	idx.all.touched(r, r.pos)
	if r.Series != nil {
		idx.series[*r.Series].touched(r, r.seriesPos)
	}
	idx.cursors.after(r, before)
}

// scheduleLocked plans the transient steps of a new report on the clock.
func (c *Core) scheduleLocked(id uuid.UUID) {
	step := stepDelay
	if c.deps.AnalysisPace == 0 {
		step = 0
	}
	c.clock.After(step, func(now time.Time) {
		if !c.transition(id, StatusPending, StatusScheduled, now) {
			return
		}
		c.clock.After(step, func(now time.Time) { c.start(id, now) })
	})
}

func (c *Core) transition(id uuid.UUID, from, to string, now time.Time) bool {
	defer c.FlushNotices() // after the unlock: defers run last first
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.reports[id]
	if r == nil || r.Status != from {
		return false
	}
	c.setStatusLocked(r, to, "", now)
	c.touchLocked(r, now)
	return true
}

// start moves a report IN_PROGRESS and measures its audio; completion is scheduled from the
// measured duration at the configured pace.
func (c *Core) start(id uuid.UUID, now time.Time) {
	c.mu.Lock()
	r := c.reports[id]
	if r == nil || r.Status != StatusScheduled {
		c.mu.Unlock()
		return
	}
	c.setStatusLocked(r, StatusInProgress, "", now)
	r.StartedAt = &now
	c.touchLocked(r, now)
	upload, freed, audioURL, name, ws := r.upload, r.uploadFreed, r.AudioURL, r.OriginalFilename, r.Workspace
	c.mu.Unlock()
	c.FlushNotices()

	work := func() {
		m, sum, err := c.measure(upload, freed, audioURL, name)
		var heard []TranscriptLine
		var heardOK bool
		if err == nil {
			heard, heardOK = c.transcribe(audioURL, sum)
		}
		c.measured(r, now, m, heard, heardOK, err)
	}
	if c.clock.Manual() {
		work() // inside Advance: deterministic, done before Advance returns
		return
	}
	c.analyses.run(ws, work)
}

// measured records the outcome of a report's measurement, started at started, and schedules
// its completion.
func (c *Core) measured(r *Report, started time.Time, m Measurement, heard []TranscriptLine, heardOK bool, err error) {
	defer c.FlushNotices()
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.gen != c.gen {
		return // the fake was reset while the audio was measured
	}
	c.unholdLocked(r.Workspace, r.upload.size())
	r.upload = nil // measured: the bytes are no longer needed
	if err != nil {
		// Now, not started: on the real clock the measurement took time, and the update order
		// must follow updated_at.
		c.failLocked(r, err.Error(), c.clock.Now())
		return
	}
	r.Measurement = &m
	r.heard, r.heardOK = heard, heardOK
	estimate := time.Duration(float64(m.Duration) * float64(c.deps.AnalysisPace) / float64(time.Hour))
	r.estimatedEnd = started.Add(estimate)
	id := r.ID
	c.clock.At(started.Add(time.Duration(float64(estimate)*overrun)), func(now time.Time) { c.complete(id, now) })
}

// measure analyses a report's audio and returns its measurement and the SHA-256 of its bytes,
// hashed as they stream to analysis (transcripts scripted by content are found by it).
func (c *Core) measure(upload uploadAudio, freed bool, audioURL *string, name string) (Measurement, [sha256.Size]byte, error) {
	ctx, cancel := context.WithTimeout(c.analyses.context(), 10*time.Minute)
	defer cancel()
	var sum [sha256.Size]byte
	if upload != nil {
		if upload.size() == 0 {
			if freed {
				return Measurement{}, sum, fmt.Errorf("the audio uploaded to the upload URL was freed %v after the upload was reserved, since no report was made from it by then; reserve a new upload and PUT the file again", UploadAudioLifetime)
			}
			return Measurement{}, sum, fmt.Errorf("no audio was uploaded to the upload URL before the report was created")
		}
		m, err := c.deps.Analyze(ctx, upload.reader(), name)
		if err != nil {
			return Measurement{}, sum, fmt.Errorf("the audio could not be analysed: %w", err)
		}
		h := sha256.New()
		for _, b := range upload {
			h.Write(b)
		}
		h.Sum(sum[:0])
		return m, sum, nil
	}
	if audioURL == nil {
		return Measurement{}, sum, fmt.Errorf("the report has no audio")
	}
	rc, err := c.deps.OpenAudio(ctx, *audioURL)
	if err != nil {
		return Measurement{}, sum, fmt.Errorf("the audio could not be downloaded: %w", err)
	}
	defer rc.Close()
	h := sha256.New()
	tee := io.TeeReader(rc, h)
	m, err := c.deps.Analyze(ctx, tee, name)
	if err != nil {
		return Measurement{}, sum, fmt.Errorf("the audio could not be analysed: %w", err)
	}
	// Whatever the analyser left unread still belongs to the file's content. A download that
	// breaks here leaves a hash no script matches: the audio then simply has no transcript.
	if _, err := io.Copy(io.Discard, tee); err != nil {
		return m, sum, nil
	}
	copy(sum[:], h.Sum(nil))
	return m, sum, nil
}

// transcribe asks for the transcript of a report's audio: by URL first (hosted episodes carry
// theirs), then by content. A zero sum (unknown content) is never looked up.
func (c *Core) transcribe(audioURL *string, sum [sha256.Size]byte) ([]TranscriptLine, bool) {
	if audioURL != nil && c.deps.Transcribe != nil {
		if lines, ok := c.deps.Transcribe(*audioURL); ok {
			return lines, true
		}
	}
	if sum != ([sha256.Size]byte{}) && c.deps.TranscribeContent != nil {
		return c.deps.TranscribeContent(sum)
	}
	return nil, false
}

func (c *Core) failLocked(r *Report, reason string, now time.Time) {
	c.setStatusLocked(r, StatusFailed, reason, now)
	r.FailureReason, r.estimatedEnd = reason, time.Time{}
	c.unholdLocked(r.Workspace, r.upload.size())
	r.upload = nil
	c.touchLocked(r, now)
	c.reportFinishedLocked(r, now)
}

// complete judges the measured audio, charges the workspace and marks the report COMPLETE.
func (c *Core) complete(id uuid.UUID, now time.Time) {
	defer c.FlushNotices()
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.reports[id]
	if r == nil || r.Status != StatusInProgress || r.Measurement == nil {
		return
	}
	c.judgeLocked(r)
	if r.Name == nil {
		r.Name = c.reportNameLocked(r)
	}
	if r.heardOK && r.Standard.TranscriptIncluded {
		r.Transcript = labelSpeakers(r.heard)
	}
	charged := c.chargeLocked(c.workspaces[r.Workspace], CostOf(r.Measurement.Duration), now)
	r.CreditsCharged = &charged
	c.setStatusLocked(r, StatusComplete, "", now)
	r.estimatedEnd = time.Time{}
	c.touchLocked(r, now)
	c.reportFinishedLocked(r, now)
}

// reportNameLocked applies the name rule: the audio's title tag, else the episode title, else
// the file name.
func (c *Core) reportNameLocked(r *Report) *string {
	if r.Measurement != nil && r.Measurement.Title != "" {
		return ptr(r.Measurement.Title)
	}
	if r.Episode != nil {
		if e := c.episodes[*r.Episode]; e != nil && e.Title != nil {
			return ptr(*e.Title)
		}
	}
	return ptr(r.OriginalFilename)
}

// RenderStamp is what a finished report's rendering depends on: the state's generation (a
// reset makes a new one, so no rendering of the old state matches a stamp of the new), the
// report's version, and the titles and feed URL of its show and episode, which change apart
// from it.
type RenderStamp struct {
	Gen     uint64
	Version uint64
	// Show is false for a report without a show and episode, or whose show or episode is gone.
	Show                        bool
	FeedURL                     string
	SeriesTitle, EpisodeTitle   string
	SeriesTitled, EpisodeTitled bool
}

// RenderStampOf is the RenderStamp of r, a report GetReport returned, as the state is now.
func (c *Core) RenderStampOf(r Report) RenderStamp {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return RenderStamp{Gen: c.gen, Version: r.Version}.withShowLocked(c, r.Series, r.Episode)
}

// withShowLocked is st with the show part of series and episode.
func (st RenderStamp) withShowLocked(c *Core, series, episode *uuid.UUID) RenderStamp {
	if series == nil || episode == nil {
		return st
	}
	s, e := c.series[*series], c.episodes[*episode]
	if s == nil || e == nil {
		return st
	}
	st.Show, st.FeedURL = true, s.FeedURL
	if s.Title != nil {
		st.SeriesTitle, st.SeriesTitled = *s.Title, true
	}
	if e.Title != nil {
		st.EpisodeTitle, st.EpisodeTitled = *e.Title, true
	}
	return st
}

// GetReport returns one of the workspace's reports.
func (c *Core) GetReport(p Principal, id uuid.UUID) (Report, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	p, _, err := c.principalLocked(p, c.clock.Now())
	if err != nil {
		return Report{}, err
	}
	r, ok := c.reports[id]
	if !ok || r.Workspace != p.Workspace.ID {
		return Report{}, ErrNotFound("Report")
	}
	return c.shownLocked(r), nil
}

// shownLocked is r as the APIs show it: a report not yet complete (or failed) carries the name
// its audio and episode give it, which completion settles (reportNameLocked). Every read of a
// report, one or a list, goes through it, so a list item and its own GET agree.
func (c *Core) shownLocked(r *Report) Report {
	out := *r
	if out.Name == nil && out.Status != StatusComplete && out.Recorded == nil {
		out.Name = c.reportNameLocked(r)
	}
	return out
}

// ReportFilter narrows ListReports.
type ReportFilter struct {
	SeriesID     *uuid.UUID
	Status       string
	CreatedSince *time.Time
	UpdatedSince *time.Time
}

// ListReports lists the workspace's reports newest first by created_at. A page reads about the
// reports it holds, however many the workspace has and however deep offset goes when the
// previous page of the listing was read (see listing.go). The error is a refusal of a principal
// admitted before a reset (see principalLocked).
func (c *Core) ListReports(p Principal, f ReportFilter, limit, offset int) (Page[Report], error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	p, _, err := c.principalLocked(p, c.clock.Now())
	if err != nil {
		return Page[Report]{}, err
	}
	page := Page[Report]{Items: []Report{}, Limit: limit, Offset: offset}
	limit, offset = max(limit, 0), max(offset, 0)
	idx := c.reportIdx[p.Workspace.ID]
	if idx == nil {
		return page, nil
	}
	q, l := idx.queryLocked(f.SeriesID, f.Status)
	if l == nil {
		return page, nil
	}
	if f.CreatedSince != nil {
		q.hasCreated, q.createdSince = true, *f.CreatedSince
	}
	if f.UpdatedSince != nil {
		q.hasUpdated, q.updatedSince = true, *f.UpdatedSince
	}
	// At most what the list holds of the status past offset: one allocation, never more than
	// the reports there are, however large the limit.
	page.Items = make([]Report, 0, min(limit, max(0, l.total(q.st)-offset)))
	hi, skip, slot := idx.cursors.best(q, offset, len(l.reports))
	last := -1
	visited := l.walk(q, hi, skip, limit+1, func(r *Report, pos int) {
		if len(page.Items) == limit {
			page.HasMore = true
			return
		}
		page.Items = append(page.Items, c.shownLocked(r))
		last = pos
	})
	c.listVisits.Add(uint64(visited))
	if limit > 0 && len(page.Items) == limit {
		idx.cursors.keep(q, last, offset+limit, slot)
	}
	return page, nil
}

// queryLocked is the listing of the reports of series (nil: all) and status (empty: any), and
// the list it reads; the list is nil when nothing can match.
func (idx *reportIndex) queryLocked(series *uuid.UUID, status string) (listQuery, *reportList) {
	q := listQuery{st: -1}
	if status != "" {
		if q.st = statusNumber(status); q.st < 0 {
			return q, nil
		}
	}
	if series == nil {
		return q, &idx.all
	}
	q.side, q.series = seriesSide, *series
	return q, idx.series[*series]
}

// labelSpeakers names speakers "Speaker 1", "Speaker 2"... in order of first appearance; a line
// without a speaker keeps none.
func labelSpeakers(lines []TranscriptLine) []TranscriptLine {
	out := make([]TranscriptLine, len(lines))
	names := map[string]string{}
	for i, l := range lines {
		out[i] = l
		if l.Speaker == nil {
			continue
		}
		name, ok := names[*l.Speaker]
		if !ok {
			name = fmt.Sprintf("Speaker %d", len(names)+1)
			names[*l.Speaker] = name
		}
		out[i].Speaker = &name
	}
	return out
}
