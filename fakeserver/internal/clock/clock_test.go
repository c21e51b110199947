package clock

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

var start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestAdvanceRunsDueTasksInTimeOrderAtTheirInstant(t *testing.T) {
	t.Parallel()
	c := NewManual(start)
	var got []string
	record := func(name string) func(time.Time) {
		return func(now time.Time) { got = append(got, name+"@"+now.Sub(start).String()) }
	}
	c.After(3*time.Minute, record("c"))
	c.After(time.Minute, record("a"))
	c.After(time.Minute, record("b")) // same instant: scheduling order
	c.After(2*time.Minute, func(now time.Time) {
		got = append(got, "chain@"+now.Sub(start).String())
		c.After(30*time.Second, record("chained")) // falls inside the span: runs in this Advance
	})
	c.After(10*time.Minute, record("late"))

	now, err := c.Advance(5 * time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a@1m0s", "b@1m0s", "chain@2m0s", "chained@2m30s", "c@3m0s"}
	if !slices.Equal(got, want) {
		t.Fatalf("ran %v, want %v", got, want)
	}
	if !now.Equal(start.Add(5*time.Minute)) || !c.Now().Equal(now) {
		t.Fatalf("now = %v (clock %v), want %v", now, c.Now(), start.Add(5*time.Minute))
	}
	if c.Pending() != 1 {
		t.Fatalf("pending = %d, want 1", c.Pending())
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	c := NewManual(start)
	ran := false
	task := c.After(time.Second, func(time.Time) { ran = true })
	if !task.Cancel() {
		t.Fatal("Cancel of a waiting task returned false")
	}
	if task.Cancel() {
		t.Fatal("second Cancel returned true")
	}
	if _, err := c.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	if ran {
		t.Fatal("cancelled task ran")
	}
	if (Task{}).Cancel() {
		t.Fatal("zero Task cancelled something")
	}
}

func TestManualErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		do   func(c *Clock) error
		want error
	}{
		{"negative advance", func(c *Clock) error { _, err := c.Advance(-time.Second); return err }, ErrBackwards},
		{"set backwards", func(c *Clock) error { _, err := c.Set(start.Add(-time.Second)); return err }, ErrBackwards},
		{"set forwards", func(c *Clock) error { _, err := c.Set(start.Add(time.Hour)); return err }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := tt.do(NewManual(start)); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestRunDueRunsTasksScheduledForNow(t *testing.T) {
	t.Parallel()
	c := NewManual(start)
	ran := 0
	c.At(start.Add(-time.Hour), func(time.Time) { ran++ })
	c.At(start, func(time.Time) { ran++ })
	c.RunDue()
	if ran != 2 || !c.Now().Equal(start) {
		t.Fatalf("ran %d tasks, now %v", ran, c.Now())
	}
}

func TestRealClock(t *testing.T) {
	t.Parallel()
	c := NewReal()
	defer c.Close()
	if _, err := c.Advance(time.Second); !errors.Is(err, ErrNotManual) {
		t.Fatalf("Advance on a real clock: %v", err)
	}
	done := make(chan time.Time, 1)
	c.After(0, func(now time.Time) { done <- now })
	select {
	case now := <-done:
		if now.Location() != time.UTC {
			t.Fatalf("task time not UTC: %v", now)
		}
	case <-time.After(2 * time.Minute): // a watchdog that turns a hang into a failure, never a bound
		t.Fatal("a task due now did not run on the real clock")
	}
}

func TestConcurrentScheduling(t *testing.T) {
	t.Parallel()
	c := NewManual(start)
	var mu sync.Mutex
	count := 0
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.After(time.Duration(i)*time.Second, func(time.Time) { mu.Lock(); count++; mu.Unlock() })
			_ = c.Now()
		}()
	}
	wg.Wait()
	if _, err := c.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	if count != 50 {
		t.Fatalf("ran %d of 50 tasks", count)
	}
}
