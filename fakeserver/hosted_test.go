package fakeserver

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"
)

type reportAnswer struct {
	ID             string  `json:"id"`
	Status         string  `json:"status"`
	Name           *string `json:"name"`
	CreditsCharged *string `json:"credits_charged"`
	AudioURL       *string `json:"audio_url"`
	Stats          *struct {
		Passed        *bool `json:"passed"`
		Total         *int  `json:"total"`
		TimeRemaining *int  `json:"time_remaining"`
	} `json:"stats"`
	Results []struct {
		Name   string          `json:"name"`
		Status string          `json:"status"`
		Value  json.RawMessage `json:"value"`
		Limit  *string         `json:"limit"`
	} `json:"results"`
	FileInfo map[string]any `json:"file_info"`
	Series   *struct {
		ID      string `json:"id"`
		Title   string `json:"title"`
		FeedURL string `json:"feed_url"`
	} `json:"series"`
	Episode *struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		GUID  string `json:"guid"`
	} `json:"episode"`
	Standard struct {
		Name    string `json:"name"`
		Builtin bool   `json:"builtin"`
	} `json:"standard"`
}

func getReport(t *testing.T, srv *Server, key, id string) reportAnswer {
	t.Helper()
	status, _, body := call(t, srv, "GET", "/api/rest/v1/reports/"+id, bearer(key), "")
	var r reportAnswer
	if status != 200 || json.Unmarshal(body, &r) != nil {
		t.Fatalf("get report: %d %s", status, body)
	}
	return r
}

func createFromFeed(t *testing.T, srv *Server, key, body string) (int, []byte) {
	t.Helper()
	status, _, b := call(t, srv, "POST", "/api/rest/v1/reports", jsonHeader(bearer(key)), body)
	return status, b
}

