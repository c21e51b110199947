package fakeserver

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestClockSleepMovesTheManualClock(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	clk := srv.Clock()
	start := clk.Now()
	if !start.Equal(srv.Now()) {
		t.Fatalf("Clock.Now = %v, Server.Now = %v", start, srv.Now())
	}
	fired := false
	srv.clock.After(90*time.Second, func(time.Time) { fired = true })
	if err := clk.Sleep(context.Background(), 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := srv.Now().Sub(start); got != 2*time.Minute {
		t.Errorf("the fake moved %v, want 2m", got)
	}
	if !fired {
		t.Error("a task due inside the sleep did not run")
	}
	if err := clk.Sleep(context.Background(), -time.Second); err != nil || !srv.Now().Equal(start.Add(2*time.Minute)) {
		t.Errorf("a negative sleep: err %v, clock moved to %v", err, srv.Now())
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := clk.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on an ended context = %v, want context.Canceled", err)
	}
	if got := srv.Now().Sub(start); got != 2*time.Minute {
		t.Errorf("a sleep on an ended context moved the clock to +%v", got)
	}
}

func TestClockSleepOnTheRealClockHonoursTheContext(t *testing.T) {
	t.Parallel()
	srv, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := srv.Clock().Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep = %v, want context.Canceled at once", err)
	}
	// Bracketed by two readings of the wall clock, however long the call took.
	before := time.Now()
	now := srv.Clock().Now()
	after := time.Now()
	if now.Before(before) || now.After(after) {
		t.Errorf("the real clock read %v, outside the wall clock's %v to %v", now, before, after)
	}
}
