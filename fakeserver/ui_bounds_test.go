package fakeserver

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
)

// fiveByteText is n bytes that html/template escapes to five bytes each wherever they are shown.
func fiveByteText(n int) string { return strings.Repeat("'", n) }

// renderSize renders page name with data as the dashboard would and returns its size in bytes.
func renderSize(t *testing.T, name string, data any) int {
	t.Helper()
	pages, err := dashboard.New()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	page := dashboard.Page{Title: fiveByteText(200), Authed: true, Now: TestStart(), Version: "v", StateURL: dashboard.StateURL("/_fake/ui/" + fiveByteText(100)), Back: "/_fake/ui/" + fiveByteText(100), Data: data}
	if err := pages.Render(&b, name, page); err != nil {
		t.Fatal(err)
	}
	return b.Len()
}

// TestPagesBoundedWhateverTenantsSend: the page of otherPagesAtTheirCaps stays under its
// documented size when every text they show is at its cap and made of characters the page
// escapes to five bytes (an endpoint's and a workspace's pages:
// internal/dashboard's TestEndpointPageBoundedWhateverTenantsSend and
// TestWorkspacePageBoundedWhateverTenantsSend; the journal's pages: its
// TestJournalPagesBoundedWhateverTenantsSend).
func TestPagesBoundedWhateverTenantsSend(t *testing.T) {
	t.Parallel()
	for _, tc := range otherPagesAtTheirCaps(t) {
		t.Logf("%s: %d bytes (bound %d)", tc.page, tc.got, tc.most)
		if tc.got > tc.most {
			t.Errorf("%s: %d bytes, over its bound of %d", tc.page, tc.got, tc.most)
		}
	}
}

