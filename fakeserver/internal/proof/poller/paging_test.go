package pollerproof_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/poller"
)

// TestCompletionDuringPaging makes a report complete while a poll pages, at a place already
// read (it is the newest by creation), and a report with a higher updated_at appear on a later
// page. Taking the highest updated_at as the watermark would skip the first for ever; the
// poller must keep the watermark below it and deliver it on the next poll.
func TestCompletionDuringPaging(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	delays := make([]time.Duration, 300)
	for i := range delays {
		switch {
		case i == 0:
			delays[i] = 3 * time.Minute // Y: oldest, read on the last page
		case i < 250:
			delays[i] = time.Minute
		case i < 299:
			delays[i] = 10 * time.Minute
		default:
			delays[i] = 2 * time.Minute // X: newest, lands on the first page
		}
	}
	ids := h.seedReports(delays...)
	x, y := ids[299], ids[0]
	p := h.newPoller(nil)
	rec := newRecorder()
	h.advance(time.Minute)
	h.before(func(n int) {
		switch n {
		case 2:
			h.advance(time.Minute) // X completes once the first page is read
		case 3:
			h.advance(time.Minute) // Y completes before the last page
		}
	})
	res, err := p.PollOnce(t.Context(), rec.handle)
	if err != nil {
		t.Fatal(err)
	}
	if rec.got[x] != 0 || rec.got[y] != 1 || res.Delivered != 250 || res.Pages != 3 {
		t.Fatalf("first poll: delivered X %d times, Y %d times, %+v", rec.got[x], rec.got[y], res)
	}
	// X's updated_at (09:02) is below the highest the poll saw (Y, 09:03): the recipe's plain
	// maximum would have stepped over it.
	if res.Watermark >= at(2*time.Minute) {
		t.Fatalf("watermark %s is not below X's updated_at %s", res.Watermark, at(2*time.Minute))
	}
	h.before(nil)
	h.advance(10 * time.Minute)
	res, err = p.PollOnce(t.Context(), rec.handle)
	if err != nil {
		t.Fatal(err)
	}
	rec.check(t, ids)
	if res.Delivered != 50 {
		t.Fatalf("second poll delivered %d, want X and the 49 later ones", res.Delivered)
	}
}

// TestTenThousandReports runs 10,000 reports completing in random order, in batches, through
// repeated polls: first with the clock still while each poll pages (each poll must then take
// the fewest list requests, max(1, ceil(new/100)), and re-read only the overlap), then with
// completions landing between the pages of every poll. Nothing may be missed or delivered
// twice.
func TestTenThousandReports(t *testing.T) {
	t.Parallel()
	const (
		total   = 10_000
		batches = 40
		gap     = 5 * time.Minute // between batches and between polls
	)
	h := newHarness(t, fakeserver.WithoutRateLimits())
	rng := rand.New(rand.NewPCG(8, 2026))
	delays := make([]time.Duration, total)
	batchOf := make([][]time.Duration, batches)
	for i := range delays {
		// A random batch, and a random instant in the batch's first minute (millisecond steps).
		b := rng.IntN(batches)
		delays[i] = time.Duration(b)*gap + time.Duration(1+rng.IntN(60_000))*time.Millisecond
		batchOf[b] = append(batchOf[b], delays[i])
	}
	// overlapRows is how many reports of batch b the next poll re-reads: those completed
	// within the overlap (one second) below the batch's last completion.
	overlapRows := func(b int) int {
		top := slices.Max(batchOf[b])
		n := 0
		for _, d := range batchOf[b] {
			if d > top-poller.DefaultOverlap {
				n++
			}
		}
		return n
	}
	ids := h.seedReports(delays...)
	p := h.newPoller(nil)
	rec := newRecorder()

	var clean, interleaved struct{ polls, requests, minimum, delivered, duplicates int }
	for b := range batches {
		still := b < batches/2
		if still {
			// The whole batch has completed before the poll, and nothing completes during it.
			h.advance(gap)
			h.before(nil)
		} else {
			// Poll in the middle of the batch's minute; the rest completes between pages.
			h.advance(gap - 30*time.Second)
			h.before(func(n int) { h.advance(5 * time.Second) })
		}
		lists := h.lists()
		res, err := p.PollOnce(t.Context(), rec.handle)
		if err != nil {
			t.Fatalf("batch %d: %v", b, err)
		}
		requests := h.lists() - lists
		minimum := max(1, (res.Delivered+99)/100)
		s := &interleaved
		if still {
			s = &clean
			// Exactly the batch is new, exactly the overlap of the previous one is re-read,
			// and the pages are as few as those rows allow.
			reread := 0
			if b > 0 {
				reread = overlapRows(b - 1)
			}
			if res.Delivered != len(batchOf[b]) || res.Duplicates != reread || requests != max(1, (res.Delivered+reread+99)/100) {
				t.Fatalf("batch %d: %d requests for %d new (want %d) and %d re-read rows (want %d)", b, requests, res.Delivered, len(batchOf[b]), res.Duplicates, reread)
			}
		} else {
			h.advance(30 * time.Second) // let the batch finish before the next poll
		}
		s.polls++
		s.requests += requests
		s.minimum += minimum
		s.delivered += res.Delivered
		s.duplicates += res.Duplicates
	}
	h.before(nil)
	h.advance(gap)
	res, err := p.PollOnce(t.Context(), rec.handle)
	if err != nil {
		t.Fatal(err)
	}
	rec.check(t, ids)
	if st := p.Stats(); st.Delivered != total || st.HandlerFailures != 0 {
		t.Fatalf("stats: %+v", st)
	}
	t.Logf("still clock: %d polls, %d list requests (minimum max(1,ceil(new/100)) summed: %d), %d delivered, %d re-read rows",
		clean.polls, clean.requests, clean.minimum, clean.delivered, clean.duplicates)
	t.Logf("completions during paging: %d polls, %d list requests (minimum summed: %d), %d delivered, %d re-read rows",
		interleaved.polls, interleaved.requests, interleaved.minimum, interleaved.delivered, interleaved.duplicates)
	t.Logf("final poll: %d delivered, %d re-read, %d requests", res.Delivered, res.Duplicates, res.Pages)
}

