package fakeserver

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// listPage is a page of a control listing as it comes over the wire.
type listPage struct {
	Items      []map[string]any `json:"items"`
	NextCursor *string          `json:"next_cursor"`
}

// pageThrough follows a control listing's cursors from its first page, each answer held to
// control.openapi.json by call, and returns every item and the number of pages.
func pageThrough(t *testing.T, srv *Server, path string, query url.Values) ([]map[string]any, int) {
	t.Helper()
	var all []map[string]any
	for pages := 1; ; pages++ {
		status, _, body := call(t, srv, "GET", path+"?"+query.Encode(), admin(srv), "")
		var p listPage
		if status != http.StatusOK || json.Unmarshal(body, &p) != nil {
			t.Fatalf("GET %s?%s: %d %s", path, query.Encode(), status, body)
		}
		all = append(all, p.Items...)
		if p.NextCursor == nil {
			return all, pages
		}
		if pages > 1000 {
			t.Fatalf("GET %s: more than 1000 pages", path)
		}
		query.Set("cursor", *p.NextCursor)
	}
}

func itemIDs(items []map[string]any, key string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = fmt.Sprint(it[key])
	}
	return out
}

// TestControlListings: the four listings page by cursor through exactly what the Go API holds,
// in their documented orders, with their filters; reports carry their names and verdicts.
func TestControlListings(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithAnalysisPace(0))
	var feedIDs []string
	for i := range 5 {
		ws, err := srv.CreateWorkspace(WorkspaceSpec{Type: "organisation", Name: fmt.Sprintf("Org %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := srv.SeedReports(ws.ID, make([]SeededReport, i)); err != nil { // 0 to 4 reports
			t.Fatal(err)
		}
		f, err := srv.HostFeed(HostedFeedSpec{Title: fmt.Sprintf("Show %d", 4-i), Episodes: []HostedEpisode{{Title: "One", Duration: time.Second}}})
		if err != nil {
			t.Fatal(err)
		}
		feedIDs = append(feedIDs, f.ID)
	}
	var wsIDs []string
	for _, w := range srv.Workspaces() {
		wsIDs = append(wsIDs, w.ID)
	}
	quiet := -35.0
	wav, err := SynthesizeWAV(AudioSpec{Duration: 2 * time.Second, SampleRate: 8000, LoudnessLUFS: &quiet, Title: "Quiet one"})
	if err != nil {
		t.Fatal(err)
	}
	judged := uploadReport(t, srv, seed.APIKey, wav)
	if _, err := srv.Advance(time.Hour); err != nil {
		t.Fatal(err)
	}

	t.Run("workspaces", func(t *testing.T) {
		items, pages := pageThrough(t, srv, "/_fake/workspaces", url.Values{"limit": {"2"}})
		if got := itemIDs(items, "id"); !slices.Equal(got, wsIDs) {
			t.Errorf("workspaces %v, want %v (oldest first)", got, wsIDs)
		}
		if want := (len(wsIDs) + 1) / 2; pages != want {
			t.Errorf("%d pages of 2 for %d workspaces, want %d", pages, len(wsIDs), want)
		}
	})
	t.Run("feeds", func(t *testing.T) {
		items, _ := pageThrough(t, srv, "/_fake/feeds", url.Values{"limit": {"2"}})
		if got := itemIDs(items, "id"); !slices.Equal(got, feedIDs) {
			t.Errorf("feeds %v, want %v (in the order hosted)", got, feedIDs)
		}
		if items[0]["episodes"] != float64(1) || !strings.Contains(fmt.Sprint(items[0]["feed_url"]), feedIDs[0]) {
			t.Errorf("a feed: %v", items[0])
		}
	})
	t.Run("reports", func(t *testing.T) {
		var want []string
		for _, ws := range wsIDs {
			for after := ""; ; {
				page, err := srv.Reports(ws, ReportFilter{After: after, Limit: 500})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range page.Reports {
					want = append(want, r.ID)
				}
				if after = page.Next; after == "" {
					break
				}
			}
		}
		if len(want) < 11 {
			t.Fatalf("only %d reports: the test's premise", len(want))
		}
		for _, limit := range []string{"1", "3", "500"} {
			items, _ := pageThrough(t, srv, "/_fake/reports", url.Values{"limit": {limit}})
			if got := itemIDs(items, "id"); !slices.Equal(got, want) {
				t.Errorf("limit %s: reports %v, want %v", limit, got, want)
			}
		}
		items, _ := pageThrough(t, srv, "/_fake/reports", url.Values{"workspace_id": {seed.WorkspaceID}, "status": {"COMPLETE"}, "limit": {"2"}})
		found := false
		for _, it := range items {
			if it["workspace_id"] != seed.WorkspaceID || it["status"] != "COMPLETE" {
				t.Errorf("filtered out: %v", it)
			}
			if it["id"] == judged {
				found = true
				v, _ := it["verdict"].(map[string]any)
				if it["name"] != "Quiet one" || v == nil || v["passed"] != false || v["required_failures"].(float64) < 1 || v["standard"] == "" {
					t.Errorf("the judged report: %v", it)
				}
			}
		}
		if !found {
			t.Error("the judged report is not listed")
		}
	})
	t.Run("events", func(t *testing.T) {
		want := srv.Events(EventFilter{})
		items, _ := pageThrough(t, srv, "/_fake/events", url.Values{"limit": {"7"}})
		if len(items) != len(want) || len(want) < 10 {
			t.Fatalf("%d events listed, the record holds %d", len(items), len(want))
		}
		for i, e := range want {
			if items[i]["seq"] != float64(e.Seq) || items[i]["kind"] != e.Kind {
				t.Fatalf("event %d: %v, want seq %d %s", i, items[i], e.Seq, e.Kind)
			}
		}
		items, _ = pageThrough(t, srv, "/_fake/events", url.Values{"kind": {EventReportFinished}, "report_id": {judged}})
		if len(items) != 1 || items[0]["report_id"] != judged {
			t.Errorf("the judged report's report.finished events: %v", items)
		}
		// Following: the seq of the last event seen is a cursor.
		all := srv.Events(EventFilter{})
		last := fmt.Sprint(all[len(all)-1].Seq)
		if _, err := srv.Advance(time.Second); err != nil {
			t.Fatal(err)
		}
		items, _ = pageThrough(t, srv, "/_fake/events", url.Values{"kind": {EventClockAdvanced}, "cursor": {last}})
		if len(items) != 1 {
			t.Errorf("%d clock moves after seq %s, want 1", len(items), last)
		}
	})
}

// TestControlListingsRefuseMalformed: a malformed cursor or filter is 400 in the control API's
// shape; a well-formed id that names nothing of this state (a cursor from before a reset) 404.
func TestControlListingsRefuseMalformed(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	other, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.SeedReports(seed.WorkspaceID, make([]SeededReport, 3)); err != nil {
		t.Fatal(err)
	}
	page, err := srv.ReportListing(ReportListFilter{WorkspaceID: seed.WorkspaceID, Limit: 1})
	if err != nil || page.Next == "" {
		t.Fatalf("a first page: %+v %v", page, err)
	}
	for _, tc := range []struct{ path, want string }{
		{"/_fake/workspaces?cursor=nope", "cursor"},
		{"/_fake/workspaces?cursor=" + strings.ToUpper(seed.WorkspaceID), "cursor"},
		{"/_fake/workspaces?limit=0", "limit"},
		{"/_fake/workspaces?limit=501", "limit"},
		{"/_fake/feeds?cursor=nope", "cursor"},
		{"/_fake/feeds?limit=abc", "limit"},
		{"/_fake/reports?status=DONE", "status"},
		{"/_fake/reports?workspace_id=nope", "workspace_id"},
		{"/_fake/reports?cursor=nope", "cursor"},
		{"/_fake/reports?cursor=" + url.QueryEscape(seed.WorkspaceID+".nope"), "cursor"},
		{"/_fake/reports?workspace_id=" + other.ID + "&cursor=" + url.QueryEscape(page.Next), "cursor"},
		{"/_fake/reports?cursor=" + strings.ToUpper(page.Next), "cursor"},
		{"/_fake/events?kind=report.nothing", "kind"},
		{"/_fake/events?report_id=nope", "report_id"},
		{"/_fake/events?cursor=-1", "cursor"},
		{"/_fake/events?cursor=abc", "cursor"},
		{"/_fake/events?limit=100000", "limit"},
	} {
		status, _, body := call(t, srv, "GET", tc.path, admin(srv), "")
		if status != http.StatusBadRequest || errorCode(t, body) != "validation_error" || !strings.Contains(string(body), tc.want) {
			t.Errorf("GET %s: %d %s, want 400 validation_error naming %s", tc.path, status, body, tc.want)
		}
	}
	// Well-formed ids that name nothing: 404, as for the other control paths.
	unknown := "00000000-0000-4000-8000-000000000000"
	for _, path := range []string{"/_fake/reports?workspace_id=" + unknown, "/_fake/reports?cursor=" + unknown, "/_fake/workspaces?cursor=" + unknown, "/_fake/feeds?cursor=" + unknown} {
		if status, _, body := call(t, srv, "GET", path, admin(srv), ""); status != http.StatusNotFound || errorCode(t, body) != "not_found" {
			t.Errorf("GET %s: %d %s, want 404 not_found", path, status, body)
		}
	}
	if status, _, _ := call(t, srv, "GET", "/_fake/events", http.Header{"Authorization": {"Bearer wrong"}}, ""); status != http.StatusUnauthorized {
		t.Errorf("GET /_fake/events with a wrong token: %d", status)
	}
	// A reset ends every cursor: it names nothing of the new state.
	if _, err := srv.Reset(); err != nil {
		t.Fatal(err)
	}
	if status, _, body := call(t, srv, "GET", "/_fake/reports?cursor="+url.QueryEscape(page.Next), admin(srv), ""); status != http.StatusNotFound {
		t.Errorf("a cursor from before a reset: %d %s, want 404", status, body)
	}
}

// TestEventPageReadsAtMostItsScan: a page of a rare kind over a large record reads at most
// MaxEventScan events and says where to go on; a page after a cursor starts there, not at the
// oldest event.
func TestEventPageReadsAtMostItsScan(t *testing.T) {
	t.Parallel()
	r := newEventRecord(slog.New(slog.DiscardHandler), 50_000)
	for i := range 60_000 {
		kind := EventClockAdvanced
		if i%20_000 == 19_999 {
			kind = EventFaultFired
		}
		r.keep(Event{Kind: kind})
	}
	// The ring holds seqs 10,001 to 60,000; the rare events are 20,000, 40,000 and 60,000.
	var got []uint64
	cursor, pages := uint64(0), 0
	for more := true; more; pages++ {
		if pages == 100 {
			t.Fatal("100 pages and not through: the cursor does not move on")
		}
		out, last, read, m := r.page(EventFaultFired, "", cursor, 100)
		if read > MaxEventScan {
			t.Fatalf("a page read %d events, more than %d", read, MaxEventScan)
		}
		for _, e := range out {
			got = append(got, e.Seq)
		}
		cursor, more = last, m
	}
	if !slices.Equal(got, []uint64{20_000, 40_000, 60_000}) || pages != 5 {
		t.Errorf("found %v in %d pages, want [20000 40000 60000] in 5 (50,000 events, 10,000 a page)", got, pages)
	}
	out, _, read, more := r.page("", "", 59_990, 100)
	if len(out) != 10 || out[0].Seq != 59_991 || read != 10 || more {
		t.Errorf("after seq 59,990: %d events from %d, %d read, more %v; want the last 10 read alone", len(out), out[0].Seq, read, more)
	}
}

// TestListingPagesCostTheirPage counts the reports a page of GET /_fake/reports reads from a
// cursor: about the page (its 50, the one that says more follow, at most a block of 32 the
// walk skips) at 100 and at 10,000 reports in the workspace.
func TestListingPagesCostTheirPage(t *testing.T) {
	t.Parallel()
	visits := map[int]uint64{}
	sizes := []int{100, 10_000}
	if testing.Short() {
		sizes = []int{100, 2_000} // still 20 times the reports, for a page that costs the same
	}
	for _, n := range sizes {
		srv, seed := NewTest(t)
		if _, err := srv.SeedReports(seed.WorkspaceID, make([]SeededReport, n)); err != nil {
			t.Fatal(err)
		}
		first, err := srv.ReportListing(ReportListFilter{WorkspaceID: seed.WorkspaceID, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		before := srv.core.ListVisits()
		req := httptest.NewRequest("GET", "/_fake/reports?limit=50&status=COMPLETE&cursor="+url.QueryEscape(first.Next), nil)
		req.Header.Set("Authorization", "Bearer "+srv.AdminToken())
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
		visits[n] = srv.core.ListVisits() - before
	}
	for n, v := range visits {
		if v < 50 || v > 50+1+32 {
			t.Errorf("a page of 50 read %d reports at %d in the workspace, want 50 to %d", v, n, 50+1+32)
		}
	}
}
