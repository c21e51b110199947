package core

import (
	"fmt"
	"testing"
	"time"
)

// TestRefusedAddressesExpire: a scan from many addresses leaves no record once its five-minute
// window has passed on the fake clock, while an address inside its window keeps its count.
func TestRefusedAddressesExpire(t *testing.T) {
	t.Parallel()
	c := newCore(t) // the clock starts at 12:00:30, inside the 12:00-12:05 window
	const scanned = 5000
	for i := range scanned {
		if err := c.RefuseCredentials(fmt.Sprintf("10.0.%d.%d", i/256, i%256)); code(err) != CodeInvalidAPIKey {
			t.Fatalf("refusal %d: %v", i, err)
		}
	}
	// One address reaches the limit in the next window, which is still open at the sweep below.
	if _, err := c.Clock().Advance(5 * time.Minute); err != nil { // 12:05:30
		t.Fatal(err)
	}
	for range refusedPerFiveMinutes {
		_ = c.RefuseCredentials("192.0.2.1")
	}
	tests := []struct {
		advance time.Duration
		ip      string
		code    string
		records int
	}{
		// The scan's window ended at 12:05: its records are gone, the live one stays.
		{time.Minute, "192.0.2.1", CodeRateLimited, 1},
		{0, "192.0.2.2", CodeInvalidAPIKey, 2},
		// 12:10:30: both windows have passed.
		{4 * time.Minute, "192.0.2.3", CodeInvalidAPIKey, 1},
	}
	for _, tt := range tests {
		if _, err := c.Clock().Advance(tt.advance); err != nil {
			t.Fatal(err)
		}
		var e *Error
		err := c.RefuseCredentials(tt.ip)
		if e, _ = err.(*Error); e == nil || e.Code != tt.code {
			t.Fatalf("%s at %s: %v, want %s", tt.ip, c.Clock().Now().Format(time.TimeOnly), err, tt.code)
		}
		c.limits.mu.Lock()
		n := len(c.limits.windows)
		c.limits.mu.Unlock()
		if n != tt.records {
			t.Fatalf("at %s the limiter holds %d records, want %d", c.Clock().Now().Format(time.TimeOnly), n, tt.records)
		}
	}
}