// TestRunSchedule checks Run's pauses: the interval plus jitter within five to fifteen
// minutes, and exact pauses when jitter is off; it drives Run on the fake's clock, which
// completes reports as the pauses pass, and checks each is delivered once.
func TestRunSchedule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		opts     []poller.Option
		min, max time.Duration
	}{
		{"default", nil, 5 * time.Minute, 5*time.Minute + 30*time.Second},
		{"ten minutes, no jitter", []poller.Option{poller.WithInterval(10 * time.Minute), poller.WithJitter(0)}, 10 * time.Minute, 10 * time.Minute},
		{"fifteen minutes, jitter capped", []poller.Option{poller.WithInterval(15 * time.Minute), poller.WithJitter(1)}, 15 * time.Minute, 15 * time.Minute},
		{"unbounded", []poller.Option{poller.WithIntervalUnbounded(time.Minute), poller.WithJitter(0.5)}, time.Minute, 90 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			ids := h.seedReports(minutes(1, 7, 3, 29, 12, 45, 44.5)...)
			var polls []poller.PollResult
			p := h.newPoller(nil, append(tt.opts, poller.WithProgress(func(r poller.PollResult) { polls = append(polls, r) }))...)
			ctx, cancel := context.WithCancel(t.Context())
			h.clk.onSleep = func(int) {
				if h.srv.Now().Sub(fakeserver.TestStart()) > 50*time.Minute {
					cancel()
				}
			}
			rec := newRecorder()
			if err := p.Run(ctx, rec.handle); !errors.Is(err, context.Canceled) {
				t.Fatalf("Run = %v, want context.Canceled", err)
			}
			for _, d := range h.clk.slept() {
				if d < tt.min || d > tt.max {
					t.Fatalf("pause %s outside %s to %s", d, tt.min, tt.max)
				}
			}
			// The last pause ran past 50 minutes and Run stopped before polling again.
			if len(polls) != len(h.clk.slept()) {
				t.Fatalf("%d polls for %d pauses", len(polls), len(h.clk.slept()))
			}
			if h.srv.Now().Sub(fakeserver.TestStart()) < 50*time.Minute {
				t.Fatal("Run stopped early")
			}
			// One more poll picks up what completed during the last pause.
			if _, err := p.PollOnce(t.Context(), rec.handle); err != nil {
				t.Fatal(err)
			}
			rec.check(t, ids)
			if p.Stats().FailedPolls != 0 || polls[0].Since != client.FormatTime(fakeserver.TestStart()) {
				t.Fatalf("stats %+v, first poll %+v", p.Stats(), polls[0])
			}
		})
	}
}
