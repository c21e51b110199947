package dashboard

import (
	"testing"
	"time"
)

// TestRoundDuration: the journal and the attempt lines show a duration to three significant
// digits.
func TestRoundDuration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{999 * time.Nanosecond, "999ns"},
		{18523 * time.Nanosecond, "18.5µs"},
		{1234567 * time.Nanosecond, "1.23ms"},
		{123456789 * time.Nanosecond, "123ms"},
		{1980000001 * time.Nanosecond, "1.98s"},
	} {
		if got := RoundDuration(tc.d); got != tc.want {
			t.Errorf("RoundDuration(%d) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
