package webhook

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podqa/podqa-go/client"
)

// Payloads built field by field from the "Event envelope" and "data" tables of the webhook
// specification (it gives the fields, not literal examples).
const (
	payloadCompleted = `{
  "type": "report.completed",
  "timestamp": "2026-01-05T09:07:30.123456+00:00",
  "data": {
    "report": {
      "id": "7d0c6f1e-3b7a-4c55-9a57-2f3f0c8e9a10",
      "url": "https://app.example.com/reports/7d0c6f1e-3b7a-4c55-9a57-2f3f0c8e9a10",
      "status": "complete",
      "passed": true,
      "score": 83,
      "passes": 5,
      "failures": 1,
      "total": 6,
      "filename": "episode-42.mp3",
      "client_reference": "",
      "created_at": "2026-01-05T09:00:00.000000+00:00",
      "series": {"id": "0b9e2a54-8c1d-4f7e-b1a2-6f0d4c3b2a19", "title": "Morning Show", "feed_url": "https://feeds.example.com/morning.xml"},
      "episode": {"id": "5a1f0e2d-9c8b-4a7f-8e6d-5c4b3a291807", "title": "Episode 42", "guid": "ep-42", "pub_date": "2026-01-04"},
      "issues": [
        {"name": "loudness_lufs", "verbose_name": "Loudness", "status": "PASS", "value": -16.02, "measurement_unit": "LUFS",
         "description": "Integrated loudness.", "warning_message": null, "link": "https://example.com/loudness", "severity": "required", "limit": "between -17 and -15 LUFS"},
        {"name": "explicit_flag", "verbose_name": "Explicit flag", "status": "PASS", "value": {"flag": false, "words": []}, "measurement_unit": null,
         "description": "Explicit tag.", "warning_message": null, "link": "", "severity": "required", "limit": null},
        {"name": "unwanted_words", "verbose_name": "Unwanted words", "status": "FAIL", "value": [{"start": 1200, "word": "um"}], "measurement_unit": null,
         "description": "Words to avoid.", "warning_message": "1 unwanted word", "link": "", "severity": "info", "limit": "at most 0 words"}
      ]
    }
  }
}`
	payloadFailed = `{"type":"report.failed","timestamp":"2026-01-05T09:03:00.000000+00:00","data":{"report":{
  "id":"b5e1","url":"https://app.example.com/reports/b5e1","status":"failed","passed":null,"score":null,
  "passes":null,"failures":null,"total":null,"filename":"broken.wav","client_reference":"",
  "created_at":"2026-01-05T09:00:00.000000+00:00",
  "series":{"id":"s1","title":"Morning Show","feed_url":"https://feeds.example.com/morning.xml"},
  "episode":{"id":"e1","title":"Episode 43","guid":"ep-43","pub_date":"2026-01-05"},"issues":null}}}`
	payloadOutOfQuota = `{"type":"report.out_of_quota","timestamp":"2026-01-05T09:00:01.000000+00:00","data":{"report":{
  "id":"c6f2","url":"https://app.example.com/reports/c6f2","status":"out_of_quota","passed":null,"score":null,
  "passes":null,"failures":null,"total":null,"filename":"upload.mp3","client_reference":"",
  "created_at":"2026-01-05T09:00:00.000000+00:00","series":null,"episode":null,"issues":null}}}`
	payloadTest = `{"type":"report.completed","timestamp":"2026-01-05T10:00:00.000000+00:00","test":true,"data":{"report":{
  "id":"d7a3","url":"https://app.example.com/reports/d7a3","status":"complete","passed":false,"score":0,
  "passes":0,"failures":0,"total":0,"filename":"sample.mp3","client_reference":"",
  "created_at":"2026-01-05T09:59:00.000000+00:00","series":null,"episode":null,"issues":[]}}}`
	payloadEpisodeCreated = `{"type":"episode.created","timestamp":"2026-01-05T12:00:00.000000+00:00","data":{
  "series":{"id":"s1","title":"Morning Show","feed_url":"https://feeds.example.com/morning.xml"},
  "episode":{"id":"e2","title":"Episode 44","guid":"ep-44","pub_date":"2026-01-05","audio_url":"https://cdn.example.com/ep44.mp3"}}}`
	payloadFeedBroken = `{"type":"series.feed_broken","timestamp":"2026-01-06T03:00:00.000000+00:00","data":{
  "series":{"id":"s1","title":"Morning Show","feed_url":"https://feeds.example.com/morning.xml"},
  "failure":{"kind":"fetch","consecutive_failures":3,"last_error":"HTTP 503 from feeds.example.com"}}}`
	payloadFeedBrokenNullError = `{"type":"series.feed_broken","timestamp":"2026-01-06T03:00:00Z","data":{
  "series":{"id":"s1","title":"Morning Show","feed_url":"https://feeds.example.com/morning.xml"},
  "failure":{"kind":"ingest","consecutive_failures":1,"last_error":null}}}`
	payloadUnknown = `{"type":"series.renamed","timestamp":"2026-01-07T00:00:00.000000+00:00","data":{"series":{"id":"s1"},"old_title":"x"}}`
)

