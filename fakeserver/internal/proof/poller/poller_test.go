package pollerproof_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/poller"
)

func at(d time.Duration) string { return client.FormatTime(fakeserver.TestStart().Add(d)) }

// TestOutOfCreationOrder checks that reports finishing out of creation order are each
// delivered once, and that the watermark is the highest updated_at less the overlap.
func TestOutOfCreationOrder(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ids := h.seedReports(minutes(5, 1, 3, 2, 4)...)
	p := h.newPoller(nil)
	rec := newRecorder()

	h.advance(2 * time.Minute)
	res, err := p.PollOnce(t.Context(), rec.handle)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.order, []string{ids[3], ids[1]}) {
		t.Fatalf("first poll delivered %v, want %v (newest created first)", rec.order, []string{ids[3], ids[1]})
	}
	if want := at(2*time.Minute - time.Second); res.Watermark != want || res.Since != at(0) {
		t.Fatalf("since %s watermark %s, want %s then %s", res.Since, res.Watermark, at(0), want)
	}
	h.advance(3 * time.Minute)
	res, err = p.PollOnce(t.Context(), rec.handle)
	if err != nil {
		t.Fatal(err)
	}
	rec.check(t, ids)
	// The overlap re-reads the report at the previous top, ids[3], and skips it by id.
	if res.Pages != 1 || h.lists() != 2 || res.Duplicates != 1 || res.Delivered != 3 {
		t.Fatalf("pages %d, lists %d, duplicates %d, delivered %d; want one list request per poll and only the overlap re-read", res.Pages, h.lists(), res.Duplicates, res.Delivered)
	}
	if st := p.Stats(); st.Polls != 2 || st.Delivered != 5 || st.Pages != 2 || st.Watermark != at(5*time.Minute-time.Second) {
		t.Fatalf("stats = %+v", st)
	}
}

// TestWatermarkSeeding checks that the first watermark must be given, that any zoned form is
// stored in the fixed +00:00 form, and that a stored watermark wins over the start option.
func TestWatermarkSeeding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		stored    poller.State
		opts      []poller.Option
		wantSince string
		wantErr   error
	}{
		{name: "nothing given", wantErr: poller.ErrNoWatermark},
		{name: "Z seed", opts: []poller.Option{poller.WithStartWatermark("2026-01-05T08:00:00Z")}, wantSince: "2026-01-05T08:00:00.000000+00:00"},
		{name: "offset seed", opts: []poller.Option{poller.WithStartWatermark("2026-01-05T10:00:00.5+02:00")}, wantSince: "2026-01-05T08:00:00.500000+00:00"},
		{name: "time seed", opts: []poller.Option{poller.WithStartTime(time.Date(2026, 1, 5, 8, 0, 0, 1500, time.UTC))}, wantSince: "2026-01-05T08:00:00.000001+00:00"},
		{name: "stored Z form normalised", stored: poller.State{Watermark: "2026-01-05T07:00:00Z"}, opts: []poller.Option{poller.WithStartWatermark("2026-01-05T08:00:00Z")}, wantSince: "2026-01-05T07:00:00.000000+00:00"},
		{name: "stored garbage", stored: poller.State{Watermark: "yesterday"}, opts: []poller.Option{poller.WithStartWatermark("2026-01-05T08:00:00Z")}, wantErr: poller.ErrInvalidWatermark},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			store := poller.NewMemoryStore()
			if err := store.Save(t.Context(), tt.stored); err != nil {
				t.Fatal(err)
			}
			p, err := poller.New(h.c, store, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.PollOnce(t.Context(), newRecorder().handle)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || h.lists() != 0 {
					t.Fatalf("err = %v after %d requests, want %v before any", err, h.lists(), tt.wantErr)
				}
				return
			}
			if err != nil || res.Since != tt.wantSince {
				t.Fatalf("since %q, err %v; want %q", res.Since, err, tt.wantSince)
			}
			st, _ := store.Load(t.Context())
			if st.Watermark != tt.wantSince {
				t.Fatalf("stored %q, want %q", st.Watermark, tt.wantSince)
			}
		})
	}
}