// TestJournalPageBoundedEndToEnd: 200 requests from tenants, each with the largest body the
// journal keeps made of characters the page escapes to five bytes, make a journal page under
// its bound that holds at most dashboard.MaxBodyPreview bytes of each body.
func TestJournalPageBoundedEndToEnd(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	body := `{"feed_url":"` + fiveByteText(MaxJournalBody-16) + `"}`
	for i := range dashboard.MaxList {
		if i%90 == 89 {
			// Within the key's limit of 100 requests a minute (a GET is not a write, which
			// counts against 30 an hour as well).
			if _, err := srv.Advance(time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		call(t, srv, "GET", "/api/rest/v1/me?q="+fiveByteText(200), jsonHeader(bearer(seed.APIKey)), body)
	}
	kept := srv.Requests(RequestFilter{Limit: 1})[0]
	if len(kept.RequestBody) < MaxJournalBody-16 {
		t.Fatalf("the journal kept %d bytes of the body (status %d)", len(kept.RequestBody), kept.Status)
	}
	page := journalPage(t, srv, "")
	if n := strings.Count(page, `<tr class="entry"`); n != dashboard.MaxList {
		t.Fatalf("%d rows", n)
	}
	quotes := strings.Count(page, "&#39;")
	t.Logf("journal page of %d rows with %d-byte bodies: %d bytes", dashboard.MaxList, len(kept.RequestBody), len(page))
	if len(page) > dashboard.MaxJournalPageBytes || quotes > dashboard.MaxList*(dashboard.MaxBodyPreview+200+dashboard.MaxTitleQuery) {
		t.Fatalf("journal page: %d bytes (bound %d), %d escaped quotes", len(page), dashboard.MaxJournalPageBytes, quotes)
	}
	// A request's own page shows the whole body the journal kept, under its bound.
	one := uiDo(t, srv, uiReq{method: "GET", target: dashboard.Path + "/requests/" + kept.ID, header: browser(bearer(srv.AdminToken()))}).Body.String()
	if len(one) > dashboard.MaxRequestPageBytes || strings.Count(one, "&#39;") < len(kept.RequestBody)-16 {
		t.Fatalf("a request's page: %d bytes (bound %d), %d escaped quotes of a %d-byte body", len(one), dashboard.MaxRequestPageBytes, strings.Count(one, "&#39;"), len(kept.RequestBody))
	}
}

// otherPagesAtTheirCaps renders the report page with every text a tenant
// controls far past its cap, made of characters the page escapes to five bytes, and every list
// far past its count; it returns each page's size and its bound (the other pages' tests are
// internal/dashboard's).
func otherPagesAtTheirCaps(t *testing.T) []struct {
	page      string
	got, most int
} {
	long := fiveByteText(100 << 10)
	id := "00000000-0000-4000-8000-000000000000"

	// An email with a long subject, many long addresses and a long text, for a report's page.
	var to []string
	for range 50 {
		to = append(to, long)
	}
	email := Email{ID: id, WorkspaceID: id, Kind: long, To: to, Subject: long, Text: long, SentAt: TestStart()}

	// A report with a long name and a long standard's name.
	summary := ReportSummary{ID: id, WorkspaceID: id, SeriesID: id, Source: "feed", Status: "COMPLETE", CreatedAt: TestStart(), UpdatedAt: TestStart(),
		Name: long, Verdict: ReportVerdict{Judged: true, RequiredFailures: 2, RequiredTotal: 8, Standard: long}}

	// A report's page: a long failure and reasons, checks with long texts and values, the
	// longest series analysis measures (12 hours), far more deliveries and emails than it lists.
	lastErr := long
	acc := ReportAccount{Report: summary, Failure: long, Loudness: LoudnessSeries{Step: time.Second, Window: 3 * time.Second}}
	for i := range 12 * 3600 {
		acc.Loudness.LUFS = append(acc.Loudness.LUFS, -23.456-float32(i%7))
	}
	for range 10 {
		acc.Timeline = append(acc.Timeline, StatusChange{Status: "FAILED", At: TestStart(), Reason: long})
	}
	for range 10 * maxUIReportTrail {
		acc.Deliveries = append(acc.Deliveries, WebhookDelivery{ID: id, EndpointID: id, EventType: "report.completed", Status: "retrying", Attempts: 10, LastError: &lastErr, NextAttemptAt: TestStart()})
		acc.Emails = append(acc.Emails, email)
	}
	fields := map[string]string{}
	for i := range 4 * maxUIValueFields {
		fields[fiveByteText(1<<10)+strconv.Itoa(i)] = long
	}
	value, _ := json.Marshal(fields)
	unit, warning, limit := "LUFS", long, long
	var results []core.Result
	for range 20 { // above the 17 checks of CHECKS.md's catalogue, each at most once
		results = append(results, core.Result{Name: "metadata", VerboseName: long, Status: core.Fail, Value: value, MeasurementUnit: &unit,
			Description: long, WarningMessage: &warning, Severity: "required", Limit: &limit})
	}
	rv := uiReportPage{Row: dashboard.RowOf(summaryTwin(summary)), Checks: uiChecks(results)}
	rv.Account, rv.Emails, rv.MoreDeliveries, rv.MoreEmails = shownAccount(acc)
	peak := 3.0
	rv.Plot = dashboard.PlotLoudness(dashboard.LoudnessSeries(acc.Loudness), core.Limits{MaxTruePeak: -1}, &dashboard.Measurement{Channels: 2, IntegratedLUFS: -20, TruePeakDB: peak})
	if len(rv.Account.Deliveries) != maxUIReportTrail || len(rv.Emails) != maxUIReportTrail || rv.MoreDeliveries != 9*maxUIReportTrail || rv.MoreEmails != 9*maxUIReportTrail {
		t.Errorf("the report page lists %d deliveries (%d more) and %d emails (%d more)", len(rv.Account.Deliveries), rv.MoreDeliveries, len(rv.Emails), rv.MoreEmails)
	}

	return []struct {
		page      string
		got, most int
	}{
		{"report page", renderSize(t, "report", rv), maxReportPageBytes},
	}
}
