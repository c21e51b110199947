package pollerproof_test

import (
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/poller"
)

// The poller's list reads against the fake's faults.

// completed seeds n reports that completed a millisecond apart, moves the clock past them, and
// returns their ids, a poller from before them and a recorder.
func (h *harness) completed(n int) ([]string, *poller.Poller, *recorder) {
	delays := make([]time.Duration, n)
	for i := range delays {
		delays[i] = time.Minute + time.Duration(i)*time.Millisecond
	}
	ids := h.seedReports(delays...)
	p := h.newPoller(nil)
	h.advance(2 * time.Minute)
	return ids, p, newRecorder()
}

// TestPollerRidesOutFaults injects each fault on the second page of a three-page poll.

func TestPollerRidesOutFaults(t *testing.T) {
	t.Parallel()
	cut := int64(100)
	secondPage := func(f fakeserver.Fault) fakeserver.Fault {
		f.Method, f.PathPrefix, f.After = http.MethodGet, "/api/rest/v1/reports", 1
		return f
	}
	tests := []struct {
		name  string
		fault fakeserver.Fault
		// wantErr ends the first poll; the second then delivers the rest.
		wantErr error
		// wantSleep is a wait the poller must make on its clock.
		wantSleep time.Duration
	}{
		{"429 waited on the poller's clock", secondPage(fakeserver.Fault{Status: http.StatusTooManyRequests, RetryAfter: 30 * time.Second, Count: 1}), nil, 30 * time.Second},
		{"cut page retried by the client", secondPage(fakeserver.Fault{TruncateAfterBytes: &cut, Count: 1}), nil, 0},
		{"cut page on every attempt ends the poll", secondPage(fakeserver.Fault{TruncateAfterBytes: &cut, Count: 2}), io.ErrUnexpectedEOF, 0},
		{"flaky gateway", secondPage(fakeserver.Fault{Status: http.StatusBadGateway, Count: 1}), nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			ids, p, rec := h.completed(250)
			if _, err := h.srv.InjectFault(tt.fault); err != nil {
				t.Fatal(err)
			}
			res, err := p.PollOnce(t.Context(), rec.handle)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || res.Complete || res.Watermark != at(0) || res.Delivered != 100 {
					t.Fatalf("interrupted poll: %+v, %v", res, err)
				}
				res, err = p.PollOnce(t.Context(), rec.handle)
			}
			if err != nil || !res.Complete {
				t.Fatalf("poll: %+v, %v", res, err)
			}
			rec.check(t, ids)
			if len(h.srv.Faults()) != 0 {
				t.Fatalf("the fault was not spent: %+v", h.srv.Faults())
			}
			slept := h.clk.slept()
			if tt.wantSleep != 0 && (len(slept) != 1 || slept[0] != tt.wantSleep) {
				t.Fatalf("sleeps %v, want [%v]", slept, tt.wantSleep)
			}
		})
	}
}

// TestPollerOnAFlakyPath polls through a front that refuses 30% of list reads: every poll
// completes or ends with the front's 503, and in the end each report is delivered once.
func TestPollerOnAFlakyPath(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ids, p, rec := h.completed(450)
	probability := 0.3
	if _, err := h.srv.InjectFault(fakeserver.Fault{Method: http.MethodGet, PathPrefix: "/api/rest/v1/reports", Status: http.StatusServiceUnavailable, Probability: &probability}); err != nil {
		t.Fatal(err)
	}
	for polls := 1; ; polls++ {
		res, err := p.PollOnce(t.Context(), rec.handle)
		if err == nil && res.Complete {
			break
		}
		if !errors.Is(err, client.ErrUnavailable) || polls == 50 {
			t.Fatalf("poll %d: %+v, %v", polls, res, err)
		}
	}
	rec.check(t, ids)
}
