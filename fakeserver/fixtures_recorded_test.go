package fakeserver

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// recordedDoc is a workspace with one series of one episode and the given recorded reports.
func recordedDoc(reports string) string {
	return `{"workspaces":[{"ref":"w","type":"personal","name":"W",
	  "series":[{"ref":"s","id":"4c9a3bd4-57d4-4e54-8b0c-53a1f0d8b001","feed_url":"https://feeds.example/show.xml",
	    "episodes":[{"ref":"e","audio_url":"https://cdn.example/e.mp3"}]}],
	  "recorded_reports":[` + reports + `]}]}`
}

const goodRecorded = `{"id":"4c9a3bd4-57d4-4e54-8b0c-53a1f0d8b002","status":"COMPLETE","created_at":"2026-01-05T09:00:00.000000+00:00",
  "original_filename":"e.mp3","series":"s","episode":"e","credits_charged":"100.00",
  "stats":{"passes":1,"time_remaining":0},"results":[{"name":"peak","limit":null,"warning_message":null}],
  "metadata":{"title":null},"transcript":[{"start":0,"end":1,"text":"x","speaker":null}]}`

// TestRecordedFixturesAreStrict is issue 42's fixtures test: recorded reports, series and
// episodes are refused as strictly as the rest of a fixtures document, each refusal naming the
// entry by its JSON path, and a good one loads (nulls inside the kept parts included).
func TestRecordedFixturesAreStrict(t *testing.T) {
	t.Parallel()
	r := func(extra string) string {
		return recordedDoc(`{"status":"COMPLETE","created_at":"2026-01-05T09:00:00Z","original_filename":"a.wav"` + extra + `}`)
	}
	tests := []struct{ name, doc, want string }{
		{"unknown field", r(`,"colour":"red"`), "workspaces[0].recorded_reports[0].colour: unknown field"},
		{"status not a status", r(`,"status":"DONE"`), "workspaces[0].recorded_reports[0].status: appears twice"},
		{"status of another kind", recordedDoc(`{"status":"DONE","created_at":"2026-01-05T09:00:00Z","original_filename":"a.wav"}`), "workspaces[0].recorded_reports[0].status: must be PENDING, SCHEDULED"},
		{"status in lower case", recordedDoc(`{"status":"complete","created_at":"2026-01-05T09:00:00Z","original_filename":"a.wav"}`), "recorded_reports[0].status: must be PENDING"},
		{"no created_at", recordedDoc(`{"status":"COMPLETE","original_filename":"a.wav"}`), "workspaces[0].recorded_reports[0].created_at: is required"},
		{"created_at not a time", recordedDoc(`{"status":"COMPLETE","created_at":"yesterday","original_filename":"a.wav"}`), "recorded_reports[0].created_at: must be an RFC 3339 date-time"},
		{"updated before created", r(`,"updated_at":"2026-01-04T09:00:00Z"`), "recorded_reports[0].updated_at: must not be before created_at"},
		{"no file name", recordedDoc(`{"status":"COMPLETE","created_at":"2026-01-05T09:00:00Z"}`), "recorded_reports[0].original_filename: is required"},
		{"stats an array", r(`,"stats":[1]`), "recorded_reports[0].stats: must be an object"},
		{"results an object", r(`,"results":{"a":1}`), "recorded_reports[0].results: must be an array"},
		{"a result not an object", r(`,"results":[{"name":"a"},7]`), "recorded_reports[0].results[1]: must be an object"},
		{"a kept part not JSON", r(`,"stats":{"passes":1,}`), "recorded_reports[0].stats: not JSON"},
		{"credits not a decimal", r(`,"credits_charged":"lots"`), "recorded_reports[0].credits_charged: must be a decimal"},
		{"credits a number", r(`,"credits_charged":100`), "recorded_reports[0].credits_charged: must be a string"},
		{"an id in upper case", r(`,"id":"4C9A3BD4-57D4-4E54-8B0C-53A1F0D8B002"`), "recorded_reports[0].id: must be a lower-case UUID"},
		{"an id twice", recordedDoc(goodRecorded + "," + goodRecorded), "recorded_reports[1].id: is already the id of workspaces[0].recorded_reports[0].id"},
		{"an id of a series", r(`,"id":"4c9a3bd4-57d4-4e54-8b0c-53a1f0d8b001"`), "recorded_reports[0].id: is already the id of workspaces[0].series[0].id"},
		{"an unknown series", r(`,"series":"nope","episode":"e"`), `recorded_reports[0].series: "nope" is not a ref of this workspace's series`},
		{"an episode without its series", r(`,"episode":"e"`), "recorded_reports[0].episode: needs the report's series"},
		{"a series without its episode", r(`,"series":"s"`), "recorded_reports[0].episode: is required with series"},
		{"an unknown episode", r(`,"series":"s","episode":"x"`), `recorded_reports[0].episode: "x" is not a ref of the episodes of series "s"`},
		{"a standard without an id", r(`,"standard":{"id":"","name":"Podcast","builtin":true}`), "recorded_reports[0].standard.id: must be a lower-case UUID"},
		{"null outside a kept part", r(`,"name":null`), "recorded_reports[0].name: must not be null"},
		{"a transcript line backwards", r(`,"transcript":[{"start":5,"end":1,"text":"x"}]`), "recorded_reports[0].transcript[0]: needs 0 <= start <= end"},
		{"a transcript line of another shape", r(`,"transcript":[{"start":0,"end":1,"text":"x","words":[]}]`), "recorded_reports[0].transcript[0].words: unknown field"},
		{"a series without a feed", `{"workspaces":[{"ref":"w","type":"personal","name":"W","series":[{"ref":"s","feed_url":"feed.xml"}]}]}`, "workspaces[0].series[0].feed_url: must be an absolute http or https URL"},
		{"two series of one feed", `{"workspaces":[{"ref":"w","type":"personal","name":"W","series":[{"ref":"s","feed_url":"https://a.example/f"},{"ref":"t","feed_url":"https://a.example/f"}]}]}`, "workspaces[0].series[1].feed_url: is already the feed of workspaces[0].series[0]"},
		{"a series ref twice", `{"workspaces":[{"ref":"w","type":"personal","name":"W","series":[{"ref":"s","feed_url":"https://a.example/f"},{"ref":"s","feed_url":"https://a.example/g"}]}]}`, `workspaces[0].series[1].ref: "s" is already the ref of workspaces[0].series[0]`},
		{"an episode without audio", `{"workspaces":[{"ref":"w","type":"personal","name":"W","series":[{"ref":"s","feed_url":"https://a.example/f","episodes":[{"ref":"e"}]}]}]}`, "workspaces[0].series[0].episodes[0].audio_url: is required"},
		{"recorded reports in an object", `{"workspaces":[{"ref":"w","type":"personal","name":"W","recorded_reports":{"x":{"stats":{}}}}]}`, "workspaces[0].recorded_reports: must be an array"},
		{"workspaces in an object", `{"workspaces":{"w":{"recorded_reports":[{"stats":{}}]}}}`, "workspaces: must be an array"},
		{"an episode's day not a date", `{"workspaces":[{"ref":"w","type":"personal","name":"W","series":[{"ref":"s","feed_url":"https://a.example/f","episodes":[{"ref":"e","audio_url":"https://a.example/e","published_on":"5 Jan"}]}]}]}`, "workspaces[0].series[0].episodes[0].published_on: must be a date, YYYY-MM-DD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := LoadFixtures(strings.NewReader(tt.doc))
			var fe *FixtureError
			if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) || fe.Path == "" {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	f, err := LoadFixtures(strings.NewReader(recordedDoc(goodRecorded)))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(WithFixtures(f), WithManualClock(TestStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if ids := srv.Fixtures(); ids.Series["s"] != "4c9a3bd4-57d4-4e54-8b0c-53a1f0d8b001" || len(ids.Episodes["e"]) != 36 {
		t.Fatalf("fixture ids %+v", ids)
	}
}

// TestRecordedFixturesRefusedByTheFakeServeNothing: a document the loader accepts but the fake
// cannot hold (a recorded id the fake already gave another fixture) makes New fail naming it,
// and no fake is made.
func TestRecordedFixturesRefusedByTheFakeServeNothing(t *testing.T) {
	t.Parallel()
	f, err := LoadFixtures(strings.NewReader(recordedDoc(goodRecorded)))
	if err != nil {
		t.Fatal(err)
	}
	f.Workspaces = append(f.Workspaces, f.Workspaces[0])
	f.Workspaces[1].Ref = "w2"
	srv, err := New(WithFixtures(f), WithManualClock(TestStart()))
	var fe *FixtureError
	if srv != nil || !errors.As(err, &fe) || !strings.HasPrefix(fe.Path, "workspaces[1].") {
		t.Fatalf("srv %v, err %v", srv, err)
	}
}

// TestRecordedFixturesAfterReset: a reset loads the recorded entries again, with their ids, and
// the report answers as before.
func TestRecordedFixturesAfterReset(t *testing.T) {
	t.Parallel()
	f, err := LoadFixtures(strings.NewReader(`{"workspaces":[{"ref":"w","type":"personal","name":"W",
	  "api_keys":[{"ref":"k","key":"podqa_api_recorded_reset_key_0123456789"}],
	  "series":[{"ref":"s","id":"4c9a3bd4-57d4-4e54-8b0c-53a1f0d8b001","feed_url":"https://feeds.example/show.xml",
	    "episodes":[{"ref":"e","audio_url":"https://cdn.example/e.mp3"}]}],
	  "recorded_reports":[` + goodRecorded + `]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(WithFixtures(f), WithManualClock(TestStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	get := func() string {
		req, _ := http.NewRequest(http.MethodGet, srv.URL()+"/api/rest/v1/reports/4c9a3bd4-57d4-4e54-8b0c-53a1f0d8b002", nil)
		req.Header.Set("Authorization", "Bearer podqa_api_recorded_reset_key_0123456789")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
		return string(b)
	}
	before := get()
	if !strings.Contains(before, `"credits_charged":"100.00"`) || !strings.Contains(before, `"warning_message":null`) {
		t.Fatalf("not as recorded: %s", before)
	}
	if _, err := srv.Reset(); err != nil {
		t.Fatal(err)
	}
	if after := get(); after != before {
		t.Fatalf("after a reset:\n%s\nbefore:\n%s", after, before)
	}
}
