package fakeserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/feeds"
)

// event is the part of an event body the feed checker tests read.
type event struct {
	Type string `json:"type"`
	Data struct {
		Series *struct {
			ID      string  `json:"id"`
			Title   *string `json:"title"`
			FeedURL string  `json:"feed_url"`
		} `json:"series"`
		Episode map[string]any `json:"episode"`
		Failure *struct {
			Kind                string  `json:"kind"`
			ConsecutiveFailures int     `json:"consecutive_failures"`
			LastError           *string `json:"last_error"`
		} `json:"failure"`
		Report *struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"report"`
	} `json:"data"`
}

func events(t *testing.T, rc *receiver) []event {
	t.Helper()
	var out []event
	for _, r := range rc.requests() {
		var e event
		if err := json.Unmarshal(r.body, &e); err != nil {
			t.Fatalf("body %s: %v", r.body, err)
		}
		out = append(out, e)
	}
	return out
}

func eventTypes(evs []event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

// TestFeedCheckerNewEpisode: an hourly check finds a new episode; each tracking workspace hears
// episode.created under its own series; with automated reporting on, one gets a report that
// completes and the other, out of credits, an OUT_OF_QUOTA report, its event and an email.
func TestFeedCheckerNewEpisode(t *testing.T) {
	t.Parallel()
	srv, seed := newHookTest(t)
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Show", Episodes: []HostedEpisode{{Title: "One", GUID: "one", Published: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Duration: 1 * time.Second, Format: "wav"}}})
	if err != nil {
		t.Fatal(err)
	}
	other, err := srv.CreateWorkspace(WorkspaceSpec{Type: "organisation", Name: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	otherKey, err := srv.CreateAPIKey(other.ID, "k")
	if err != nil {
		t.Fatal(err)
	}
	reportOn(t, srv, seed.APIKey, feed.FeedURL, 0)
	reportOn(t, srv, otherKey.Key, feed.FeedURL, 0)
	mustAdvance(t, srv, time.Minute)
	seriesA, seriesB := seriesIDs(t, srv, seed.APIKey)[0], seriesIDs(t, srv, otherKey.Key)[0]
	used := 1200.0
	if err := srv.SetCredits(other.ID, CreditsChange{PlanUsed: &used}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{seriesA, seriesB} {
		if err := srv.SetAutomatedReporting(id, true); err != nil {
			t.Fatal(err)
		}
	}
	all := []string{"report.completed", "report.failed", "report.out_of_quota", "episode.created", "series.feed_broken"}
	rcA, rcB := newReceiver(t, 200), newReceiver(t, 200)
	mustEndpoint(t, srv, seed.WorkspaceID, WebhookEndpointSpec{URL: rcA.srv.URL + "/a", Events: all})
	mustEndpoint(t, srv, other.ID, WebhookEndpointSpec{URL: rcB.srv.URL + "/b", Events: all})

	// No new episode: a check says nothing.
	mustAdvance(t, srv, time.Hour)
	if n := len(rcA.requests()) + len(rcB.requests()); n != 0 {
		t.Fatalf("%d events without a new episode", n)
	}
	audio, err := srv.AddHostedEpisode(feed.ID, HostedEpisode{Title: "Two", GUID: "two", Published: time.Date(2026, 1, 4, 0, 0, 0, 0, time.UTC), Duration: 1 * time.Second, Format: "wav"})
	if err != nil {
		t.Fatal(err)
	}
	mustAdvance(t, srv, time.Hour)

	evA, evB := events(t, rcA), events(t, rcB)
	if got := strings.Join(eventTypes(evA), ","); got != "episode.created,report.completed" {
		t.Fatalf("workspace A heard %s", got)
	}
	if got := strings.Join(eventTypes(evB), ","); got != "episode.created,report.out_of_quota" {
		t.Fatalf("workspace B heard %s", got)
	}
	for _, c := range []struct {
		e      event
		series string
	}{{evA[0], seriesA}, {evB[0], seriesB}} {
		ep := c.e.Data.Episode
		if c.e.Data.Series == nil || c.e.Data.Series.ID != c.series || *c.e.Data.Series.Title != "Show" || c.e.Data.Series.FeedURL != feed.FeedURL ||
			ep["guid"] != "two" || ep["title"] != "Two" || ep["pub_date"] != "2026-01-04" || ep["audio_url"] != audio.AudioURL || len(ep) != 5 {
			t.Fatalf("episode.created: %+v %+v", c.e.Data.Series, ep)
		}
	}
	if evB[1].Data.Report.Status != "out_of_quota" {
		t.Fatalf("out of quota: %+v", evB[1].Data.Report)
	}
	r := getReport(t, srv, otherKey.Key, evB[1].Data.Report.ID)
	if r.Status != "OUT_OF_QUOTA" || r.Episode == nil || r.Episode.GUID != "two" {
		t.Fatalf("B's automatic report: %+v", r)
	}
	if es := emailsOf(t, srv, other.ID, "report_out_of_quota"); len(es) != 1 {
		t.Fatalf("emails: %+v", es)
	}
	if r := getReport(t, srv, seed.APIKey, evA[1].Data.Report.ID); r.Status != "COMPLETE" || r.Episode.GUID != "two" {
		t.Fatalf("A's automatic report: %+v", r)
	}
	_, _, b := call(t, srv, "GET", "/api/rest/v1/series/"+seriesA+"/episodes", bearer(seed.APIKey), "")
	if !strings.Contains(string(b), `"guid":"two"`) {
		t.Fatalf("episode not listed: %s", b)
	}
	// The next check finds nothing new.
	mustAdvance(t, srv, time.Hour)
	if len(rcA.requests()) != 2 || len(rcB.requests()) != 2 {
		t.Fatal("an episode was announced twice")
	}
}

// TestFeedBrokenAtMostOnceADay: a feed is declared broken after three failed checks, once on the
// transition; flapping within a day is not announced again; a day later it is.
func TestFeedBrokenAtMostOnceADay(t *testing.T) {
	t.Parallel()
	srv, seed := newHookTest(t)
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Flaky", Episodes: []HostedEpisode{{Title: "One", Duration: 1 * time.Second, Format: "wav"}}})
	if err != nil {
		t.Fatal(err)
	}
	reportOn(t, srv, seed.APIKey, feed.FeedURL, 0)
	rc := newReceiver(t, 200)
	mustEndpoint(t, srv, seed.WorkspaceID, WebhookEndpointSpec{URL: rc.srv.URL + "/hook", Events: []string{"series.feed_broken"}})
	setBroken := func(broken bool) {
		if err := srv.ChangeFeed(feed.ID, FeedChange{Broken: &broken}); err != nil {
			t.Fatal(err)
		}
	}
	setBroken(true)
	mustAdvance(t, srv, 2*time.Hour)
	if len(rc.requests()) != 0 {
		t.Fatal("broken after two failed checks")
	}
	mustAdvance(t, srv, time.Hour)
	evs := events(t, rc)
	if len(evs) != 1 {
		t.Fatalf("%d events after three failed checks", len(evs))
	}
	f := evs[0].Data.Failure
	if f == nil || f.Kind != "fetch" || f.ConsecutiveFailures != 3 || f.LastError == nil || !strings.Contains(*f.LastError, "500") ||
		evs[0].Data.Series == nil || evs[0].Data.Series.ID != seriesIDs(t, srv, seed.APIKey)[0] {
		t.Fatalf("feed_broken: %+v", evs[0].Data)
	}
	mustAdvance(t, srv, 5*time.Hour) // still broken: no second event
	setBroken(false)
	mustAdvance(t, srv, time.Hour)
	setBroken(true)
	mustAdvance(t, srv, 5*time.Hour) // broken again within the day
	if len(rc.requests()) != 1 {
		t.Fatalf("%d events from a flapping feed within a day", len(rc.requests()))
	}
	setBroken(false)
	mustAdvance(t, srv, 14*time.Hour)
	setBroken(true)
	mustAdvance(t, srv, 3*time.Hour) // a day and more after the first notice
	if len(rc.requests()) != 2 {
		t.Fatalf("%d events a day later", len(rc.requests()))
	}
	if es := emailsOf(t, srv, seed.WorkspaceID, "feed_broken"); len(es) != 2 {
		t.Fatalf("emails: %+v", es)
	}
}

// servedFeed is a feed a test serves itself and changes at will.
type servedFeed struct {
	mu   sync.Mutex
	feed feeds.Feed
	srv  *httptest.Server
}

func newServedFeed(t *testing.T, f feeds.Feed) *servedFeed {
	t.Helper()
	sf := &servedFeed{feed: f}
	sf.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sf.mu.Lock()
		body := feeds.Render(sf.feed)
		sf.mu.Unlock()
		w.Header().Set("Content-Type", "application/rss+xml")
		_, _ = w.Write(body)
	}))
	t.Cleanup(sf.srv.Close)
	return sf
}

func (sf *servedFeed) setItems(items []feeds.Item) {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	sf.feed.Items = items
}

// TestBackfillAndIngestFailure: episodes that appear below an already known one are backfill
// and not announced; a newest episode that cannot be stored breaks the feed as "ingest".
func TestBackfillAndIngestFailure(t *testing.T) {
	t.Parallel()
	srv, seed := newHookTest(t)
	host, err := srv.HostFeed(HostedFeedSpec{Title: "Audio", Episodes: []HostedEpisode{{Title: "A", GUID: "a", Duration: 1 * time.Second, Format: "wav"}}})
	if err != nil {
		t.Fatal(err)
	}
	audio, err := srv.AddHostedEpisode(host.ID, HostedEpisode{Title: "B", GUID: "b", Duration: 1 * time.Second, Format: "wav"})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	item := func(guid, url string) feeds.Item {
		return feeds.Item{Title: "Episode " + guid, GUID: guid, PublishedOn: day, AudioURL: url, AudioType: "audio/wav"}
	}
	sf := newServedFeed(t, feeds.Feed{Title: "Own", Link: "https://example.com", Description: "d", Items: []feeds.Item{item("e2", audio.AudioURL), item("e1", audio.AudioURL)}})
	reportOn(t, srv, seed.APIKey, sf.srv.URL, 0)
	rc := newReceiver(t, 200)
	mustEndpoint(t, srv, seed.WorkspaceID, WebhookEndpointSpec{URL: rc.srv.URL + "/hook", Events: []string{"episode.created", "series.feed_broken"}})

	sf.setItems([]feeds.Item{item("e3", audio.AudioURL), item("e2", audio.AudioURL), item("e0", audio.AudioURL), item("e1", audio.AudioURL)})
	mustAdvance(t, srv, time.Hour)
	evs := events(t, rc)
	if len(evs) != 1 || evs[0].Type != "episode.created" || evs[0].Data.Episode["guid"] != "e3" {
		t.Fatalf("events: %+v", evs)
	}
	sf.setItems([]feeds.Item{item("x", "ftp://files.example.com/x.wav"), item("e3", audio.AudioURL)})
	mustAdvance(t, srv, 3*time.Hour)
	evs = events(t, rc)
	if len(evs) != 2 || evs[1].Type != "series.feed_broken" || evs[1].Data.Failure.Kind != "ingest" || evs[1].Data.Failure.ConsecutiveFailures != 3 {
		t.Fatalf("events: %+v", evs)
	}
}

// TestExplicitFlagRecomputed: a feed's changed explicit flag reaches the explicit_flag row of a
// completed report at the next check, without moving updated_at and without an event.
func TestExplicitFlagRecomputed(t *testing.T) {
	t.Parallel()
	srv, seed := newHookTest(t)
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Show", Episodes: []HostedEpisode{{Title: "One", Duration: 1 * time.Second, Format: "wav"}}})
	if err != nil {
		t.Fatal(err)
	}
	id := reportOn(t, srv, seed.APIKey, feed.FeedURL, 0)
	mustAdvance(t, srv, time.Minute)
	rc := newReceiver(t, 200)
	mustEndpoint(t, srv, seed.WorkspaceID, WebhookEndpointSpec{URL: rc.srv.URL + "/hook", Events: []string{"report.completed"}})
	marked := func() (bool, string) {
		_, _, b := call(t, srv, "GET", "/api/rest/v1/reports/"+id, bearer(seed.APIKey), "")
		var r struct {
			UpdatedAt string `json:"updated_at"`
			Results   []struct {
				Name  string          `json:"name"`
				Value json.RawMessage `json:"value"`
			} `json:"results"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		for _, row := range r.Results {
			if row.Name == "explicit_flag" {
				var v struct {
					MarkedExplicit *bool `json:"marked_explicit"`
				}
				if json.Unmarshal(row.Value, &v) != nil || v.MarkedExplicit == nil {
					t.Fatalf("explicit_flag value %s", row.Value)
				}
				return *v.MarkedExplicit, r.UpdatedAt
			}
		}
		t.Fatalf("no explicit_flag row: %s", b)
		return false, ""
	}
	was, updated := marked()
	if was {
		t.Fatal("marked explicit before the change")
	}
	explicit := true
	if err := srv.ChangeFeed(feed.ID, FeedChange{Explicit: &explicit}); err != nil {
		t.Fatal(err)
	}
	mustAdvance(t, srv, time.Hour)
	now, updatedAfter := marked()
	if !now || updatedAfter != updated {
		t.Fatalf("marked %v, updated_at %s then %s", now, updated, updatedAfter)
	}
	if len(rc.requests()) != 0 {
		t.Fatal("the recompute sent an event")
	}
}

