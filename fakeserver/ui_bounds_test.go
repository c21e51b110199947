package fakeserver

import (
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
)

// fiveByteText is n bytes that html/template escapes to five bytes each wherever they are shown.
func fiveByteText(n int) string { return strings.Repeat("'", n) }

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
