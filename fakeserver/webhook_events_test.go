package fakeserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func reportOn(t *testing.T, srv *Server, key, feedURL string, index int) string {
	t.Helper()
	status, b := createFromFeed(t, srv, key, `{"feed_url":"`+feedURL+`","episode_index":`+itoa(index)+`}`)
	var r struct {
		ID string `json:"id"`
	}
	if status != http.StatusCreated || json.Unmarshal(b, &r) != nil {
		t.Fatalf("report: %d %s", status, b)
	}
	return r.ID
}

func emailsOf(t *testing.T, srv *Server, ws, kind string) []Email {
	t.Helper()
	es, err := srv.Emails(ws)
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(es, func(e Email) bool { return e.Kind != kind })
}

func endpointByID(t *testing.T, srv *Server, ws, id string) WebhookEndpoint {
	t.Helper()
	eps, err := srv.WebhookEndpoints(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range eps {
		if ep.ID == id {
			return ep
		}
	}
	t.Fatalf("no endpoint %s", id)
	return WebhookEndpoint{}
}

// TestDisableAfterFiveExhaustedAndReenable: five deliveries in a row that exhaust the ladder
// disable a Settings endpoint and email the owner; a disabled endpoint is sent nothing new;
// re-enabling it resumes the retry still queued.
func TestDisableAfterFiveExhaustedAndReenable(t *testing.T) {
	t.Parallel()
	srv, seed := newHookTest(t)
	failing := newReceiver(t, http.StatusInternalServerError)
	healthy := newReceiver(t, http.StatusOK)
	ep := mustEndpoint(t, srv, seed.WorkspaceID, WebhookEndpointSpec{URL: failing.srv.URL + "/hook", Events: []string{"report.completed"}})
	witness := mustEndpoint(t, srv, seed.WorkspaceID, WebhookEndpointSpec{URL: healthy.srv.URL + "/hook", Events: []string{"report.completed"}})
	ctx := context.Background()
	for range 5 {
		if _, err := srv.SendTestEvent(ctx, ep.ID); err != nil {
			t.Fatal(err)
		}
	}
	mustAdvance(t, srv, time.Hour)
	sixth, err := srv.SendTestEvent(ctx, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	mustAdvance(t, srv, 28*time.Hour) // the first five run out at 28.5 hours

	if endpointByID(t, srv, seed.WorkspaceID, ep.ID).Enabled {
		t.Fatal("still enabled after five exhausted deliveries")
	}
	if es := emailsOf(t, srv, seed.WorkspaceID, "endpoint_disabled"); len(es) != 1 || len(es[0].To) != 1 || !strings.Contains(es[0].Text, ep.ID) {
		t.Fatalf("emails: %+v", es)
	}
	ds := deliveriesOf(t, srv, ep.ID)
	abandoned := slices.DeleteFunc(slices.Clone(ds), func(d WebhookDelivery) bool { return d.Status != "abandoned" })
	if len(ds) != 6 || len(abandoned) != 5 || ds[0].ID != sixth.ID || ds[0].Status != "retrying" || ds[0].Attempts != 9 {
		t.Fatalf("log: %+v", ds)
	}
	before := len(failing.requests())

	// Disabled: a new event is not queued for it, while another endpoint hears it.
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Show", Episodes: []HostedEpisode{{Title: "One", Duration: 1 * time.Second, Format: "wav"}}})
	if err != nil {
		t.Fatal(err)
	}
	reportOn(t, srv, seed.APIKey, feed.FeedURL, 0)
	mustAdvance(t, srv, 2*time.Hour) // past the sixth's due time, too
	if got := deliveriesOf(t, srv, ep.ID); len(got) != 6 || len(failing.requests()) != before {
		t.Fatalf("a disabled endpoint got something: %d deliveries, %d requests", len(got), len(failing.requests()))
	}
	if got := deliveriesOf(t, srv, witness.ID); len(got) != 1 || got[0].Test || got[0].Status != "succeeded" {
		t.Fatalf("witness: %+v", got)
	}
	if _, err := srv.SendTestEvent(ctx, ep.ID); err == nil {
		t.Fatal("a test event went to a disabled endpoint")
	}

	// Re-enabled in Settings: the queued retry goes out on the next sweep, and succeeds.
	failing.set(http.StatusOK, false)
	status, _, body := call(t, srv, "PATCH", "/_fake/webhook-endpoints/"+ep.ID, jsonHeader(admin(srv)), `{"enabled":true}`)
	if status != http.StatusOK || !strings.Contains(string(body), `"enabled":true`) {
		t.Fatalf("re-enable: %d %s", status, body)
	}
	mustAdvance(t, srv, 5*time.Minute)
	ds = deliveriesOf(t, srv, ep.ID)
	if ds[0].ID != sixth.ID || ds[0].Status != "succeeded" || ds[0].Attempts != 10 || ds[0].FailedAttempts != 9 || ds[0].LastError != nil {
		t.Fatalf("resumed: %+v", ds[0])
	}
	if got := failing.requests(); len(got) != before+1 || got[len(got)-1].header.Get("webhook-id") != sixth.WebhookID {
		t.Fatalf("requests after re-enabling: %d", len(got))
	}
}

// TestRESTEndpointDisabledForGood: a REST endpoint that five real events wear out is disabled
// and cannot be re-enabled; the report.completed body is exactly as specified.
func TestRESTEndpointDisabledForGood(t *testing.T) {
	t.Parallel()
	srv, seed := newHookTest(t)
	rc := newReceiver(t, http.StatusServiceUnavailable)
	var eps []HostedEpisode
	for i := range 5 {
		eps = append(eps, HostedEpisode{Title: "Episode " + itoa(5-i), GUID: "g" + itoa(5-i), Published: time.Date(2025, 12, 5-i, 0, 0, 0, 0, time.UTC), Duration: 1 * time.Second, Format: "wav"})
	}
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Show", Episodes: eps})
	if err != nil {
		t.Fatal(err)
	}
	id := subscribe(t, srv, seed.APIKey, `{"url":"`+rc.srv.URL+`/hook","events":["report.completed"]}`)
	var reports []string
	for i := range 5 {
		reports = append(reports, reportOn(t, srv, seed.APIKey, feed.FeedURL, i))
	}
	mustAdvance(t, srv, time.Minute)
	first := rc.requests()
	if len(first) != 5 {
		t.Fatalf("%d first attempts", len(first))
	}
	checkCompletedBody(t, srv, first[0].body, reports)

	mustAdvance(t, srv, 29*time.Hour)
	ep := endpointByID(t, srv, seed.WorkspaceID, id)
	if ep.Enabled || ep.Source != "rest" || len(rc.requests()) != 50 {
		t.Fatalf("endpoint %+v after %d requests", ep, len(rc.requests()))
	}
	if es := emailsOf(t, srv, seed.WorkspaceID, "endpoint_disabled"); len(es) != 1 {
		t.Fatalf("emails: %+v", es)
	}
	_, err = srv.SetWebhookEndpointEnabled(id, true)
	var e *Error
	if !errors.As(err, &e) || e.Status != http.StatusConflict {
		t.Fatalf("re-enable a REST endpoint: %v", err)
	}
	status, _, body := call(t, srv, "PATCH", "/_fake/webhook-endpoints/"+id, jsonHeader(admin(srv)), `{"enabled":true}`)
	if status != http.StatusConflict || errorCode(t, body) != "conflict" {
		t.Fatalf("through the control API: %d %s", status, body)
	}
	if endpointByID(t, srv, seed.WorkspaceID, id).Enabled {
		t.Fatal("re-enabled")
	}
}

// checkCompletedBody checks a report.completed body field by field against the spec.
func checkCompletedBody(t *testing.T, srv *Server, body []byte, reports []string) {
	t.Helper()
	var env map[string]json.RawMessage
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	if keys := sortedKeys(env); strings.Join(keys, ",") != "data,timestamp,type" {
		t.Fatalf("envelope keys %v", keys)
	}
	var e struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Data      struct {
			Report map[string]json.RawMessage `json:"report"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Type != "report.completed" || !strings.HasPrefix(e.Timestamp, "2026-01-05T09:00:02.") || !strings.HasSuffix(e.Timestamp, "+00:00") {
		t.Fatalf("envelope: %s", body)
	}
	r := e.Data.Report
	want := "client_reference,created_at,episode,failures,filename,id,issues,passed,passes,score,series,status,total,url"
	if keys := sortedKeys(r); strings.Join(keys, ",") != want {
		t.Fatalf("report keys %v", keys)
	}
	var rep struct {
		ID              string `json:"id"`
		URL             string `json:"url"`
		Status          string `json:"status"`
		Passed          *bool  `json:"passed"`
		Score           *int   `json:"score"`
		Passes          *int   `json:"passes"`
		Failures        *int   `json:"failures"`
		Total           *int   `json:"total"`
		Filename        string `json:"filename"`
		ClientReference string `json:"client_reference"`
		CreatedAt       string `json:"created_at"`
		Series          struct {
			ID      string `json:"id"`
			Title   string `json:"title"`
			FeedURL string `json:"feed_url"`
		} `json:"series"`
		Episode map[string]any               `json:"episode"`
		Issues  []map[string]json.RawMessage `json:"issues"`
	}
	b, _ := json.Marshal(r)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(reports, rep.ID) || rep.URL != srv.URL()+"/app/reports/"+rep.ID || rep.Status != "complete" ||
		rep.Passed == nil || !*rep.Passed || rep.Score == nil || *rep.Score != 100 || *rep.Passes != *rep.Total || *rep.Failures != 0 ||
		!strings.HasSuffix(rep.Filename, ".wav") || rep.ClientReference != "" || rep.CreatedAt != "2026-01-05T09:00:00.000000+00:00" ||
		rep.Series.Title != "Show" || !strings.HasPrefix(rep.Series.FeedURL, srv.URL()) {
		t.Fatalf("report: %+v", rep)
	}
	if keys := sortedKeys(rep.Episode); strings.Join(keys, ",") != "guid,id,pub_date,title" || !strings.HasPrefix(rep.Episode["pub_date"].(string), "2025-12-0") {
		t.Fatalf("episode: %+v", rep.Episode)
	}
	if len(rep.Issues) != *rep.Total {
		t.Fatalf("%d issues for %d checks", len(rep.Issues), *rep.Total)
	}
	wantIssue := "description,limit,link,measurement_unit,name,severity,status,value,verbose_name,warning_message"
	for _, is := range rep.Issues {
		if keys := sortedKeys(is); strings.Join(keys, ",") != wantIssue || string(is["status"]) != `"PASS"` || string(is["warning_message"]) != "null" {
			t.Fatalf("issue: %v", is)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestReportFailedEventAndEmail: a report whose audio cannot be analysed raises report.failed
// with the scored fields null, and an email; an endpoint scoped to another series hears
// nothing.
func TestReportFailedEventAndEmail(t *testing.T) {
	t.Parallel()
	srv, seed := newHookTest(t)
	rc := newReceiver(t, http.StatusOK)
	scoped := newReceiver(t, http.StatusOK)
	good, err := srv.HostFeed(HostedFeedSpec{Title: "Good", Episodes: []HostedEpisode{{Title: "Fine", Duration: 1 * time.Second, Format: "wav"}}})
	if err != nil {
		t.Fatal(err)
	}
	bad, err := srv.HostFeed(HostedFeedSpec{Title: "Bad", Episodes: []HostedEpisode{{Title: "Broken audio", Duration: 1 * time.Second, Format: "wav", FailAnalysis: true}}})
	if err != nil {
		t.Fatal(err)
	}
	reportOn(t, srv, seed.APIKey, good.FeedURL, 0)
	mustAdvance(t, srv, time.Minute)
	goodSeries := seriesIDs(t, srv, seed.APIKey)[0]
	ep := mustEndpoint(t, srv, seed.WorkspaceID, WebhookEndpointSpec{URL: rc.srv.URL + "/hook", Events: []string{"report.failed"}})
	mustEndpoint(t, srv, seed.WorkspaceID, WebhookEndpointSpec{URL: scoped.srv.URL + "/hook", Events: []string{"report.failed"}, SeriesID: goodSeries})
	id := reportOn(t, srv, seed.APIKey, bad.FeedURL, 0)
	mustAdvance(t, srv, time.Minute)
	got := rc.requests()
	if len(got) != 1 || len(scoped.requests()) != 0 {
		t.Fatalf("%d deliveries, %d to the scoped endpoint", len(got), len(scoped.requests()))
	}
	verify(t, ep.Secret, got[0])
	var e struct {
		Type string `json:"type"`
		Data struct {
			Report map[string]json.RawMessage `json:"report"`
		} `json:"data"`
	}
	if err := json.Unmarshal(got[0].body, &e); err != nil || e.Type != "report.failed" || string(e.Data.Report["status"]) != `"failed"` || string(e.Data.Report["id"]) != `"`+id+`"` {
		t.Fatalf("body %s", got[0].body)
	}
	for _, k := range []string{"passed", "score", "passes", "failures", "total", "issues"} {
		if v, ok := e.Data.Report[k]; !ok || string(v) != "null" {
			t.Errorf("%s = %s, want null", k, v)
		}
	}
	if es := emailsOf(t, srv, seed.WorkspaceID, "report_failed"); len(es) != 1 || !strings.Contains(es[0].Text, id) {
		t.Fatalf("emails: %+v", es)
	}
}

func seriesIDs(t *testing.T, srv *Server, key string) []string {
	t.Helper()
	_, _, b := call(t, srv, "GET", "/api/rest/v1/series", bearer(key), "")
	var page struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	if err := json.Unmarshal(b, &page); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range page.Items {
		ids = append(ids, s.ID)
	}
	return ids
}