func TestReportFromHostedFeedEndToEnd(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	loud, quiet := -16.0, -24.0
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Hosted Show", Episodes: []HostedEpisode{
		{Title: "Newest", GUID: "n", Duration: 20 * time.Second, LoudnessLUFS: &loud, Channels: 2, Transcript: []TranscriptLine{
			{Start: 0, End: 1500 * time.Millisecond, Text: "Welcome.", Speaker: ptrTo("alice")},
			{Start: 1500 * time.Millisecond, End: 3000 * time.Millisecond, Text: "Thanks.", Speaker: ptrTo("bob"), Confidence: ptrTo(0.9)},
			{Start: 3000 * time.Millisecond, End: 4000 * time.Millisecond, Text: "Let's start.", Speaker: ptrTo("alice")},
		}},
		{Title: "Quiet one", GUID: "q", Duration: 8 * time.Second, LoudnessLUFS: &quiet},
		{Title: "Broken audio", GUID: "b", Duration: 5 * time.Second, FailAnalysis: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for i, name := range []string{"newest", "quiet", "broken"} {
		status, body := createFromFeed(t, srv, seed.APIKey, `{"feed_url":"`+feed.FeedURL+`","episode_index":`+itoa(i)+`}`)
		var created struct{ ID, Status string }
		if status != 201 || json.Unmarshal(body, &created) != nil || created.Status != "PENDING" {
			t.Fatalf("create %s: %d %s", name, status, body)
		}
		ids[name] = created.ID
	}
	if _, err := srv.Advance(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	running := getReport(t, srv, seed.APIKey, ids["newest"])
	// 20 s of audio at 5 min per hour: a 1,667 ms estimate.
	if running.Status != "IN_PROGRESS" || running.Stats == nil || *running.Stats.TimeRemaining != 1666 {
		t.Fatalf("running report %+v", running)
	}
	if _, err := srv.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	newest := getReport(t, srv, seed.APIKey, ids["newest"])
	if newest.Status != "COMPLETE" || !*newest.Stats.Passed || *newest.CreditsCharged != "100.00" || *newest.Name != "Newest" {
		t.Fatalf("newest %+v", newest)
	}
	var lufs float64
	if err := json.Unmarshal(newest.Results[0].Value, &lufs); err != nil || newest.Results[0].Name != "loudness_lufs" || math.Abs(lufs-loud) > 0.1 {
		t.Fatalf("measured %v (%v), asked %v", lufs, err, loud)
	}
	if newest.Series == nil || newest.Series.Title != "Hosted Show" || newest.Series.FeedURL != feed.FeedURL || newest.Episode.GUID != "n" {
		t.Fatalf("series/episode %+v %+v", newest.Series, newest.Episode)
	}
	if newest.FileInfo["channels"] != 2.0 || newest.FileInfo["format_name"] != "mp3" || newest.FileInfo["codec_name"] != "mp3" || math.Abs(newest.FileInfo["duration"].(float64)-20) > 0.01 {
		t.Fatalf("file_info %v", newest.FileInfo)
	}
	if newest.Standard.Name != "Podcast" || !newest.Standard.Builtin {
		t.Fatalf("standard %+v", newest.Standard)
	}
	status, _, body := call(t, srv, "GET", "/api/rest/v1/reports/"+ids["newest"]+"/transcript", bearer(seed.APIKey), "")
	want := `{"report_id":"` + ids["newest"] + `","transcript":[{"end":1500,"speaker":"Speaker 1","start":0,"text":"Welcome."},` +
		`{"end":3000,"speaker":"Speaker 2","start":1500,"text":"Thanks."},{"end":4000,"speaker":"Speaker 1","start":3000,"text":"Let's start."}]}`
	if status != 200 || strings.TrimSpace(string(body)) != want {
		t.Fatalf("transcript %d %s", status, body)
	}
	status, _, body = call(t, srv, "GET", "/api/rest/v1/reports/"+ids["quiet"]+"/transcript", bearer(seed.APIKey), "")
	if status != 200 || !strings.Contains(string(body), `"transcript":null`) {
		t.Fatalf("no transcript %d %s", status, body)
	}
	quietR := getReport(t, srv, seed.APIKey, ids["quiet"])
	if quietR.Status != "COMPLETE" || *quietR.Stats.Passed || quietR.Results[0].Status != "FAIL" {
		t.Fatalf("a quiet mono episode should fail loudness: %+v", quietR)
	}
	broken := getReport(t, srv, seed.APIKey, ids["broken"])
	if broken.Status != "FAILED" || broken.CreditsCharged != nil {
		t.Fatalf("broken %+v", broken)
	}

	// The show was added once; three episodes seen, newest first by first_seen_at.
	status, _, body = call(t, srv, "GET", "/api/rest/v1/series/"+newest.Series.ID+"/episodes", bearer(seed.APIKey), "")
	var eps struct {
		Items []struct{ GUID string } `json:"items"`
	}
	if status != 200 || json.Unmarshal(body, &eps) != nil || len(eps.Items) != 3 {
		t.Fatalf("episodes %d %s", status, body)
	}
	status, _, body = call(t, srv, "GET", "/api/rest/v1/reports?status=COMPLETE&series_id="+newest.Series.ID, bearer(seed.APIKey), "")
	if status != 200 || strings.Count(string(body), `"status":"COMPLETE"`) != 2 || !strings.Contains(string(body), `"title":"Hosted Show"`) {
		t.Fatalf("list %d %s", status, body)
	}
	// From the series, too.
	if status, body := createFromFeed(t, srv, seed.APIKey, `{"series_id":"`+newest.Series.ID+`"}`); status != 201 {
		t.Fatalf("from series: %d %s", status, body)
	}
}

func TestReportFromFeedRefusals(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	one := 1
	small, _ := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "Small", PodcastLimit: &one})
	smallKey, _ := srv.CreateAPIKey(small.ID, "")
	a, _ := srv.HostFeed(HostedFeedSpec{Title: "A", Episodes: []HostedEpisode{{Title: "a", Duration: 2 * time.Second}}})
	b, _ := srv.HostFeed(HostedFeedSpec{Title: "B", Episodes: []HostedEpisode{{Title: "b", Duration: 2 * time.Second}}})
	broken, _ := srv.HostFeed(HostedFeedSpec{Title: "Broken", Episodes: []HostedEpisode{{Title: "x", Duration: 2 * time.Second}}})
	if err := srv.ChangeFeed(broken.ID, FeedChange{Broken: ptrTo(true)}); err != nil {
		t.Fatal(err)
	}
	if status, body := createFromFeed(t, srv, smallKey.Key, `{"feed_url":"`+a.FeedURL+`"}`); status != 201 {
		t.Fatalf("first show: %d %s", status, body)
	}
	tests := []struct {
		name, key, body string
		status          int
		code, contains  string
	}{
		{"broken feed", seed.APIKey, `{"feed_url":"` + broken.FeedURL + `"}`, 400, "validation_error", "500"},
		{"not a feed", seed.APIKey, `{"feed_url":"` + srv.URL() + `/api/rest/v1/openapi.json"}`, 400, "validation_error", "feed"},
		{"index past the end", seed.APIKey, `{"feed_url":"` + a.FeedURL + `","episode_index":1}`, 400, "validation_error", "past the end"},
		{"podcast cap", smallKey.Key, `{"feed_url":"` + b.FeedURL + `"}`, 403, "plan_limit_reached", "allows 1 podcasts"},
		{"unknown series", seed.APIKey, `{"series_id":"0b0e3c4e-1111-4000-8000-000000000000"}`, 404, "not_found", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := createFromFeed(t, srv, tt.key, tt.body)
			if status != tt.status || errorCode(t, body) != tt.code || !strings.Contains(string(body), tt.contains) {
				t.Fatalf("%d %s", status, body)
			}
		})
	}
	status, _, body := call(t, srv, "GET", "/api/rest/v1/series", bearer(smallKey.Key), "")
	if status != http.StatusOK || strings.Count(string(body), `"id"`) != 1 {
		t.Fatalf("the refused show was added: %s", body)
	}
}

