package poller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/podqa/podqa-go/client"
)

// Completion is one completed report handed to the handler.
type Completion struct {
	// Item is the report as the listing shows it.
	Item client.ReportListItem
	// Report is the full report read just before the call, with its current verdict; nil
	// unless the poller was made WithFetchReports.
	Report *client.Report
}

// Handler processes one completed report. It returns nil once the report is dealt with; an
// error leaves the watermark below the report, so that the next poll offers it again. A
// handler that can never succeed on a report pins the watermark there: handle permanent
// failures (log them, park the report) and return nil.
type Handler func(ctx context.Context, c Completion) error

// HandlerError is a handler's failure on one report; PollOnce and Run return it joined with the
// poll's other errors. Use errors.As to read it.
type HandlerError struct {
	// ReportID is the report the handler failed on; UpdatedAt its updated_at.
	ReportID, UpdatedAt string
	// Err is the handler's error.
	Err error
}

// Error describes the failure.
func (e *HandlerError) Error() string {
	return fmt.Sprintf("poller: handler failed on report %s (updated_at %s): %v", e.ReportID, e.UpdatedAt, e.Err)
}

// Unwrap returns the handler's error.
func (e *HandlerError) Unwrap() error { return e.Err }

// PollResult says what one poll did.
type PollResult struct {
	// Since is the watermark the poll read from; Watermark the one it left for the next poll
	// (equal to Since when paging could not be finished).
	Since, Watermark string
	// Pages is how many list requests were answered.
	Pages int
	// Listed counts the rows of every page; Duplicates the rows skipped because their report
	// was delivered before (the overlap, or a row pushed onto the next page).
	Listed, Duplicates int
	// Delivered counts handler calls that succeeded; Failed those that returned an error.
	Delivered, Failed int
	// Complete is true when paging reached the end of the listing.
	Complete bool
	// RetryAfter is the wait a 429 asked for when one ended the poll.
	RetryAfter time.Duration
	// Err is every error of the poll, joined (also returned by PollOnce).
	Err error

	// fatal marks an error that another poll cannot cure, which ends Run.
	fatal bool
}

// Stats are a poller's totals since New.
type Stats struct {
	// Polls counts polls; FailedPolls those that returned an error.
	Polls, FailedPolls int64
	// Pages counts list requests answered; Listed their rows; Duplicates the rows skipped as
	// already delivered.
	Pages, Listed, Duplicates int64
	// Delivered counts successful handler calls; HandlerFailures the failed ones.
	Delivered, HandlerFailures int64
	// Watermark is the current watermark ("" before the first poll loaded it).
	Watermark string
	// LastPoll is the result of the latest poll.
	LastPoll PollResult
}

// Poller watches a workspace for completed reports by polling the REST report list with an
// updated_since watermark. Its methods are safe for concurrent use; polls run one at a time.
type Poller struct {
	c     *client.Client
	store Store
	cfg   config

	// sem admits one poll at a time; the fields below belong to the poll holding it.
	sem       chan struct{}
	loaded    bool
	watermark time.Time
	seen      map[string]time.Time

	statsMu sync.Mutex
	stats   Stats
}

// New returns a poller reading through c and keeping its state in store. It does not call the
// service or the store; the first poll loads the state.
func New(c *client.Client, store Store, opts ...Option) (*Poller, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: nil *client.Client", ErrInvalidOption)
	}
	if store == nil {
		return nil, fmt.Errorf("%w: nil Store", ErrInvalidOption)
	}
	cfg := config{
		interval: DefaultInterval, checkInterval: true, jitter: DefaultJitter, overlap: DefaultOverlap,
		maxRetryAfter: DefaultMaxRetryAfter, clock: realClock{}, randomFraction: rand.Float64,
	}
	for _, opt := range opts {
		if err := opt(&cfg); err != nil {
			return nil, err
		}
	}
	return &Poller{c: c, store: store, cfg: cfg, sem: make(chan struct{}, 1)}, nil
}

// Stats returns the poller's totals.
func (p *Poller) Stats() Stats {
	p.statsMu.Lock()
	defer p.statsMu.Unlock()
	return p.stats
}

// Run polls at once and then after every interval (with jitter) until ctx ends, when it returns
// ctx's error. A failed poll is logged and reported to WithProgress, and the next one comes at
// the usual time (later when a 429 asked for more); Run returns early only for what another
// poll cannot cure: no watermark, an unreadable store, or a 4xx other than 429 (such as a
// disabled key) from the listing.
func (p *Poller) Run(ctx context.Context, h Handler) error {
	if h == nil {
		return fmt.Errorf("%w: nil Handler", ErrInvalidOption)
	}
	for {
		res, err := p.PollOnce(ctx, h)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil && res.fatal {
			return err
		}
		if err := p.cfg.clock.Sleep(ctx, p.nextPause(res)); err != nil {
			return err
		}
	}
}

