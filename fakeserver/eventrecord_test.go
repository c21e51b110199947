package fakeserver_test

import (
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver"
)

// TestWithEventRecordSize: the record keeps the newest n events the option asks for (none at
// 0), and a size outside 0 to MaxEventRecordSize is refused by New with the bound in the error.
func TestWithEventRecordSize(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 3} {
		srv, err := fakeserver.New(fakeserver.WithManualClock(fakeserver.TestStart()), fakeserver.WithEventRecordSize(n))
		if err != nil {
			t.Fatalf("size %d: %v", n, err)
		}
		for range 5 {
			if _, err := srv.Advance(time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		got := srv.Events(fakeserver.EventFilter{Kind: fakeserver.EventClockAdvanced})
		if len(got) != n {
			t.Errorf("size %d: %d clock events kept, want %d", n, len(got), n)
		}
		if n > 0 && !got[len(got)-1].At.Equal(fakeserver.TestStart().Add(5*time.Minute)) {
			t.Errorf("size %d: the newest kept is at %v, want the fifth advance", n, got[len(got)-1].At)
		}
		srv.Close()
	}
	for _, n := range []int{-1, fakeserver.MaxEventRecordSize + 1} {
		srv, err := fakeserver.New(fakeserver.WithEventRecordSize(n))
		if err == nil {
			srv.Close()
			t.Fatalf("size %d accepted", n)
		}
		if !strings.Contains(err.Error(), "event record size") {
			t.Errorf("size %d: %v", n, err)
		}
	}
}