// TestControlAPIWebhooks drives the webhook control calls over HTTP.
func TestControlAPIWebhooks(t *testing.T) {
	t.Parallel()
	srv, seed := newHookTest(t)
	rc := newReceiver(t, 200)
	h := jsonHeader(admin(srv))
	status, _, body := call(t, srv, "POST", "/_fake/workspaces/"+seed.WorkspaceID+"/webhook-endpoints", h, `{"url":"`+rc.srv.URL+`/hook","events":["report.completed"]}`)
	var ep struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
		Source string `json:"source"`
	}
	if status != 201 || json.Unmarshal(body, &ep) != nil || !strings.HasPrefix(ep.Secret, "whsec_") || ep.Source != "settings" {
		t.Fatalf("create: %d %s", status, body)
	}
	status, _, body = call(t, srv, "POST", "/_fake/workspaces/"+seed.WorkspaceID+"/webhook-endpoints", h, `{"url":"","events":["report.completed"]}`)
	// control.openapi.json states minLength 1, so the contract check answers before the handler.
	if status != 400 || errorCode(t, body) != "validation_error" || !strings.Contains(string(body), "field url") {
		t.Fatalf("bad create: %d %s", status, body)
	}
	status, _, body = call(t, srv, "GET", "/_fake/workspaces/"+seed.WorkspaceID+"/webhook-endpoints", admin(srv), "")
	if status != 200 || !strings.Contains(string(body), ep.ID) || strings.Contains(string(body), "whsec_") {
		t.Fatalf("list: %d %s", status, body)
	}
	status, _, body = call(t, srv, "POST", "/_fake/webhook-endpoints/"+ep.ID+"/test", admin(srv), "")
	var d struct {
		WebhookID      string          `json:"webhook_id"`
		FailedAttempts int             `json:"failed_attempts"`
		Status         string          `json:"status"`
		ResponseCode   *int            `json:"response_code"`
		Test           bool            `json:"test"`
		Body           json.RawMessage `json:"body"`
	}
	if status != 201 || json.Unmarshal(body, &d) != nil || d.Status != "succeeded" || !d.Test || d.FailedAttempts != 0 || *d.ResponseCode != 200 {
		t.Fatalf("test event: %d %s", status, body)
	}
	if len(rc.requests()) != 1 || string(rc.requests()[0].body) != string(d.Body) {
		t.Fatal("the logged body is not what was sent")
	}
	status, _, body = call(t, srv, "GET", "/_fake/webhook-deliveries?endpoint_id="+ep.ID, admin(srv), "")
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if status != 200 || json.Unmarshal(body, &list) != nil || len(list.Items) != 1 || list.Items[0]["webhook_id"] != d.WebhookID ||
		list.Items[0]["event_type"] != "report.completed" || list.Items[0]["attempts"] != 1.0 || list.Items[0]["status"] != "succeeded" ||
		list.Items[0]["response_code"] != 200.0 || list.Items[0]["last_error"] != nil {
		t.Fatalf("deliveries: %d %s", status, body)
	}
	status, _, body = call(t, srv, "GET", "/_fake/emails?workspace_id="+seed.WorkspaceID, admin(srv), "")
	if status != 200 || string(body) != `{"items":[]}`+"\n" {
		t.Fatalf("emails: %d %s", status, body)
	}
	status, _, body = call(t, srv, "PUT", "/_fake/series/0b0e3c4e-0000-4000-8000-000000000000/automated-reporting", h, `{"enabled":true}`)
	if status != 404 || errorCode(t, body) != "not_found" {
		t.Fatalf("automated reporting of an unknown series: %d %s", status, body)
	}
	status, _, _ = call(t, srv, "DELETE", "/_fake/webhook-endpoints/"+ep.ID, admin(srv), "")
	if status != 204 {
		t.Fatalf("delete: %d", status)
	}
	status, _, body = call(t, srv, "GET", "/_fake/webhook-deliveries?endpoint_id="+ep.ID, admin(srv), "")
	if status != 404 || errorCode(t, body) != "not_found" {
		t.Fatalf("deliveries of a deleted endpoint: %d %s", status, body)
	}
	if _, err := srv.SendTestEvent(context.Background(), ep.ID); err == nil {
		t.Fatal("test event to a deleted endpoint")
	}
}