// nextPause is the pause after a poll: the interval plus jitter, within the bounds unless
// overridden, and never shorter than a Retry-After that ended the poll.
func (p *Poller) nextPause(res PollResult) time.Duration {
	d := p.cfg.interval + time.Duration(p.cfg.jitter*p.cfg.randomFraction()*float64(p.cfg.interval))
	if p.cfg.checkInterval {
		d = min(max(d, MinInterval), MaxInterval)
	}
	return max(d, res.RetryAfter)
}

// PollOnce runs one poll, for callers with their own scheduler: it reads every page of
// GET /reports?status=COMPLETE&updated_since=<watermark>&limit=100, hands each report not
// delivered before to h, and saves the new watermark and the reports delivered. When paging
// cannot be finished it keeps the old watermark (and still saves what was delivered, so that it
// is not delivered again). A call waits while another poll runs.
func (p *Poller) PollOnce(ctx context.Context, h Handler) (PollResult, error) {
	if h == nil {
		return PollResult{}, fmt.Errorf("%w: nil Handler", ErrInvalidOption)
	}
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return PollResult{}, ctx.Err()
	}
	defer func() { <-p.sem }()

	var res PollResult
	if err := p.load(ctx); err != nil {
		res = PollResult{Err: err, fatal: true}
	} else {
		res = p.poll(ctx, h)
	}
	p.record(ctx, res)
	return res, res.Err
}

// load reads the stored state once.
func (p *Poller) load(ctx context.Context) error {
	if p.loaded {
		return nil
	}
	st, err := p.store.Load(ctx)
	if err != nil {
		return fmt.Errorf("poller: loading the state: %w", err)
	}
	w := st.Watermark
	if w == "" {
		if len(st.Seen) > 0 {
			return fmt.Errorf("%w: the stored state lists seen reports but no watermark", ErrCorruptState)
		}
		w = p.cfg.start
	}
	wm, err := parseWatermark(w)
	if err != nil {
		return fmt.Errorf("poller: the stored watermark: %w", err)
	}
	seen := make(map[string]time.Time, len(st.Seen))
	for _, s := range st.Seen {
		t, err := parseWatermark(s.UpdatedAt)
		if err != nil {
			return fmt.Errorf("%w: seen report %s: %w", ErrCorruptState, s.ID, err)
		}
		if t.After(wm) {
			seen[s.ID] = t
		}
	}
	p.watermark, p.seen, p.loaded = wm, seen, true
	return nil
}

// poll is one poll; the caller holds sem and has loaded the state.
func (p *Poller) poll(ctx context.Context, h Handler) PollResult {
	since := p.watermark
	res := PollResult{Since: client.FormatTime(since)}
	var started time.Time // when the request that returned the first page was sent
	var (
		top, firstTop time.Time // highest updated_at over all pages, and over the first
		lowestFailed  time.Time // lowest updated_at of a failed handler call
		errs          []error
		stop          error // why paging stopped early
		rateWaits     int
		offset        int
		failedNow     = map[string]bool{} // reports whose handler failed in this poll
	)
paging:
	for {
		sent := p.cfg.clock.Now()
		page, err := p.c.ListReports(ctx, client.ListReportsParams{
			Status: client.StatusComplete, UpdatedSince: since, Limit: PageSize, Offset: offset,
		})
		if err != nil {
			if wait, ok := p.rateLimitWait(err); ok && rateWaits < maxRateLimitWaits {
				rateWaits++
				p.logf(ctx, slog.LevelInfo, "poller: rate limited, waiting", slog.Duration("retry_after", wait), slog.Int("offset", offset))
				if err := p.cfg.clock.Sleep(ctx, wait); err != nil {
					stop = err
					break
				}
				continue
			}
			stop = err
			// Only the listing decides that polling cannot go on: a GET of one report
			// that fails (even with a 4xx) ends this poll alone.
			res.fatal = isFatal(err)
			break
		}
		res.Pages++
		if res.Pages == 1 {
			started = sent // a wait for a Retry-After before it does not count as paging time
		}
		for _, it := range page.Items {
			res.Listed++
			at := it.UpdatedAt.UTC().Truncate(time.Microsecond)
			top = later(top, at)
			if res.Pages == 1 {
				firstTop = later(firstTop, at)
			}
			if _, dup := p.seen[it.ID]; dup || failedNow[it.ID] {
				res.Duplicates++
				continue
			}
			if err := ctx.Err(); err != nil {
				stop = err
				break paging
			}
			c := Completion{Item: it}
			if p.cfg.fetchReports {
				r, err := p.c.GetReport(ctx, it.ID)
				if err != nil {
					stop = fmt.Errorf("reading report %s: %w", it.ID, err)
					break paging
				}
				c.Report = r
			}
			if err := h(ctx, c); err != nil {
				res.Failed++
				failedNow[it.ID] = true
				if lowestFailed.IsZero() || at.Before(lowestFailed) {
					lowestFailed = at
				}
				he := &HandlerError{ReportID: it.ID, UpdatedAt: client.FormatTime(at), Err: err}
				errs = append(errs, he)
				p.logf(ctx, slog.LevelWarn, "poller: handler failed", slog.String("report_id", it.ID), slog.String("error", err.Error()))
				if ctx.Err() != nil {
					stop = ctx.Err()
					break paging
				}
				continue
			}
			p.seen[it.ID] = at
			res.Delivered++
		}
		if !page.HasMore || len(page.Items) == 0 {
			res.Complete = true
			break
		}
		offset += len(page.Items)
	}

	next := since
	if res.Complete && !top.IsZero() {
		next = p.nextWatermark(since, top, firstTop, res.Pages, p.cfg.clock.Now().Sub(started))
		if !lowestFailed.IsZero() && !next.Before(lowestFailed) {
			// Never past a report whose handler failed: stay just below it.
			next = later(since, lowestFailed.Add(-time.Microsecond))
		}
	}
	if stop != nil {
		var ae *client.APIError
		if errors.As(stop, &ae) && ae.StatusCode == http.StatusTooManyRequests {
			res.RetryAfter = ae.RetryAfter
		}
		errs = append([]error{fmt.Errorf("poller: poll from %s stopped after %d page(s), watermark kept: %w", res.Since, res.Pages, stop)}, errs...)
	}
	p.watermark = next
	for id, at := range p.seen {
		if !at.After(next) {
			delete(p.seen, id) // the next poll cannot list it again
		}
	}
	res.Watermark = client.FormatTime(next)
	if err := p.store.Save(context.WithoutCancel(ctx), p.state()); err != nil {
		errs = append(errs, fmt.Errorf("poller: saving the state: %w", err))
	}
	res.Err = errors.Join(errs...)
	return res
}