func ptr[T any](v T) *T { return &v }

func TestParse(t *testing.T) {
	t.Parallel()
	series := &Series{ID: "s1", Title: "Morning Show", FeedURL: "https://feeds.example.com/morning.xml"}
	tests := []struct {
		name string
		body string
		want Event // Data is checked separately
	}{
		{
			name: "report.completed",
			body: payloadCompleted,
			want: Event{
				Type:      client.EventReportCompleted,
				Timestamp: time.Date(2026, 1, 5, 9, 7, 30, 123456000, time.UTC),
				Report: &Report{
					ID:        "7d0c6f1e-3b7a-4c55-9a57-2f3f0c8e9a10",
					URL:       "https://app.example.com/reports/7d0c6f1e-3b7a-4c55-9a57-2f3f0c8e9a10",
					Status:    ReportComplete,
					Passed:    ptr(true),
					Score:     ptr(83),
					Passes:    ptr(5),
					Failures:  ptr(1),
					Total:     ptr(6),
					Filename:  "episode-42.mp3",
					CreatedAt: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC),
					Series:    &Series{ID: "0b9e2a54-8c1d-4f7e-b1a2-6f0d4c3b2a19", Title: "Morning Show", FeedURL: "https://feeds.example.com/morning.xml"},
					Episode:   &Episode{ID: "5a1f0e2d-9c8b-4a7f-8e6d-5c4b3a291807", Title: "Episode 42", GUID: "ep-42", PubDate: client.Date{Year: 2026, Month: time.January, Day: 4}},
					Issues: []client.Result{
						{Name: "loudness_lufs", VerboseName: "Loudness", Status: client.CheckPass, Value: json.RawMessage(`-16.02`),
							MeasurementUnit: "LUFS", Description: "Integrated loudness.", Link: "https://example.com/loudness",
							Severity: client.SeverityRequired, Limit: "between -17 and -15 LUFS"},
						{Name: "explicit_flag", VerboseName: "Explicit flag", Status: client.CheckPass, Value: json.RawMessage(`{"flag": false, "words": []}`),
							Description: "Explicit tag.", Severity: client.SeverityRequired},
						{Name: "unwanted_words", VerboseName: "Unwanted words", Status: client.CheckFail, Value: json.RawMessage(`[{"start": 1200, "word": "um"}]`),
							Description: "Words to avoid.", WarningMessage: "1 unwanted word", Severity: client.SeverityInfo, Limit: "at most 0 words"},
					},
				},
			},
		},
		{
			name: "report.failed",
			body: payloadFailed,
			want: Event{
				Type:      client.EventReportFailed,
				Timestamp: time.Date(2026, 1, 5, 9, 3, 0, 0, time.UTC),
				Report: &Report{
					ID: "b5e1", URL: "https://app.example.com/reports/b5e1", Status: ReportFailed, Filename: "broken.wav",
					CreatedAt: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC), Series: series,
					Episode: &Episode{ID: "e1", Title: "Episode 43", GUID: "ep-43", PubDate: client.Date{Year: 2026, Month: time.January, Day: 5}},
				},
			},
		},
		{
			name: "report.out_of_quota, manual upload",
			body: payloadOutOfQuota,
			want: Event{
				Type:      client.EventReportOutOfQuota,
				Timestamp: time.Date(2026, 1, 5, 9, 0, 1, 0, time.UTC),
				Report: &Report{ID: "c6f2", URL: "https://app.example.com/reports/c6f2", Status: ReportOutOfQuota,
					Filename: "upload.mp3", CreatedAt: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)},
			},
		},
		{
			name: "test event",
			body: payloadTest,
			want: Event{
				Type:      client.EventReportCompleted,
				Timestamp: time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC),
				Test:      true,
				Report: &Report{ID: "d7a3", URL: "https://app.example.com/reports/d7a3", Status: ReportComplete,
					Passed: ptr(false), Score: ptr(0), Passes: ptr(0), Failures: ptr(0), Total: ptr(0),
					Filename: "sample.mp3", CreatedAt: time.Date(2026, 1, 5, 9, 59, 0, 0, time.UTC), Issues: []client.Result{}},
			},
		},
		{
			name: "episode.created",
			body: payloadEpisodeCreated,
			want: Event{
				Type:      client.EventEpisodeCreated,
				Timestamp: time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC),
				EpisodeCreated: &EpisodeCreated{Series: *series, Episode: Episode{ID: "e2", Title: "Episode 44", GUID: "ep-44",
					PubDate: client.Date{Year: 2026, Month: time.January, Day: 5}, AudioURL: "https://cdn.example.com/ep44.mp3"}},
			},
		},
		{
			name: "series.feed_broken",
			body: payloadFeedBroken,
			want: Event{
				Type:       client.EventSeriesFeedBroken,
				Timestamp:  time.Date(2026, 1, 6, 3, 0, 0, 0, time.UTC),
				FeedBroken: &FeedBroken{Series: *series, Failure: FeedFailure{Kind: FailureFetch, ConsecutiveFailures: 3, LastError: "HTTP 503 from feeds.example.com"}},
			},
		},
		{
			name: "series.feed_broken, null last_error, Z timestamp",
			body: payloadFeedBrokenNullError,
			want: Event{
				Type:       client.EventSeriesFeedBroken,
				Timestamp:  time.Date(2026, 1, 6, 3, 0, 0, 0, time.UTC),
				FeedBroken: &FeedBroken{Series: *series, Failure: FeedFailure{Kind: FailureIngest, ConsecutiveFailures: 1}},
			},
		},
		{
			name: "unknown type kept with raw data",
			body: payloadUnknown,
			want: Event{Type: "series.renamed", Timestamp: time.Date(2026, 1, 7, 0, 0, 0, 0, time.UTC)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse([]byte(tt.body))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			// Data is the raw data object, whatever the type.
			var whole struct{ Data json.RawMessage }
			if err := json.Unmarshal([]byte(tt.body), &whole); err != nil {
				t.Fatal(err)
			}
			if string(got.Data) != string(whole.Data) {
				t.Errorf("Data = %s, want %s", got.Data, whole.Data)
			}
			got.Data = nil
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseNullsAreDistinct pins what the nullable fields mean: nil for null, values for
// zeros.
func TestParseNullsAreDistinct(t *testing.T) {
	t.Parallel()
	failed, err := Parse([]byte(payloadFailed))
	if err != nil {
		t.Fatal(err)
	}
	r := failed.Report
	if r.Passed != nil || r.Score != nil || r.Passes != nil || r.Failures != nil || r.Total != nil || r.Issues != nil {
		t.Errorf("report.failed scored fields should all be nil: %+v", r)
	}
	test, err := Parse([]byte(payloadTest))
	if err != nil {
		t.Fatal(err)
	}
	if test.Report.Passed == nil || *test.Report.Passed || test.Report.Score == nil || test.Report.Issues == nil {
		t.Errorf("zero values must not read as null: %+v", test.Report)
	}
	if got := ReportOutOfQuota.ClientStatus(); got != client.StatusOutOfQuota {
		t.Errorf("ClientStatus = %q", got)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, body string }{
		{"empty", ``},
		{"not JSON", `hello`},
		{"null", `null`},
		{"array", `[{"type":"report.completed"}]`},
		{"string", `"report.completed"`},
		{"trailing garbage", `{"type":"x.y","timestamp":"2026-01-05T09:00:00Z","data":{}} {}`},
		{"missing type", `{"timestamp":"2026-01-05T09:00:00Z","data":{}}`},
		{"empty type", `{"type":"","timestamp":"2026-01-05T09:00:00Z","data":{}}`},
		{"type not a string", `{"type":5,"timestamp":"2026-01-05T09:00:00Z","data":{}}`},
		{"missing timestamp", `{"type":"x.y","data":{}}`},
		{"timestamp not ISO", `{"type":"x.y","timestamp":"5 January 2026","data":{}}`},
		{"timestamp a number", `{"type":"x.y","timestamp":1767603600,"data":{}}`},
		{"test not a boolean", `{"type":"x.y","timestamp":"2026-01-05T09:00:00Z","test":"true","data":{}}`},
		{"report event without data", `{"type":"report.completed","timestamp":"2026-01-05T09:00:00Z"}`},
		{"report event with null data", `{"type":"report.completed","timestamp":"2026-01-05T09:00:00Z","data":null}`},
		{"report event without report", `{"type":"report.failed","timestamp":"2026-01-05T09:00:00Z","data":{}}`},
		{"report event with null report", `{"type":"report.failed","timestamp":"2026-01-05T09:00:00Z","data":{"report":null}}`},
		{"report data an array", `{"type":"report.failed","timestamp":"2026-01-05T09:00:00Z","data":[]}`},
		{"score not an integer", `{"type":"report.completed","timestamp":"2026-01-05T09:00:00Z","data":{"report":{"score":83.5}}}`},
		{"passed not a boolean", `{"type":"report.completed","timestamp":"2026-01-05T09:00:00Z","data":{"report":{"passed":"yes"}}}`},
		{"issues not a list", `{"type":"report.completed","timestamp":"2026-01-05T09:00:00Z","data":{"report":{"issues":{}}}}`},
		{"pub_date with time", `{"type":"report.completed","timestamp":"2026-01-05T09:00:00Z","data":{"report":{"episode":{"pub_date":"2026-01-04T00:00:00Z"}}}}`},
		{"created_at not ISO", `{"type":"report.completed","timestamp":"2026-01-05T09:00:00Z","data":{"report":{"created_at":"yesterday"}}}`},
		{"episode.created without episode", `{"type":"episode.created","timestamp":"2026-01-05T09:00:00Z","data":{"series":{"id":"s"}}}`},
		{"episode.created without series", `{"type":"episode.created","timestamp":"2026-01-05T09:00:00Z","data":{"episode":{"id":"e"}}}`},
		{"feed_broken without failure", `{"type":"series.feed_broken","timestamp":"2026-01-05T09:00:00Z","data":{"series":{"id":"s"}}}`},
		{"feed_broken failures not an integer", `{"type":"series.feed_broken","timestamp":"2026-01-05T09:00:00Z","data":{"series":{"id":"s"},"failure":{"consecutive_failures":"3"}}}`},
		{"leading unicode space", "\u00a0" + payloadUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := Parse([]byte(tt.body))
			if !errors.Is(err, ErrMalformedPayload) {
				t.Fatalf("Parse = %+v, %v; want ErrMalformedPayload", e, err)
			}
			if e.Type != "" || e.Report != nil {
				t.Fatalf("Parse returned a partial event with its error: %+v", e)
			}
		})
	}
}

func TestEventTypeIsKnown(t *testing.T) {
	t.Parallel()
	for _, typ := range []client.WebhookEvent{client.EventReportCompleted, client.EventReportFailed, client.EventReportOutOfQuota, client.EventEpisodeCreated, client.EventSeriesFeedBroken} {
		if !typ.IsKnown() {
			t.Errorf("%s not known", typ)
		}
	}
	for _, typ := range []client.WebhookEvent{"", "report.COMPLETED", "report", "series.renamed"} {
		if typ.IsKnown() {
			t.Errorf("%q known", typ)
		}
	}
}
