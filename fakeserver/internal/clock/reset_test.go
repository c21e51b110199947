package clock

import (
	"testing"
	"time"
)

func TestClearDropsTasksAndRewinds(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	c := NewManual(start)
	ran := 0
	task := c.After(time.Minute, func(time.Time) { ran++ })
	c.After(time.Hour, func(time.Time) { ran++ })
	if _, err := c.Advance(2 * time.Minute); err != nil || ran != 1 {
		t.Fatalf("advance: %v, ran %d", err, ran)
	}
	c.Hold(func() { c.Clear(start) })
	if !c.Now().Equal(start) || c.Pending() != 0 || task.Cancel() {
		t.Fatalf("after Clear: now %s, %d pending", c.Now(), c.Pending())
	}
	if _, err := c.Advance(2 * time.Hour); err != nil || ran != 1 {
		t.Fatalf("a dropped task ran: %d", ran)
	}
}