// TestOptionsRefused checks that bad options are refused by New.
func TestOptionsRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tests := []struct {
		name string
		opt  poller.Option
	}{
		{"empty watermark", poller.WithStartWatermark("")},
		{"zoneless watermark", poller.WithStartWatermark("2026-01-05T09:00:00")},
		{"zero time", poller.WithStartTime(time.Time{})},
		{"interval below five minutes", poller.WithInterval(time.Minute)},
		{"interval above fifteen minutes", poller.WithInterval(16 * time.Minute)},
		{"zero unbounded interval", poller.WithIntervalUnbounded(0)},
		{"lease TTL under 10ms", poller.WithLeaseTTL(time.Millisecond)},
		{"empty holder", poller.WithHolder("")},
		{"negative jitter", poller.WithJitter(-0.1)},
		{"jitter above one", poller.WithJitter(1.5)},
		{"negative overlap", poller.WithOverlap(-time.Second)},
		{"negative max Retry-After", poller.WithMaxRetryAfter(-time.Second)},
		{"nil clock", poller.WithClock(nil)},
	}
	for _, tt := range tests {
		if _, err := poller.New(h.c, poller.NewMemoryStore(), tt.opt); !errors.Is(err, poller.ErrInvalidOption) {
			t.Errorf("%s: err = %v, want ErrInvalidOption", tt.name, err)
		}
	}
	if _, err := poller.New(h.c, poller.NewMemoryStore(), poller.WithStartWatermark("")); !errors.Is(err, poller.ErrNoWatermark) {
		t.Errorf("empty watermark: err = %v, want it to wrap ErrNoWatermark", err)
	}
	if _, err := poller.New(nil, poller.NewMemoryStore()); !errors.Is(err, poller.ErrInvalidOption) {
		t.Errorf("nil client: err = %v", err)
	}
	if _, err := poller.New(h.c, nil); !errors.Is(err, poller.ErrInvalidOption) {
		t.Errorf("nil store: err = %v", err)
	}
	p := h.newPoller(nil)
	if _, err := p.PollOnce(t.Context(), nil); !errors.Is(err, poller.ErrInvalidOption) {
		t.Errorf("nil handler: err = %v", err)
	}
}

// TestPagingInterruptedByFaults checks that a poll whose paging fails part way keeps the old
// watermark, and that the next poll delivers the rest, nothing twice.
func TestPagingInterruptedByFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		want   error
	}{
		{http.StatusServiceUnavailable, client.ErrUnavailable},
		{http.StatusInternalServerError, client.ErrInternal},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			delays := make([]time.Duration, 250)
			for i := range delays {
				delays[i] = time.Minute + time.Duration(i)*time.Millisecond
			}
			ids := h.seedReports(delays...)
			p := h.newPoller(nil)
			rec := newRecorder()
			h.advance(2 * time.Minute)
			// After the first page, fail the second on both of the client's attempts.
			h.before(func(n int) {
				if n == 2 {
					if _, err := h.srv.InjectFault(fakeserver.Fault{Method: "GET", PathPrefix: "/api/rest/v1/reports", Status: tt.status, Count: 2}); err != nil {
						t.Error(err)
					}
				}
			})
			res, err := p.PollOnce(t.Context(), rec.handle)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if res.Complete || res.Watermark != at(0) || res.Delivered != 100 {
				t.Fatalf("interrupted poll: complete %v, watermark %s, delivered %d; want the old watermark %s after 100", res.Complete, res.Watermark, res.Delivered, at(0))
			}
			h.before(nil)
			res, err = p.PollOnce(t.Context(), rec.handle)
			if err != nil {
				t.Fatal(err)
			}
			rec.check(t, ids)
			if res.Delivered != 150 || res.Duplicates != 100 || res.Pages != 3 {
				t.Fatalf("second poll: %+v", res)
			}
			if want := at(time.Minute + 249*time.Millisecond - time.Second); res.Watermark != want {
				t.Fatalf("watermark %s, want %s", res.Watermark, want)
			}
		})
	}
}

