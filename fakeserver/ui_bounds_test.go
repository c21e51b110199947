package fakeserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

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
	page := uiPage{Title: fiveByteText(200), Authed: true, Now: TestStart(), Version: "v", StateURL: stateURL("/_fake/ui/" + fiveByteText(100)), Back: "/_fake/ui/" + fiveByteText(100), Data: data}
	if err := pages.Render(&b, name, page); err != nil {
		t.Fatal(err)
	}
	return b.Len()
}

// TestPagesBoundedWhateverTenantsSend: the journal's list, a request's page and an endpoint's
// page stay under their documented sizes when every text they show is at its cap and made of
// characters the page escapes to five bytes; the journal's list shows at most
// maxUIBodyPreview bytes of each body, a request's page the whole body the journal kept.
func TestPagesBoundedWhateverTenantsSend(t *testing.T) {
	t.Parallel()
	entry := JournalEntry{
		ID: "00000000-0000-4000-8000-000000000000", At: TestStart(), Method: http.MethodPost,
		Path: "/" + fiveByteText(MaxJournalPath-1), PathTruncated: true, Query: fiveByteText(MaxJournalQuery), QueryTruncated: true,
		Status: 400, MaskedKey: fiveByteText(MaxJournalLinePart), RequestContentType: fiveByteText(MaxJournalLinePart),
		RequestBody: fiveByteText(MaxJournalBody), RequestBodyTruncated: true, ErrorCode: fiveByteText(MaxJournalLinePart),
		Duration: 1234567 * time.Nanosecond, FaultID: fiveByteText(36),
	}
	faults := map[string]*uiFaultRef{entry.FaultID: {ID: entry.FaultID, What: fiveByteText(200), Link: uiPath + "/faults#" + fiveByteText(36), Armed: true}}
	v := requestsView{Method: fiveByteText(200), Path: fiveByteText(200), Status: fiveByteText(200), KeyPrefix: fiveByteText(200)}
	for range maxUIList {
		v.Entries = append(v.Entries, journalRow(entry, faults))
	}
	list := renderSize(t, "requests", v)
	one := renderSize(t, "request", requestView{Row: journalRow(entry, faults)})

	body, _ := json.Marshal(map[string]any{"type": "report.completed", "data": map[string]any{"report": map[string]any{
		"id": fiveByteText(1 << 10), "filename": fiveByteText(64 << 10),
		"series": map[string]any{"id": fiveByteText(100), "title": fiveByteText(64 << 10)}, "episode": map[string]any{"title": fiveByteText(64 << 10)},
		"issues": []string{fiveByteText(1 << 20)},
	}}})
	srv, _ := NewTest(t)
	ep := uiEndpointPage{Endpoint: WebhookEndpoint{ID: fiveByteText(36), URL: "http://" + fiveByteText(2<<10), Enabled: true}}
	code := 500
	lastErr := fiveByteText(1 << 10)
	for range 20 {
		d := WebhookDelivery{ID: fiveByteText(36), EndpointID: fiveByteText(36), EventType: "report.completed", WebhookID: fiveByteText(40), Attempts: 10,
			ResponseCode: &code, LastError: &lastErr, Body: body, ReportID: fiveByteText(36), LastAttemptAt: TestStart(),
			ResponseBody: fiveByteText(MaxWebhookAnswer), ResponseBodyTruncated: true}
		for range 5 {
			d.RequestHeaders = append(d.RequestHeaders, WebhookHeader{Name: fiveByteText(20), Value: fiveByteText(120)})
		}
		ud := uiDelivery{WebhookDelivery: d, Subject: srv.eventSubject(body)}
		ud.Pretty, ud.BodyCut = prettyBody(body)
		for n := range 11 {
			a := uiAttempt{N: n, At: TestStart(), Status: "failed"}
			a.Code, a.Latency, a.Error = attemptLine("500", "1.234567ms", fiveByteText(1<<10))
			ud.Timeline = append(ud.Timeline, a)
		}
		ep.Deliveries = append(ep.Deliveries, ud)
	}
	endpoint := renderSize(t, "endpoint", ep)

	for _, tc := range []struct {
		page      string
		got, most int
	}{
		{"journal list", list, maxJournalPageBytes},
		{"request page", one, maxRequestPageBytes},
		{"endpoint page", endpoint, maxEndpointPageBytes},
	} {
		t.Logf("%s: %d bytes (bound %d)", tc.page, tc.got, tc.most)
		if tc.got > tc.most {
			t.Errorf("%s: %d bytes, over its bound of %d", tc.page, tc.got, tc.most)
		}
	}
	// The request's page shows the whole body it kept: at least five bytes a byte of it.
	if one < 5*MaxJournalBody {
		t.Errorf("the request page is %d bytes: it does not show the whole kept body", one)
	}
}

// TestJournalPageBoundedEndToEnd: 200 requests from tenants, each with the largest body the
// journal keeps made of characters the page escapes to five bytes, make a journal page under
// its bound that holds at most maxUIBodyPreview bytes of each body.
func TestJournalPageBoundedEndToEnd(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	body := `{"feed_url":"` + fiveByteText(MaxJournalBody-16) + `"}`
	for i := range maxUIList {
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
	if n := strings.Count(page, `<tr class="entry"`); n != maxUIList {
		t.Fatalf("%d rows", n)
	}
	quotes := strings.Count(page, "&#39;")
	t.Logf("journal page of %d rows with %d-byte bodies: %d bytes", maxUIList, len(kept.RequestBody), len(page))
	if len(page) > maxJournalPageBytes || quotes > maxUIList*(maxUIBodyPreview+200+maxUITitleQuery) {
		t.Fatalf("journal page: %d bytes (bound %d), %d escaped quotes", len(page), maxJournalPageBytes, quotes)
	}
}