// nextWatermark is where the next poll starts after a poll that read every page.
//
// A single page is one consistent reading of the listing, so its highest updated_at (top) is
// safe. Across several pages, a report that completes while the poll pages lands at its place
// by created_at, possibly on a page already read, while a later page shows a report with a
// higher updated_at: the watermark must stay at or below the instant the first page was read,
// which every missed report's updated_at exceeds. Two lower bounds of that instant are known:
// the highest updated_at of the first page (firstTop), and top minus the time paging took
// (the service stamped top no later than the last page, which came at most elapsed after the
// first). The higher of the two is used, less the overlap; never below since.
func (p *Poller) nextWatermark(since, top, firstTop time.Time, pages int, elapsed time.Duration) time.Time {
	safe := top
	if pages > 1 {
		safe = later(firstTop, top.Add(-max(elapsed, 0)))
	}
	return later(since, safe.Add(-p.cfg.overlap).Truncate(time.Microsecond))
}

// state is what the store keeps, the seen reports sorted for a stable file.
func (p *Poller) state() State {
	st := State{Watermark: client.FormatTime(p.watermark), Seen: make([]SeenReport, 0, len(p.seen))}
	for id, at := range p.seen {
		st.Seen = append(st.Seen, SeenReport{ID: id, UpdatedAt: client.FormatTime(at)})
	}
	slices.SortFunc(st.Seen, func(a, b SeenReport) int {
		return strings.Compare(a.UpdatedAt+a.ID, b.UpdatedAt+b.ID)
	})
	return st
}

// rateLimitWait returns the Retry-After of a 429 the poll may wait out.
func (p *Poller) rateLimitWait(err error) (time.Duration, bool) {
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusTooManyRequests {
		return 0, false
	}
	return ae.RetryAfter, ae.RetryAfter > 0 && ae.RetryAfter <= p.cfg.maxRetryAfter
}

// isFatal reports whether a poll's stop cannot be cured by polling again: a 4xx other than 429.
func isFatal(err error) bool {
	var ae *client.APIError
	return errors.As(err, &ae) && ae.StatusCode >= 400 && ae.StatusCode < 500 && ae.StatusCode != http.StatusTooManyRequests
}

// record adds a poll to the stats, logs it and reports it.
func (p *Poller) record(ctx context.Context, res PollResult) {
	p.statsMu.Lock()
	s := &p.stats
	s.Polls++
	if res.Err != nil {
		s.FailedPolls++
	}
	s.Pages += int64(res.Pages)
	s.Listed += int64(res.Listed)
	s.Duplicates += int64(res.Duplicates)
	s.Delivered += int64(res.Delivered)
	s.HandlerFailures += int64(res.Failed)
	if res.Watermark != "" {
		s.Watermark = res.Watermark
	}
	s.LastPoll = res
	p.statsMu.Unlock()

	attrs := []slog.Attr{
		slog.String("since", res.Since), slog.String("watermark", res.Watermark), slog.Int("pages", res.Pages),
		slog.Int("delivered", res.Delivered), slog.Int("duplicates", res.Duplicates), slog.Int("failed", res.Failed),
	}
	if res.Err != nil {
		p.logf(ctx, slog.LevelWarn, "poller: poll failed", append(attrs, slog.String("error", res.Err.Error()))...)
	} else {
		p.logf(ctx, slog.LevelInfo, "poller: poll done", attrs...)
	}
	if p.cfg.progress != nil {
		p.cfg.progress(res)
	}
}

func (p *Poller) logf(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	if p.cfg.log != nil {
		p.cfg.log.LogAttrs(ctx, level, msg, attrs...)
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
