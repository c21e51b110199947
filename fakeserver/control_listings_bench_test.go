package fakeserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// BenchmarkControlListings is one page of 100 of each control listing (GET /_fake/workspaces,
// /_fake/feeds, /_fake/reports, /_fake/events), from a cursor in the middle, served in process
// through the whole control chain (token, contract checks, handler), with 100 and with 100,000
// items listed: the time per page should not grow with the items.
func BenchmarkControlListings(b *testing.B) {
	for _, n := range []int{100, 100_000} {
		srv, seed := NewTest(b, WithEventRecordSize(n))
		for i := range n - len(srv.Workspaces()) {
			if _, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: fmt.Sprint("User ", i)}); err != nil {
				b.Fatal(err)
			}
		}
		for i := range n {
			if _, err := srv.HostFeed(HostedFeedSpec{Title: fmt.Sprint("Show ", i)}); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := srv.SeedReports(seed.WorkspaceID, make([]SeededReport, n)); err != nil {
			b.Fatal(err)
		}
		for range n {
			srv.events.keep(Event{Kind: EventClockAdvanced})
		}
		get := func(b *testing.B, path string) (items int, next string) {
			req := httptest.NewRequest("GET", path, nil)
			req.Header.Set("Authorization", "Bearer "+srv.AdminToken())
			rec := httptest.NewRecorder()
			srv.Handler().ServeHTTP(rec, req)
			var page struct {
				Items      []json.RawMessage `json:"items"`
				NextCursor *string           `json:"next_cursor"`
			}
			if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &page) != nil {
				b.Fatalf("GET %s: %d %.300s", path, rec.Code, rec.Body)
			}
			if page.NextCursor != nil {
				next = *page.NextCursor
			}
			return len(page.Items), next
		}
		for _, path := range []string{
			"/_fake/workspaces?limit=100",
			"/_fake/feeds?limit=100",
			"/_fake/reports?limit=100&workspace_id=" + seed.WorkspaceID,
			"/_fake/events?limit=100&kind=" + EventClockAdvanced,
		} {
			// The cursor of the page at the middle of the listing.
			cursor := ""
			for range max(n/200, 1) {
				_, next := get(b, withCursor(path, cursor))
				cursor = next
			}
			name := path[len("/_fake/"):]
			for i, c := range name {
				if c == '?' {
					name = name[:i]
					break
				}
			}
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				b.ReportAllocs()
				items := 0
				for b.Loop() {
					items, _ = get(b, withCursor(path, cursor))
				}
				if items != min(100, n) {
					b.Fatalf("%d items on the page", items)
				}
				b.ReportMetric(float64(items), "items/page")
			})
		}
	}
}

// withCursor is path asking for the page after cursor; the first page when cursor is "" (an
// empty cursor is no cursor the contract takes).
func withCursor(path, cursor string) string {
	if cursor == "" {
		return path
	}
	return path + "&cursor=" + url.QueryEscape(cursor)
}
