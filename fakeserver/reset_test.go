package fakeserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/internal/apitime"
)

func TestResetRepeatsTheScenario(t *testing.T) {
	t.Parallel()
	srv, demo := NewTest(t, WithSeed(11), WithPrivateURLs(true), WithAnalysisPace(0))
	token := srv.AdminToken()
	first := scenario(t, srv, demo)
	status, _, body := call(t, srv, "POST", "/_fake/reset", admin(srv), "")
	if status != http.StatusOK || string(body) != `{"now":"`+apitime.Format(TestStart())+`"}`+"\n" {
		t.Fatalf("reset: %d %s", status, body)
	}
	if srv.AdminToken() != token || !srv.Now().Equal(TestStart()) {
		t.Fatalf("after reset: token %q, now %s", srv.AdminToken(), srv.Now())
	}
	if second := scenario(t, srv, demo); second != first {
		t.Fatalf("the scenario after a reset answers differently: %s", firstDifference(first, second))
	}
}

func TestResetLeavesOnlyTheStartState(t *testing.T) {
	t.Parallel()
	srv, demo := NewTest(t, WithAnalysisPace(0))
	org, err := srv.CreateWorkspace(WorkspaceSpec{Type: "organisation", Name: "Gone"})
	if err != nil {
		t.Fatal(err)
	}
	orgKey, err := srv.CreateAPIKey(org.ID, "gone")
	if err != nil {
		t.Fatal(err)
	}
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Gone", Episodes: []HostedEpisode{{Title: "e", Duration: 2 * time.Second, Format: "wav"}}})
	if err != nil {
		t.Fatal(err)
	}
	key := jsonHeader(bearer(demo.APIKey))
	if status, _, body := call(t, srv, "POST", "/api/rest/v1/reports", key, `{"feed_url":"`+feed.FeedURL+`"}`); status != 201 {
		t.Fatalf("report: %d %s", status, body)
	}
	if _, err := srv.SeedReports(demo.WorkspaceID, []SeededReport{{CompleteAfter: time.Hour}}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.InjectFault(Fault{PathPrefix: "/api/rest/v1/series", Status: 503, Count: 5}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Reset(); err != nil {
		t.Fatal(err)
	}

	checks := []struct {
		name, path string
		header     http.Header
		status     int
		want       string
	}{
		{"demo key works, reports gone", "/api/rest/v1/reports", key, 200, `"items":[]`},
		{"shows gone, fault gone", "/api/rest/v1/series", key, 200, `"items":[]`},
		{"other workspaces' keys gone", "/api/rest/v1/me", bearer(orgKey.Key), 401, "invalid_api_key"},
		{"hosted feeds gone", feed.FeedURL[len(srv.URL()):], nil, 404, ""},
		{"clock back at start", "/_fake/clock", admin(srv), 200, apitime.Format(TestStart())},
		{"deliveries gone", "/_fake/webhook-deliveries", admin(srv), 200, `"items":[]`},
	}
	for _, c := range checks {
		status, _, body := call(t, srv, "GET", c.path, c.header, "")
		if status != c.status || !json.Valid(body) && c.want != "" || !contains(body, c.want) {
			t.Errorf("%s: %d %s", c.name, status, body)
		}
	}
	// The journal holds only the API calls among the checks, not what came before the reset.
	if got := srv.Requests(RequestFilter{Limit: 100}); len(got) != 3 {
		t.Errorf("journal after reset holds %d entries, want the 3 API checks", len(got))
	}
	// Nothing scheduled before the reset runs after it: the seeded report's completion is gone.
	if _, err := srv.Advance(2 * time.Hour); err != nil {
		t.Fatal(err)
	}
	if status, _, body := call(t, srv, "GET", "/api/rest/v1/reports", key, ""); status != 200 || !contains(body, `"items":[]`) {
		t.Errorf("a report came back: %d %s", status, body)
	}
}

func contains(body []byte, s string) bool {
	return s == "" || json.Valid(body) && string(body) != "" && strings.Contains(string(body), s)
}

// TestResetWaitsForADeliveryInFlight resets while a webhook attempt is on the wire: the reset
// waits for it, nothing panics, and the delivery is not in the new state.
func TestResetWaitsForADeliveryInFlight(t *testing.T) {
	t.Parallel()
	srv, demo := NewTest(t, WithPrivateURLs(true), WithAnalysisPace(0))
	arrived, release := make(chan struct{}), make(chan struct{})
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	if _, err := srv.CreateWebhookEndpoint(t.Context(), demo.WorkspaceID, WebhookEndpointSpec{URL: receiver.URL, Events: []string{"report.completed"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.SeedReports(demo.WorkspaceID, []SeededReport{{CompleteAfter: time.Minute}}); err != nil {
		t.Fatal(err)
	}
	advanced := make(chan error, 1)
	go func() { _, err := srv.Advance(time.Hour); advanced <- err }()
	<-arrived
	reset := make(chan error, 1)
	go func() { _, err := srv.Reset(); reset <- err }()
	close(release)
	if err := <-advanced; err != nil {
		t.Fatal(err)
	}
	if err := <-reset; err != nil {
		t.Fatal(err)
	}
	if d, err := srv.WebhookDeliveries(""); err != nil || len(d) != 0 {
		t.Fatalf("deliveries after reset: %+v %v", d, err)
	}
	if !srv.Now().Equal(TestStart()) {
		t.Fatalf("clock after reset: %s", srv.Now())
	}
}

// BenchmarkReset resets a fake holding 1,000 reports and 10 hosted feeds.
func BenchmarkReset(b *testing.B) {
	srv, err := New(WithManualClock(TestStart()), WithAnalysisPace(0), WithJournalSize(DefaultJournalSize))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	if _, err := srv.SeedDemo(); err != nil {
		b.Fatal(err)
	}
	fill := func() {
		ws, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "Load"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := srv.SeedReports(ws.ID, make([]SeededReport, 1000)); err != nil {
			b.Fatal(err)
		}
		for range 10 {
			if _, err := srv.HostFeed(HostedFeedSpec{Title: "Feed", Episodes: []HostedEpisode{{Title: "e", Duration: 60 * time.Second}, {Title: "f", Duration: 60 * time.Second}}}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		fill()
		b.StartTimer()
		if _, err := srv.Reset(); err != nil {
			b.Fatal(err)
		}
	}
}
