package poller

import (
	"cmp"
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
// When its Store is a LeaseStore, polls also run one at a time across every poller sharing it.
type Poller struct {
	c      *client.Client
	store  Store
	leases LeaseStore // store, when it is one; nil otherwise
	cfg    config

	// sem admits one poll at a time; the fields below belong to the poll holding it.
	sem       chan struct{}
	loaded    bool
	watermark time.Time
	seen      map[string]time.Time
	lastToken int64 // token of the lease the state was loaded under

	statsMu sync.Mutex
	stats   Stats
}

// New returns a poller reading through c and keeping its state in store. It does not call the
// service or the store; the first poll loads the state. When store is a LeaseStore, the poller
// polls only while it holds the store's lease (see LeaseStore, WithLeaseTTL).
func New(c *client.Client, store Store, opts ...Option) (*Poller, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: nil *client.Client", ErrInvalidOption)
	}
	if store == nil {
		return nil, fmt.Errorf("%w: nil Store", ErrInvalidOption)
	}
	cfg := config{
		interval: DefaultInterval, checkInterval: true, jitter: DefaultJitter, overlap: DefaultOverlap,
		maxRetryAfter: DefaultMaxRetryAfter, clock: c.Clock(), randomFraction: rand.Float64,
		lease: defaultLeaseConfig(),
	}
	for _, opt := range opts {
		if err := opt(&cfg); err != nil {
			return nil, err
		}
	}
	ls, _ := store.(LeaseStore)
	return &Poller{c: c, store: store, leases: ls, cfg: cfg, sem: make(chan struct{}, 1)}, nil
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
// poll cannot cure: no watermark, a corrupt stored state, or a 4xx other than 429 (such as a
// disabled key) from the listing.
//
// On a LeaseStore, Run first takes the lease, waiting while another poller holds it (it tries
// again when that lease would expire, so it takes over within one TTL of the holder's death),
// and keeps it renewed through its polls and pauses. If the lease is lost, the poll in progress
// stops before saving and Run waits for the lease again. Run gives the lease up when it returns.
func (p *Poller) Run(ctx context.Context, h Handler) error {
	if h == nil {
		return fmt.Errorf("%w: nil Handler", ErrInvalidOption)
	}
	if p.leases == nil {
		for {
			res, err := p.pollOnce(ctx, h, nil)
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
	var hd *hold
	defer func() {
		if hd != nil {
			p.end(p.leases, hd, true)
		}
	}()
	for {
		if hd != nil && hd.ctx.Err() != nil { // lost: stand by
			p.logf(ctx, slog.LevelWarn, "poller: lease lost", slog.String("error", context.Cause(hd.ctx).Error()))
			p.end(p.leases, hd, false)
			hd = nil
		}
		if hd == nil {
			var err error
			if hd, err = p.takeLease(ctx, p.leases); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if err := p.cfg.lease.clock.Sleep(ctx, p.standBy(ctx, err)); err != nil {
					return err
				}
				continue
			}
		}
		res, err := p.pollOnce(hd.ctx, h, &hd.lease)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if hd.ctx.Err() != nil {
			continue
		}
		if err != nil && res.fatal {
			return err
		}
		if err := p.cfg.clock.Sleep(hd.ctx, p.nextPause(res)); err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// standBy is how long Run waits before trying the lease again after err: until the holder's
// lease would expire (it is then renewed, or free), or a third of the TTL after a store error.
func (p *Poller) standBy(ctx context.Context, err error) time.Duration {
	var held *LeaseHeldError
	if errors.As(err, &held) {
		return min(max(held.Remaining, time.Millisecond), p.cfg.lease.ttl)
	}
	p.logf(ctx, slog.LevelWarn, "poller: cannot take the lease", slog.String("error", err.Error()))
	return p.cfg.lease.ttl / 3
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
// is not delivered again). A call waits while another poll of this Poller runs.
//
// On a LeaseStore, PollOnce takes the lease first and gives it up when done; while another
// poller holds it, PollOnce returns at once with a *LeaseHeldError (errors.Is ErrLeaseHeld).
func (p *Poller) PollOnce(ctx context.Context, h Handler) (PollResult, error) {
	if h == nil {
		return PollResult{}, fmt.Errorf("%w: nil Handler", ErrInvalidOption)
	}
	if p.leases == nil {
		return p.pollOnce(ctx, h, nil)
	}
	// The lease is taken and given up inside sem, so that concurrent calls on this Poller
	// do not give up each other's lease.
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return PollResult{}, ctx.Err()
	}
	defer func() { <-p.sem }()
	hd, err := p.takeLease(ctx, p.leases)
	if err != nil {
		res := PollResult{Err: err}
		p.record(ctx, res)
		return res, err
	}
	defer p.end(p.leases, hd, true)
	return p.pollLocked(hd.ctx, h, &hd.lease)
}

// pollOnce runs one poll under sem, under lease when not nil.
func (p *Poller) pollOnce(ctx context.Context, h Handler, lease *Lease) (PollResult, error) {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return PollResult{}, ctx.Err()
	}
	defer func() { <-p.sem }()
	return p.pollLocked(ctx, h, lease)
}

// pollLocked runs one poll; the caller holds sem.
func (p *Poller) pollLocked(ctx context.Context, h Handler, lease *Lease) (PollResult, error) {
	if lease != nil && lease.Token != p.lastToken {
		// The lease changed hands since the state was loaded: another poller may have
		// moved it.
		p.loaded, p.lastToken = false, lease.Token
	}
	var res PollResult
	if err := p.load(ctx); err != nil {
		// A shared store that cannot be reached may come back; a state that cannot be
		// read will not.
		fatal := lease == nil || errors.Is(err, ErrCorruptState) || errors.Is(err, ErrNoWatermark) || errors.Is(err, ErrInvalidWatermark)
		res = PollResult{Err: err, fatal: fatal}
	} else {
		res = p.poll(ctx, h, lease)
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

// pollRun is the working state of one poll, shared by its three steps: paging, delivery and
// the watermark commit.
type pollRun struct {
	res           PollResult
	since         time.Time
	started       time.Time // when the request that returned the first page was sent
	top, firstTop time.Time // highest updated_at over all pages, and over the first
	lowestFailed  time.Time // lowest updated_at of a failed handler call
	errs          []error
	stop          error           // why paging stopped early
	failedNow     map[string]bool // reports whose handler failed in this poll
}

// poll is one poll; the caller holds sem and has loaded the state.
func (p *Poller) poll(ctx context.Context, h Handler, lease *Lease) PollResult {
	run := &pollRun{since: p.watermark, failedNow: map[string]bool{}}
	run.res.Since = client.FormatTime(run.since)
	p.page(ctx, run, func(items []client.ReportListItem, more bool) bool {
		before := run.res.Delivered
		if !p.deliver(ctx, h, run, items) {
			return false
		}
		if lease != nil && more && run.res.Delivered > before {
			return p.checkpoint(ctx, run, lease)
		}
		return true
	})
	p.commit(ctx, run, lease)
	run.res.Err = errors.Join(run.errs...)
	return run.res
}

// page reads every page of the listing from run.since, handing each to deliver (with whether
// more pages follow), which returns false to stop. It waits out a short Retry-After; any other
// failure ends paging in run.stop.
func (p *Poller) page(ctx context.Context, run *pollRun, deliver func(items []client.ReportListItem, more bool) bool) {
	rateWaits, offset := 0, 0
	for {
		sent := p.cfg.clock.Now()
		page, err := p.c.ListReports(ctx, client.ListReportsParams{
			Status: client.StatusComplete, UpdatedSince: run.since, Limit: PageSize, Offset: offset,
		})
		if err != nil {
			if wait, ok := p.rateLimitWait(err); ok && rateWaits < maxRateLimitWaits {
				rateWaits++
				p.logf(ctx, slog.LevelInfo, "poller: rate limited, waiting", slog.Duration("retry_after", wait), slog.Int("offset", offset))
				if err := p.cfg.clock.Sleep(ctx, wait); err != nil {
					run.stop = err
					return
				}
				continue
			}
			run.stop = err
			// Only the listing decides that polling cannot go on: a GET of one report
			// that fails (even with a 4xx) ends this poll alone.
			run.res.fatal = isFatal(err)
			return
		}
		run.res.Pages++
		if run.res.Pages == 1 {
			run.started = sent // a wait for a Retry-After before it does not count as paging time
		}
		if !deliver(page.Items, page.HasMore && len(page.Items) > 0) {
			return
		}
		if !page.HasMore || len(page.Items) == 0 {
			run.res.Complete = true
			return
		}
		offset += len(page.Items)
	}
}

// deliver hands a page's reports not delivered before to h, noting the page's updated_at
// bounds. It returns false when the poll must stop (run.stop says why).
func (p *Poller) deliver(ctx context.Context, h Handler, run *pollRun, items []client.ReportListItem) bool {
	for _, it := range items {
		run.res.Listed++
		at := it.UpdatedAt.UTC().Truncate(time.Microsecond)
		run.top = later(run.top, at)
		if run.res.Pages == 1 {
			run.firstTop = later(run.firstTop, at)
		}
		if _, dup := p.seen[it.ID]; dup || run.failedNow[it.ID] {
			run.res.Duplicates++
			continue
		}
		if err := ctx.Err(); err != nil {
			run.stop = context.Cause(ctx)
			return false
		}
		c := Completion{Item: it}
		if p.cfg.fetchReports {
			r, err := p.c.GetReport(ctx, it.ID)
			if err != nil {
				run.stop = fmt.Errorf("reading report %s: %w", it.ID, err)
				return false
			}
			c.Report = r
		}
		if err := h(ctx, c); err != nil {
			run.res.Failed++
			run.failedNow[it.ID] = true
			if run.lowestFailed.IsZero() || at.Before(run.lowestFailed) {
				run.lowestFailed = at
			}
			run.errs = append(run.errs, &HandlerError{ReportID: it.ID, UpdatedAt: client.FormatTime(at), Err: err})
			p.logf(ctx, slog.LevelWarn, "poller: handler failed", slog.String("report_id", it.ID), slog.String("error", err.Error()))
			if ctx.Err() != nil {
				run.stop = context.Cause(ctx)
				return false
			}
			continue
		}
		p.seen[it.ID] = at
		run.res.Delivered++
	}
	return true
}

// checkpoint saves, under a lease, the reports delivered so far with the old watermark after
// a page that is not the last, so that a poller taking over from one that died mid-poll
// delivers again at most the reports of the page it died in. A failure stops the poll.
func (p *Poller) checkpoint(ctx context.Context, run *pollRun, lease *Lease) bool {
	err := leaseLost(ctx)
	if err == nil {
		err = p.leases.SaveFenced(ctx, *lease, p.state())
	}
	if err != nil {
		run.stop = fmt.Errorf("saving the reports delivered so far: %w", err)
		return false
	}
	return true
}

// commit moves the watermark after a poll and saves the state: past everything read when
// paging finished (never past a failed report), kept otherwise. Under a lease the save is
// fenced; a poller that lost its lease saves nothing and reloads the state on its next lease.
func (p *Poller) commit(ctx context.Context, run *pollRun, lease *Lease) {
	next := run.since
	if run.res.Complete && !run.top.IsZero() {
		next = p.nextWatermark(run.since, run.top, run.firstTop, run.res.Pages, p.cfg.clock.Now().Sub(run.started))
		if !run.lowestFailed.IsZero() && !next.Before(run.lowestFailed) {
			// Never past a report whose handler failed: stay just below it.
			next = later(run.since, run.lowestFailed.Add(-time.Microsecond))
		}
	}
	if run.stop != nil {
		var ae *client.APIError
		if errors.As(run.stop, &ae) && ae.StatusCode == http.StatusTooManyRequests {
			run.res.RetryAfter = ae.RetryAfter
		}
		run.errs = append([]error{fmt.Errorf("poller: poll from %s stopped after %d page(s), watermark kept: %w", run.res.Since, run.res.Pages, run.stop)}, run.errs...)
	}
	p.watermark = next
	for id, at := range p.seen {
		if !at.After(next) {
			delete(p.seen, id) // the next poll cannot list it again
		}
	}
	run.res.Watermark = client.FormatTime(next)
	if lease == nil {
		if err := p.store.Save(context.WithoutCancel(ctx), p.state()); err != nil {
			run.errs = append(run.errs, fmt.Errorf("poller: saving the state: %w", err))
		}
		return
	}
	err := leaseLost(ctx)
	if err == nil {
		// Saved even if the poll was cancelled, but never later than the lease could last.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.cfg.lease.ttl)
		err = p.leases.SaveFenced(sctx, *lease, p.state())
		cancel()
	}
	if err != nil {
		// Nothing of this poll is known to be stored: forget it, so that the next poll under a
		// lease starts from the store (the old watermark; reports of this poll may come again).
		p.loaded = false
		run.res.Watermark = run.res.Since
		run.errs = append(run.errs, fmt.Errorf("poller: saving the state: %w", err))
	}
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
		// The fixed form has one length, so this is the order of UpdatedAt+ID as text.
		return cmp.Or(strings.Compare(a.UpdatedAt, b.UpdatedAt), strings.Compare(a.ID, b.ID))
	})
	return st
}

// rateLimitWait returns the Retry-After of a 429 the poll may wait out.
func (p *Poller) rateLimitWait(err error) (time.Duration, bool) {
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusTooManyRequests {
		return 0, false // a 503 ends the poll: the next poll tries again
	}
	wait, ok := client.RetryAfter(err)
	return wait, ok && wait <= p.cfg.maxRetryAfter
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