// TestRateLimited checks that a 429's Retry-After is waited out on the poller's clock, and that
// one longer than the poller waits ends the poll with the old watermark and delays Run.
func TestRateLimited(t *testing.T) {
	t.Parallel()
	t.Run("waited out", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		ids := h.seedReports(0, 0, 0)
		p := h.newPoller(nil, poller.WithStartTime(h.srv.Now().Add(-time.Minute)))
		h.advance(10 * time.Second)
		// Spend the key's 100 requests of this minute.
		for range 100 {
			if _, err := h.c.Me(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		rec := newRecorder()
		res, err := p.PollOnce(t.Context(), rec.handle)
		if err != nil {
			t.Fatal(err)
		}
		rec.check(t, ids)
		if got := h.clk.slept(); !slices.Equal(got, []time.Duration{50 * time.Second}) {
			t.Fatalf("slept %v, want the Retry-After of 50s to the end of the minute", got)
		}
		if h.lists() != 2 || res.Pages != 1 {
			t.Fatalf("%d list requests, %d pages; want the refused one and its repeat", h.lists(), res.Pages)
		}
	})
	t.Run("too long", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		h.seedReports(0)
		for range 100 {
			if _, err := h.c.Me(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		h.clk.onSleep = func(n int) {
			if n == 2 {
				cancel()
			}
		}
		rec := newRecorder()
		var results []poller.PollResult
		p2, err := poller.New(h.c, poller.NewMemoryStore(), poller.WithClock(h.clk), poller.WithStartTime(h.srv.Now().Add(-time.Minute)),
			poller.WithMaxRetryAfter(30*time.Second), poller.WithIntervalUnbounded(10*time.Second), poller.WithJitter(0),
			poller.WithProgress(func(r poller.PollResult) { results = append(results, r) }))
		if err != nil {
			t.Fatal(err)
		}
		if err := p2.Run(ctx, rec.handle); !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v, want context.Canceled", err)
		}
		if len(results) != 2 || !errors.Is(results[0].Err, client.ErrRateLimited) || results[0].RetryAfter != time.Minute ||
			results[0].Watermark != results[0].Since || results[1].Err != nil || results[1].Delivered != 1 {
			t.Fatalf("results = %+v", results)
		}
		if got := h.clk.slept(); !slices.Equal(got, []time.Duration{time.Minute, 10 * time.Second}) {
			t.Fatalf("Run paused %v, want the Retry-After then the interval", got)
		}
	})
}

// TestRestartFromStoredState checks that a new poller on the same file continues from the
// stored watermark, ignoring its start option, and does not deliver again a report of the
// overlap that the first one delivered.
func TestRestartFromStoredState(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	path := filepath.Join(t.TempDir(), "poller.json")
	ids := h.seedReports(time.Minute, time.Minute+500*time.Millisecond, 10*time.Minute)
	store, err := poller.NewFileStore(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	p1 := h.newPoller(store)
	h.advance(time.Minute)
	res, err := p1.PollOnce(t.Context(), rec.handle)
	if err != nil || res.Delivered != 1 {
		t.Fatalf("first run: %+v, %v", res, err)
	}

	// A restart: a new store on the same file, and a start option that must be ignored.
	store2, err := poller.NewFileStore(path)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := poller.New(h.c, store2, poller.WithClock(h.clk), poller.WithStartWatermark("2025-01-01T00:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	h.advance(time.Second)
	res, err = p2.PollOnce(t.Context(), rec.handle)
	if err != nil {
		t.Fatal(err)
	}
	if res.Since != at(time.Minute-time.Second) || res.Delivered != 1 || res.Duplicates != 1 {
		t.Fatalf("after restart: %+v; want since %s, the overlap's report skipped and one new", res, at(time.Minute-time.Second))
	}
	h.advance(10 * time.Minute)
	if _, err := p2.PollOnce(t.Context(), rec.handle); err != nil {
		t.Fatal(err)
	}
	rec.check(t, ids)
}

// TestHandlerFailure checks that the watermark stays below a report whose handler failed, that
// the other reports are delivered, and that the next poll offers only the failed one again.
func TestHandlerFailure(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ids := h.seedReports(minutes(1, 2, 3)...)
	p := h.newPoller(nil)
	rec := newRecorder()
	boom := errors.New("downstream is down")
	rec.fail = func(c poller.Completion) error {
		if c.Item.ID == ids[1] {
			return boom
		}
		return nil
	}
	h.advance(3 * time.Minute)
	res, err := p.PollOnce(t.Context(), rec.handle)
	var he *poller.HandlerError
	if !errors.Is(err, boom) || !errors.As(err, &he) || he.ReportID != ids[1] {
		t.Fatalf("err = %v, want a HandlerError for %s wrapping the handler's", err, ids[1])
	}
	if want := at(2*time.Minute - time.Microsecond); res.Watermark != want || res.Delivered != 2 || res.Failed != 1 {
		t.Fatalf("poll: %+v; want watermark %s just below the failed report", res, want)
	}
	rec.fail = nil
	res, err = p.PollOnce(t.Context(), rec.handle)
	if err != nil || res.Delivered != 1 || res.Duplicates != 1 {
		t.Fatalf("retry poll: %+v, %v", res, err)
	}
	rec.check(t, ids)
	if res.Watermark != at(3*time.Minute-time.Second) {
		t.Fatalf("watermark %s after the retry", res.Watermark)
	}
}

// TestFetchReports checks that WithFetchReports hands over the full report, one GET each, and
// that a failed GET ends the poll with the old watermark.
func TestFetchReports(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ids := h.seedReports(time.Minute, time.Minute)
	p := h.newPoller(nil, poller.WithFetchReports())
	var full []*client.Report
	handle := func(_ context.Context, c poller.Completion) error {
		if c.Report == nil || c.Report.ID != c.Item.ID {
			return fmt.Errorf("completion without its full report: %+v", c)
		}
		full = append(full, c.Report)
		return nil
	}
	h.advance(time.Minute)
	if _, err := h.srv.InjectFault(fakeserver.Fault{Method: "GET", PathPrefix: "/api/rest/v1/reports/", Status: 500, Count: 2}); err != nil {
		t.Fatal(err)
	}
	res, err := p.PollOnce(t.Context(), handle)
	if !errors.Is(err, client.ErrInternal) || res.Watermark != at(0) || len(full) != 0 {
		t.Fatalf("poll with a failing GET: %+v, %v", res, err)
	}
	res, err = p.PollOnce(t.Context(), handle)
	if err != nil || len(full) != 2 {
		t.Fatalf("poll: %+v, %v", res, err)
	}
	for _, r := range full {
		if r.Status != client.StatusComplete || r.Stats == nil || !r.Stats.Passed {
			t.Fatalf("report %s: status %s, stats %+v", r.ID, r.Status, r.Stats)
		}
	}
	reqs := h.requests()
	if n := reqs["GET /api/rest/v1/reports/"+ids[0]] + reqs["GET /api/rest/v1/reports/"+ids[1]]; n != 4 {
		t.Fatalf("%d GETs of the reports, want 2 failed attempts and one each", n)
	}
}

// TestClientErrorStopsRun checks that a 4xx other than 429 ends the poll with the error, keeps
// the watermark, and ends Run without another poll.
func TestClientErrorStopsRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedReports(time.Minute)
	if err := h.srv.SetAPIKeyDisabled(h.seed.APIKeyID, true); err != nil {
		t.Fatal(err)
	}
	store := poller.NewMemoryStore()
	p := h.newPoller(store)
	h.advance(time.Minute)
	err := p.Run(t.Context(), newRecorder().handle)
	if !errors.Is(err, client.ErrInvalidAPIKey) {
		t.Fatalf("Run = %v, want ErrInvalidAPIKey", err)
	}
	if h.lists() != 1 || len(h.clk.slept()) != 0 {
		t.Fatalf("%d list requests and %d pauses, want one poll and none", h.lists(), len(h.clk.slept()))
	}
	if st, _ := store.Load(t.Context()); st.Watermark != at(0) {
		t.Fatalf("stored watermark %s, want %s kept", st.Watermark, at(0))
	}
}

// TestProgressObservable checks the logger and the stats of a poll.
func TestProgressObservable(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedReports(time.Minute, 2*time.Minute)
	var buf bytes.Buffer
	p := h.newPoller(nil, poller.WithLogger(slog.New(slog.NewTextHandler(&buf, nil))))
	h.advance(3 * time.Minute)
	if _, err := p.PollOnce(t.Context(), newRecorder().handle); err != nil {
		t.Fatal(err)
	}
	line := buf.String()
	for _, want := range []string{"poller: poll done", "since=" + at(0), "watermark=" + at(2*time.Minute-time.Second), "pages=1", "delivered=2"} {
		if !strings.Contains(line, want) {
			t.Fatalf("log %q lacks %q", line, want)
		}
	}
	st := p.Stats()
	if st.Polls != 1 || st.Pages != 1 || st.Listed != 2 || st.Delivered != 2 || st.LastPoll.Delivered != 2 || st.Watermark != at(2*time.Minute-time.Second) {
		t.Fatalf("stats %+v", st)
	}
}

// TestCancelMidPoll checks that a context cancelled while the handler runs ends the poll with
// the old watermark, and that the report handled before is not delivered again.
func TestCancelMidPoll(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ids := h.seedReports(minutes(1, 1, 1)...)
	p := h.newPoller(nil)
	h.advance(time.Minute)
	ctx, cancel := context.WithCancel(t.Context())
	rec := newRecorder()
	rec.fail = func(poller.Completion) error {
		if len(rec.got) == 1 {
			cancel()
			return context.Canceled
		}
		return nil
	}
	res, err := p.PollOnce(ctx, rec.handle)
	if !errors.Is(err, context.Canceled) || res.Complete || res.Watermark != at(0) || res.Delivered != 1 {
		t.Fatalf("cancelled poll: %+v, %v", res, err)
	}
	rec.fail = nil
	res, err = p.PollOnce(t.Context(), rec.handle)
	if err != nil || res.Delivered != 2 || res.Duplicates != 1 {
		t.Fatalf("next poll: %+v, %v", res, err)
	}
	rec.check(t, ids)
}

// TestConcurrentPolls checks that polls started together run one at a time and deliver each
// report once.
func TestConcurrentPolls(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	delays := make([]time.Duration, 230)
	for i := range delays {
		delays[i] = time.Minute + time.Duration(i%7)*time.Second
	}
	ids := h.seedReports(delays...)
	p := h.newPoller(nil)
	h.advance(2 * time.Minute)
	rec := newRecorder()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := p.PollOnce(t.Context(), rec.handle); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	rec.check(t, ids)
	if st := p.Stats(); st.Polls != 4 || st.Delivered != 230 {
		t.Fatalf("stats %+v", st)
	}
}
