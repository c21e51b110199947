package views

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// TestEventBody: each event's body, byte for byte, from the core's wire-neutral event: the
// envelope, the scored fields only on a scored report, a gone series as null, test only on test
// events.
func TestEventBody(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	day := time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)
	title := "Show"
	unit := "LUFS"
	id := uuid.MustParse("00000000-0000-0000-0000-000000000001")
	sid := uuid.MustParse("00000000-0000-0000-0000-000000000002")
	eid := uuid.MustParse("00000000-0000-0000-0000-000000000003")
	series := &core.SeriesRef{ID: sid, Title: &title, FeedURL: "https://f.example/rss"}
	episode := &core.EpisodeRef{ID: eid, GUID: "g1", PublishedOn: &day, AudioURL: "https://f.example/1.mp3"}
	tests := []struct {
		name string
		ev   core.Event
		want string
	}{
		{"failed upload", core.Event{Type: core.EventReportFailed, At: at, Report: &core.ReportSnapshot{
			ID: id, URL: "https://app.example/reports/" + id.String(), Status: core.StatusFailed, Filename: "a.mp3", CreatedAt: at,
		}}, `{"type":"report.failed","timestamp":"2026-01-02T03:04:05.000000+00:00","data":{"report":{"id":"00000000-0000-0000-0000-000000000001","url":"https://app.example/reports/00000000-0000-0000-0000-000000000001","status":"failed","passed":null,"score":null,"passes":null,"failures":null,"total":null,"filename":"a.mp3","client_reference":"","created_at":"2026-01-02T03:04:05.000000+00:00","series":null,"episode":null,"issues":null}}}`},
		{"completed feed report, test", core.Event{Type: core.EventReportCompleted, At: at, Test: true, Report: &core.ReportSnapshot{
			ID: id, URL: "u", Status: core.StatusComplete, Filename: "1.mp3", CreatedAt: at, Series: series, Episode: episode,
			Stats:   &core.Stats{Passes: 1, Total: 1, Percent: 100, Passed: true},
			Results: []core.Result{{Name: "loudness", VerboseName: "Loudness", Status: "pass", Value: json.RawMessage(`-16`), MeasurementUnit: &unit, Severity: core.Required}},
		}}, `{"type":"report.completed","timestamp":"2026-01-02T03:04:05.000000+00:00","data":{"report":{"id":"00000000-0000-0000-0000-000000000001","url":"u","status":"complete","passed":true,"score":100,"passes":1,"failures":0,"total":1,"filename":"1.mp3","client_reference":"","created_at":"2026-01-02T03:04:05.000000+00:00","series":{"id":"00000000-0000-0000-0000-000000000002","title":"Show","feed_url":"https://f.example/rss"},"episode":{"id":"00000000-0000-0000-0000-000000000003","title":null,"guid":"g1","pub_date":"2025-12-31"},"issues":[{"name":"loudness","verbose_name":"Loudness","status":"pass","value":-16,"measurement_unit":"LUFS","description":"","warning_message":null,"link":"","severity":"` + core.Required + `","limit":null}]}},"test":true}`},
		{"scored, no results", core.Event{Type: core.EventReportCompleted, At: at, Report: &core.ReportSnapshot{
			ID: id, URL: "u", Status: core.StatusComplete, CreatedAt: at, Stats: &core.Stats{}, Results: []core.Result{},
		}}, `{"type":"report.completed","timestamp":"2026-01-02T03:04:05.000000+00:00","data":{"report":{"id":"00000000-0000-0000-0000-000000000001","url":"u","status":"complete","passed":false,"score":0,"passes":0,"failures":0,"total":0,"filename":"","client_reference":"","created_at":"2026-01-02T03:04:05.000000+00:00","series":null,"episode":null,"issues":[]}}}`},
		{"feed broken", core.Event{Type: core.EventSeriesFeedBroken, At: at, Series: series, Failure: &core.FeedFailure{Kind: core.BrokenFetch, ConsecutiveFailures: 3, LastError: "boom"}},
			`{"type":"series.feed_broken","timestamp":"2026-01-02T03:04:05.000000+00:00","data":{"failure":{"consecutive_failures":3,"kind":"` + core.BrokenFetch + `","last_error":"boom"},"series":{"id":"00000000-0000-0000-0000-000000000002","title":"Show","feed_url":"https://f.example/rss"}}}`},
		{"episode created, series gone", core.Event{Type: core.EventEpisodeCreated, At: at, Episode: episode},
			`{"type":"episode.created","timestamp":"2026-01-02T03:04:05.000000+00:00","data":{"episode":{"id":"00000000-0000-0000-0000-000000000003","title":null,"guid":"g1","pub_date":"2025-12-31","audio_url":"https://f.example/1.mp3"},"series":null}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := string(EventBody(tt.ev)); got != tt.want {
				t.Errorf("EventBody:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}
