package client

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func reportReply(status Status, stats string) reply {
	body := `{"id":"` + reportID1 + `","status":"` + string(status) + `","original_filename":"x.mp3"`
	if stats != "" {
		body += `,"stats":` + stats
	}
	return jsonReply(200, body+"}")
}

func remaining(ms int) string { return fmt.Sprintf(`{"time_remaining":%d}`, ms) }

func TestWaitForReport(t *testing.T) {
	t.Parallel()
	s := time.Second
	tests := []struct {
		name       string
		replies    []reply
		opts       []WaitOption
		want       Status
		wantErr    error
		wantSleeps []time.Duration
	}{
		{
			name: "waits sized from time_remaining",
			replies: []reply{
				reportReply(StatusPending, ""),                  // no estimate: the shortest pause
				reportReply(StatusScheduled, ""),                // still none: doubled
				reportReply(StatusInProgress, remaining(0)),     // measured not yet: doubled again
				reportReply(StatusInProgress, remaining(45000)), // beyond the maximum: capped
				reportReply(StatusInProgress, remaining(12500)), // within bounds: the estimate
				reportReply(StatusInProgress, remaining(500)),   // below the minimum: raised
				reportReply(StatusInProgress, remaining(-4000)), // overrun: still working
				reportReply(StatusComplete, `{"passed":true}`),
			},
			want:       StatusComplete,
			wantSleeps: []time.Duration{2 * s, 4 * s, 8 * s, 30 * s, 12500 * time.Millisecond, 2 * s, 2 * s},
		},
		{
			name:       "failed is final",
			replies:    []reply{reportReply(StatusInProgress, remaining(3000)), reportReply(StatusFailed, "")},
			want:       StatusFailed,
			wantSleeps: []time.Duration{3 * s},
		},
		{
			name:       "out of quota is final",
			replies:    []reply{reportReply(StatusOutOfQuota, "")},
			want:       StatusOutOfQuota,
			wantSleeps: []time.Duration{},
		},
		{
			name:       "unknown status keeps polling",
			replies:    []reply{reportReply("REVIEWING", ""), reportReply(StatusComplete, "")},
			want:       StatusComplete,
			wantSleeps: []time.Duration{2 * s},
		},
		{
			name:       "custom bounds",
			replies:    []reply{reportReply(StatusInProgress, remaining(90000)), reportReply(StatusInProgress, remaining(100)), reportReply(StatusComplete, "")},
			opts:       []WaitOption{WaitBounds(5*s, time.Minute)},
			want:       StatusComplete,
			wantSleeps: []time.Duration{time.Minute, 5 * s},
		},
		{
			// The client's MaxRetryAfter is 1 s here, so GetReport returns the 429 and the wait
			// honours its Retry-After.
			name:       "Retry-After honoured",
			replies:    []reply{reportReply(StatusInProgress, remaining(3000)), rateLimited("45"), reportReply(StatusComplete, "")},
			want:       StatusComplete,
			wantSleeps: []time.Duration{3 * s, 45 * s},
		},
		{
			name:       "ceiling",
			replies:    []reply{reportReply(StatusInProgress, remaining(0))},
			opts:       []WaitOption{WaitCeiling(time.Minute)},
			want:       StatusInProgress,
			wantErr:    ErrWaitTimeout,
			wantSleeps: []time.Duration{2 * s, 4 * s, 8 * s, 16 * s, 30 * s},
		},
		{
			name:       "last pause shortened to the ceiling",
			replies:    []reply{reportReply(StatusInProgress, remaining(25000))},
			opts:       []WaitOption{WaitCeiling(40 * s)},
			want:       StatusInProgress,
			wantErr:    ErrWaitTimeout,
			wantSleeps: []time.Duration{25 * s, 15 * s},
		},
		{
			name:       "not found is returned",
			replies:    []reply{apiErr(404, CodeNotFound)},
			wantErr:    ErrNotFound,
			wantSleeps: []time.Duration{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := serve(t, tt.replies...)
			c, clk := newTestClient(t, srv.URL, WithRetryPolicy(RetryPolicy{MaxAttempts: 2, MinBackoff: time.Millisecond, MaxRetryAfter: time.Second}))
			var seen int
			opts := append([]WaitOption{WaitProgress(func(*Report) { seen++ })}, tt.opts...)
			r, err := c.WaitForReport(context.Background(), reportID1, opts...)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatalf("err = %v", err)
			}
			if tt.want != "" && (r == nil || r.Status != tt.want) {
				t.Fatalf("report %+v, want status %s", r, tt.want)
			}
			if got := clk.Sleeps(); !equalDurations(got, tt.wantSleeps) {
				t.Fatalf("sleeps = %v, want %v", got, tt.wantSleeps)
			}
			if tt.want != "" && seen == 0 {
				t.Fatal("progress never called")
			}
		})
	}
}

func TestWaitForReportCancelled(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t, reportReply(StatusInProgress, remaining(10000)))
	c, clk := newTestClient(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	clk.onSleep = func(time.Duration) { cancel() }
	r, err := c.WaitForReport(ctx, reportID1)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if r == nil || r.Status != StatusInProgress {
		t.Fatalf("last report %+v", r)
	}
}