func TestHostedFeedControl(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	status, _, body := call(t, srv, "POST", "/_fake/feeds", admin(srv), `{"title":"Ctl","explicit":true,"episodes":[{"title":"one","duration_s":3,"published_on":"2025-12-31"}]}`)
	var feed HostedFeed
	if status != 201 || json.Unmarshal(body, &feed) != nil {
		t.Fatalf("%d %s", status, body)
	}
	status, _, body = call(t, srv, "POST", "/_fake/feeds/"+feed.ID+"/episodes", admin(srv), `{"title":"two","guid":"g2","duration_s":4}`)
	var ep HostedAudio
	if status != 201 || json.Unmarshal(body, &ep) != nil || ep.GUID != "g2" {
		t.Fatalf("%d %s", status, body)
	}
	status, _, rss := call(t, srv, "GET", strings.TrimPrefix(feed.FeedURL, srv.URL()), nil, "")
	if status != 200 || !strings.Contains(string(rss), "<itunes:explicit>true</itunes:explicit>") || strings.Index(string(rss), "two") > strings.Index(string(rss), "one") {
		t.Fatalf("feed %d %s", status, rss)
	}
	if status, _, _ := call(t, srv, "GET", strings.TrimPrefix(ep.AudioURL, srv.URL()), nil, ""); status != 200 {
		t.Fatalf("hosted audio answered %d", status)
	}
	if status, _, _ := call(t, srv, "GET", "/_feeds/"+feed.ID+"/audio/nope.wav", nil, ""); status != 404 {
		t.Fatalf("unknown audio answered %d", status)
	}
	if status, _, _ := call(t, srv, "PATCH", "/_fake/feeds/"+feed.ID, admin(srv), `{"broken":true}`); status != 200 {
		t.Fatal(status)
	}
	if status, _, _ := call(t, srv, "GET", strings.TrimPrefix(feed.FeedURL, srv.URL()), nil, ""); status != 500 {
		t.Fatalf("broken feed answered %d", status)
	}
	bad := []string{
		`{"title":"","episodes":[]}`,
		`{"title":"x","episodes":[{"title":"a","duration_s":0}]}`,
		`{"title":"x","episodes":[{"title":"a","duration_s":5,"channels":3}]}`,
		`{"title":"x","episodes":[{"title":"a","duration_s":5,"loudness_lufs":3}]}`,
		`{"title":"x","episodes":[{"title":"a","duration_s":5,"published_on":"yesterday"}]}`,
		`{"title":"x","episodes":[{"title":"a","duration_s":5,"loudness_lufs":-10,"true_peak_db":-15}]}`,
		`{"title":"x","episodes":[{"title":"a","guid":"g","duration_s":5},{"title":"b","guid":"g","duration_s":5}]}`,
	}
	for _, b := range bad {
		if status, _, body := call(t, srv, "POST", "/_fake/feeds", admin(srv), b); status != 400 {
			t.Errorf("%s: %d %s", b, status, body)
		}
	}
}
