package wait

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// manualClock moves its time by each Sleep instead of waiting, and records the pauses.
type manualClock struct {
	now    time.Time
	slept  []time.Duration
	failAt int // the Sleep number (1-based) that fails with context.Canceled; 0: none
}

func (c *manualClock) Now() time.Time { return c.now }

func (c *manualClock) Sleep(_ context.Context, d time.Duration) error {
	c.slept = append(c.slept, d)
	if len(c.slept) == c.failAt {
		return context.Canceled
	}
	c.now = c.now.Add(d)
	return nil
}

var (
	errRateLimited = errors.New("rate limited")
	errBroken      = errors.New("broken")
)

// step is one poll's answer: a value, or an error.
type step struct {
	v   int
	err error
}

func TestRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ceiling time.Duration
		steps   []step
		failAt  int
		want    int
		wantErr string // "" for none
		// slept are the pauses, progress the values reported.
		slept    []time.Duration
		progress []int
	}{
		{
			name: "final at once", ceiling: time.Hour,
			steps: []step{{v: 100}}, want: 100,
			progress: []int{100},
		},
		{
			// Pause(v) is v seconds; 100 and more is final.
			name: "pauses sized by each value", ceiling: time.Hour,
			steps: []step{{v: 3}, {v: 5}, {v: 100}}, want: 100,
			slept: []time.Duration{3 * time.Second, 5 * time.Second}, progress: []int{3, 5, 100},
		},
		{
			name: "a rate limit is waited out, its pause the Retry-After", ceiling: time.Hour,
			steps: []step{{v: 3}, {err: errRateLimited}, {v: 100}}, want: 100,
			slept: []time.Duration{3 * time.Second, 7 * time.Second}, progress: []int{3, 100},
		},
		{
			name: "another error ends the loop with the last value", ceiling: time.Hour,
			steps: []step{{v: 3}, {err: errBroken}}, want: 3, wantErr: "broken",
			slept: []time.Duration{3 * time.Second}, progress: []int{3},
		},
		{
			name: "the last pause ends at the ceiling, then one more poll", ceiling: 10 * time.Second,
			steps: []step{{v: 8}, {v: 8}, {v: 8}}, want: 8, wantErr: "timeout after 8 (polled true): <nil>",
			slept: []time.Duration{8 * time.Second, 2 * time.Second}, progress: []int{8, 8, 8},
		},
		{
			name: "a ceiling reached on a rate limit names it", ceiling: 7 * time.Second,
			steps: []step{{err: errRateLimited}, {err: errRateLimited}}, want: 0, wantErr: "timeout after 0 (polled false): rate limited",
			slept: []time.Duration{7 * time.Second},
		},
		{
			name: "a pause cut short by the context", ceiling: time.Hour, failAt: 2,
			steps: []step{{v: 3}, {v: 4}}, want: 4, wantErr: "interrupted: context canceled",
			slept: []time.Duration{3 * time.Second, 4 * time.Second}, progress: []int{3, 4},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := &manualClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), failAt: tt.failAt}
			polls := 0
			var progress []int
			l := Loop[int]{
				Clock:   clk,
				Ceiling: tt.ceiling,
				Poll: func(context.Context) (int, error) {
					if polls >= len(tt.steps) {
						t.Fatalf("poll %d: only %d planned", polls+1, len(tt.steps))
					}
					s := tt.steps[polls]
					polls++
					return s.v, s.err
				},
				Final: func(v int) bool { return v >= 100 },
				Pause: func(v int) time.Duration { return time.Duration(v) * time.Second },
				RetryAfter: func(err error) (time.Duration, bool) {
					return 7 * time.Second, errors.Is(err, errRateLimited)
				},
				Progress: func(v int) { progress = append(progress, v) },
				Timeout: func(last int, polled bool, err error) error {
					return fmt.Errorf("timeout after %d (polled %t): %v", last, polled, err)
				},
				Interrupted: func(err error) error { return fmt.Errorf("interrupted: %w", err) },
			}
			got, err := l.Run(context.Background())
			if got != tt.want {
				t.Errorf("value = %d, want %d", got, tt.want)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("err = %v, want none", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			if polls != len(tt.steps) {
				t.Errorf("%d polls, want %d", polls, len(tt.steps))
			}
			if !slices.Equal(clk.slept, tt.slept) {
				t.Errorf("slept %v, want %v", clk.slept, tt.slept)
			}
			if !slices.Equal(progress, tt.progress) {
				t.Errorf("progress %v, want %v", progress, tt.progress)
			}
		})
	}
}
