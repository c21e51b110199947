package core

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestSlowAnalysisDoesNotHoldTheRealClock: on the real clock a long measurement runs off the
// clock's goroutine, so a timer unrelated to it still fires on time.
func TestSlowAnalysisDoesNotHoldTheRealClock(t *testing.T) {
	t.Parallel()
	// A measurement of minutes of audio, as far as the clock can tell.
	clk, c, p, r, release := stalledReport(t)

	fired := make(chan struct{})
	clk.After(0, func(time.Time) { close(fired) })
	select {
	case <-fired:
	case <-time.After(2 * time.Minute): // a guard against a hang, not a wait for the result
		close(release)
		c.Close()
		t.Fatal("an unrelated timer did not fire while an analysis was running")
	}
	close(release)
	c.Close() // waits for the analysis to finish
	got, err := c.GetReport(p, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Measurement == nil || got.Measurement.Duration != time.Hour {
		t.Fatalf("after the slow analysis the report is %+v, want its measurement", got)
	}
}

// TestAnalysisPoolIsFairBetweenWorkspaces: one workspace's measurements that never end (slow
// files, bombs up to the ceilings) hold at most size-1 slots, and another workspace's
// measurement starts at once rather than after them.
func TestAnalysisPoolIsFairBetweenWorkspaces(t *testing.T) {
	t.Parallel()
	p := newAnalysisPoolSize(2)
	a, b := uuid.New(), uuid.New()
	release := make(chan struct{})
	started := make(chan string, 8)
	for range 3 {
		p.run(a, func() { started <- "a"; <-release })
	}
	p.run(b, func() { started <- "b" })
	guard := time.After(2 * time.Minute) // a guard against a hang, not a wait for the result
	var order []string
	for len(order) < 2 {
		select {
		case s := <-started:
			order = append(order, s)
		case <-guard:
			close(release)
			p.close()
			t.Fatalf("started %v: workspace b waits behind workspace a", order)
		}
	}
	if order[0] == order[1] {
		t.Fatalf("started %v, want one of a and one of b", order)
	}
	// Closing drops what has not started: a's two queued measurements never run.
	p.cancel()
	close(release)
	p.close()
	if n := len(started); n != 0 {
		t.Fatalf("%d measurements started after the pool closed", n)
	}
}
