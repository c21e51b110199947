package core

import (
	"errors"
	"testing"
	"time"
)

// TestSeedReportsBounds: the core is where a seeded report's bounds are checked, for every
// caller: each entry out of bounds refuses the whole call with a validation *Error naming it,
// nothing is created, and the bounds themselves are admitted.
func TestSeedReportsBounds(t *testing.T) {
	t.Parallel()
	ok := BulkReport{FileName: "a.wav", Duration: time.Minute}
	tests := []struct {
		name    string
		entry   BulkReport
		message string // empty: admitted
	}{
		{"the longest delay", BulkReport{FileName: "a.wav", Duration: time.Minute, CompleteAfter: MaxSeededCompleteAfter}, ""},
		{"the longest audio", BulkReport{FileName: "a.wav", Duration: MaxSeededDuration}, ""},
		{"delay past 366 days", BulkReport{FileName: "a.wav", Duration: time.Minute, CompleteAfter: MaxSeededCompleteAfter + time.Nanosecond}, "reports[1]: complete_after must be at most 366 days."},
		{"negative delay", BulkReport{FileName: "a.wav", Duration: time.Minute, CompleteAfter: -time.Nanosecond}, "reports[1]: complete_after must not be negative."},
		{"no audio", BulkReport{FileName: "a.wav"}, "reports[1]: duration must be above 0 and at most 24 hours."},
		{"audio past 24 hours", BulkReport{FileName: "a.wav", Duration: MaxSeededDuration + time.Nanosecond}, "reports[1]: duration must be above 0 and at most 24 hours."},
		{"no file name", BulkReport{Duration: time.Minute}, "reports[1]: file_name is required."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, time.Minute, NewWorkspace{})
			out, err := f.c.SeedReports(f.ws.ID, []BulkReport{ok, tt.entry})
			page, lerr := f.c.ListReports(f.p, ReportFilter{}, 10, 0)
			if lerr != nil {
				t.Fatal(lerr)
			}
			if tt.message == "" {
				if err != nil || len(out) != 2 || len(page.Items) != 2 {
					t.Fatalf("admitted entry: %d seeded, %d listed, %v", len(out), len(page.Items), err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeValidation || e.Message != tt.message {
				t.Fatalf("err = %v, want validation_error %q", err, tt.message)
			}
			if len(out) != 0 || len(page.Items) != 0 {
				t.Fatalf("a refused call seeded %d and left %d listed", len(out), len(page.Items))
			}
		})
	}
}

// TestSeededReportCompletesAfterItsDelay: CompleteAfter counts from the core's clock.
func TestSeededReportCompletesAfterItsDelay(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Minute, NewWorkspace{})
	out, err := f.c.SeedReports(f.ws.ID, []BulkReport{
		{FileName: "now.wav", Duration: time.Minute},
		{FileName: "later.wav", Duration: time.Minute, CompleteAfter: time.Hour},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.report(t, out[0].ID).Status; got != StatusComplete {
		t.Fatalf("a report due now is %s", got)
	}
	f.advance(t, time.Hour-time.Second)
	if got := f.report(t, out[1].ID).Status; got != StatusInProgress {
		t.Fatalf("before its delay: %s", got)
	}
	f.advance(t, time.Second)
	if got := f.report(t, out[1].ID).Status; got != StatusComplete {
		t.Fatalf("at its delay: %s", got)
	}
}