// TestControlEnabledIsRequired: the control calls that switch something on or off refuse a
// body without "enabled", or with it null, and change nothing.
func TestControlEnabledIsRequired(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	ep, err := srv.CreateWebhookEndpoint(context.Background(), seed.WorkspaceID, WebhookEndpointSpec{URL: "http://127.0.0.1:1/hook", Events: []string{"report.completed"}})
	if err != nil {
		t.Fatal(err)
	}
	h := jsonHeader(admin(srv))
	for _, path := range []string{"/_fake/webhook-endpoints/" + ep.ID, "/_fake/series/0b0e3c4e-0000-4000-8000-000000000000/automated-reporting"} {
		method := map[bool]string{true: "PATCH", false: "PUT"}[strings.Contains(path, "webhook-endpoints")]
		for _, body := range []string{`{}`, `{"enabled":null}`} {
			status, _, b := call(t, srv, method, path, h, body)
			// The handler's check, or the control contract's before it, names the field.
			if status != http.StatusBadRequest || errorCode(t, b) != "validation_error" || !strings.Contains(string(b), "enabled") {
				t.Errorf("%s %s %s: %d %s", method, path, body, status, b)
			}
		}
	}
	eps, err := srv.WebhookEndpoints(seed.WorkspaceID)
	if err != nil || len(eps) != 1 || !eps[0].Enabled {
		t.Fatalf("endpoints after refused calls: %+v %v", eps, err)
	}
}
