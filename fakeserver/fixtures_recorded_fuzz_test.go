package fakeserver

import (
	"errors"
	"strings"
	"testing"
)

// FuzzLoadRecordedFixtures feeds documents of recorded reports, series and episodes to
// LoadFixtures and New: neither panics, a refusal is one short line, a *FixtureError, and what
// loads either makes a fake or is refused by New with a *FixtureError.
func FuzzLoadRecordedFixtures(f *testing.F) {
	f.Add(recordedDoc(goodRecorded))
	f.Add(recordedDoc(goodRecorded + "," + goodRecorded))
	f.Add(recordedDoc(`{"status":"FAILED","created_at":"2026-01-05T09:00:00Z","original_filename":"a","stats":null,"results":[null]}`))
	f.Add(recordedDoc(`{"status":"COMPLETE","created_at":"2026-01-05T09:00:00Z","original_filename":"a","series":"s","episode":"e","cover_image":{"url":"https://x"}}`))
	f.Add(recordedDoc(`{"status":"COMPLETE","created_at":"2026-01-05T09:00:00Z","original_filename":"a","results":[{"value":{"profanities":[{"start":1}]}}]}`))
	f.Add(`{"workspaces":[{"ref":"w","type":"personal","name":"W","recorded_reports":[{"stats":{"a":{"b":[[[[{"c":null}]]]]}}}]}]}`)
	f.Add(`{"workspaces":[{"ref":"w","type":"organisation","name":"W","series":[{"ref":"s","feed_url":"https://a.example/f","created_at":"x"}]}]}`)
	f.Add(`{"workspaces":{"w":{"recorded_reports":[{"stats":{}}]}}}`)
	f.Add(`{"workspaces":[{"recorded_reports":[{"results":[ ,]}],"recorded_reports":[]}]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		fx, err := LoadFixtures(strings.NewReader(doc))
		var fe *FixtureError
		if err != nil {
			if !errors.As(err, &fe) || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "fixtures: ") || len(err.Error()) > 2048 {
				t.Fatalf("refusal %T %q", err, err)
			}
			return
		}
		srv, err := New(WithFixtures(fx), WithManualClock(TestStart()))
		if err != nil {
			if !errors.As(err, &fe) {
				t.Fatalf("New refused with %T %q", err, err)
			}
			return
		}
		_ = srv.Close()
	})
}
