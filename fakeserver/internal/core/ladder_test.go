package core

import (
	"fmt"
	"testing"
	"time"
)

// TestLadder: 10, 20, 40, 80, 160, 320 minutes, then 6 hours; nine gaps for ten attempts come to
// about 28 hours.
func TestLadder(t *testing.T) {
	t.Parallel()
	want := []time.Duration{10, 20, 40, 80, 160, 320, 360, 360, 360}
	var total time.Duration
	for i, w := range want {
		if got := RetryDelay(i + 1); got != w*time.Minute {
			t.Errorf("gap after failure %d: %v, want %v", i+1, got, w*time.Minute)
		}
		total += RetryDelay(i + 1)
	}
	if total != 28*time.Hour+30*time.Minute || len(want) != MaxDeliveryAttempts-1 {
		t.Fatalf("ladder spans %v", total)
	}
	if RetryDelay(100) != MaxRetryGap {
		t.Fatal("the cap does not hold")
	}
}

func TestNextRetrySweep(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	tests := []struct{ in, want time.Duration }{
		{0, 0}, {time.Second, 5 * time.Minute}, {5 * time.Minute, 5 * time.Minute}, {11 * time.Minute, 15 * time.Minute},
	}
	for _, tt := range tests {
		if got := NextRetrySweep(base.Add(tt.in)); !got.Equal(base.Add(tt.want)) {
			t.Errorf("%v: %v", tt.in, got)
		}
	}
}

func ExampleRetryDelay() {
	var at time.Duration
	for failed := 1; failed < MaxDeliveryAttempts; failed++ {
		at += RetryDelay(failed)
		fmt.Printf("attempt %d: %v after the first\n", failed+1, at)
	}
	// Output:
	// attempt 2: 10m0s after the first
	// attempt 3: 30m0s after the first
	// attempt 4: 1h10m0s after the first
	// attempt 5: 2h30m0s after the first
	// attempt 6: 5h10m0s after the first
	// attempt 7: 10h30m0s after the first
	// attempt 8: 16h30m0s after the first
	// attempt 9: 22h30m0s after the first
	// attempt 10: 28h30m0s after the first
}
