package core

import (
	"testing"
	"time"
)

// TestSeedReportsInDefaults: an entry's zero file name and duration take their defaults
// (seeded-N.wav, N its place from 1; DefaultSeededDuration), and a given one stays.
func TestSeedReportsInDefaults(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Minute, NewWorkspace{})
	out, err := f.c.SeedReportsIn(f.ws.ID.String(), []BulkReport{{}, {FileName: "mine.wav", Duration: time.Minute}, {}})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name     string
		duration time.Duration
	}{{"seeded-1.wav", DefaultSeededDuration}, {"mine.wav", time.Minute}, {"seeded-3.wav", DefaultSeededDuration}}
	if len(out) != len(want) {
		t.Fatalf("%d reports seeded, want %d", len(out), len(want))
	}
	for i, r := range out {
		if r.OriginalFilename != want[i].name || r.Measurement == nil || r.Measurement.Duration != want[i].duration {
			t.Errorf("report %d: %q, %+v; want %q lasting %s", i, r.OriginalFilename, r.Measurement, want[i].name, want[i].duration)
		}
	}
}
