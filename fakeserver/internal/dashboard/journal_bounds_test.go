package dashboard

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// keptLimits are the figures the fake's journal keeps (the facade's MaxJournalBody and the
// rest); the facade's TestJournalPageBoundedEndToEnd holds the pages to their bounds on the
// journal the fake really keeps.
var keptLimits = struct{ Body, Path, Query, LinePart int }{Body: 64 << 10, Path: 1 << 10, Query: 4 << 10, LinePart: 128}

// fiveByteText is n bytes that html/template escapes to five bytes each wherever they are shown.
func fiveByteText(n int) string { return strings.Repeat("'", n) }

// renderSize renders page name with data as the dashboard would and returns its size in bytes.
func renderSize(t *testing.T, name string, data any) int {
	t.Helper()
	return len(renderPage(t, name, data))
}

// renderPage is the page name renders for data.
func renderPage(t *testing.T, name string, data any) string {
	t.Helper()
	pages, err := New()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	page := Page{Title: fiveByteText(200), Authed: true, Now: time.Unix(0, 0), Version: "v", StateURL: StateURL("/_fake/ui/" + fiveByteText(100)), Back: "/_fake/ui/" + fiveByteText(100), Data: data}
	if err := pages.Render(&b, name, page); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestJournalPagesBoundedWhateverTenantsSend: the journal's list and a request's page stay
// under their documented sizes when every text they show is at its cap and made of
// characters the page escapes to five bytes; the journal's list shows at most MaxBodyPreview
// bytes of each body, a request's page the whole body the journal kept.
func TestJournalPagesBoundedWhateverTenantsSend(t *testing.T) {
	t.Parallel()
	entry := JournalEntry{
		ID: "00000000-0000-4000-8000-000000000000", At: time.Unix(0, 0), Method: http.MethodPost,
		Path: "/" + fiveByteText(keptLimits.Path-1), PathTruncated: true, Query: fiveByteText(keptLimits.Query), QueryTruncated: true,
		Status: 400, MaskedKey: fiveByteText(keptLimits.LinePart), RequestContentType: fiveByteText(keptLimits.LinePart),
		RequestBody: fiveByteText(keptLimits.Body), RequestBodyTruncated: true, ErrorCode: fiveByteText(keptLimits.LinePart),
		Duration: 1234567 * time.Nanosecond, FaultID: fiveByteText(36),
	}
	faults := map[string]*faultRef{entry.FaultID: {ID: entry.FaultID, What: fiveByteText(200), Link: Path + "/faults#" + fiveByteText(36), Armed: true}}
	v := requestsView{Method: fiveByteText(200), Path: fiveByteText(200), Status: fiveByteText(200), KeyPrefix: fiveByteText(200)}
	for range MaxList {
		v.Entries = append(v.Entries, rowOf(entry, faults, "fault.fired"))
	}
	list := renderSize(t, "requests", v)
	one := renderSize(t, "request", requestView{Row: rowOf(entry, faults, "fault.fired")})
	for _, tc := range []struct {
		page      string
		got, most int
	}{
		{"journal list", list, MaxJournalPageBytes},
		{"request page", one, MaxRequestPageBytes},
	} {
		t.Logf("%s: %d bytes (bound %d)", tc.page, tc.got, tc.most)
		if tc.got > tc.most {
			t.Errorf("%s: %d bytes, over its bound of %d", tc.page, tc.got, tc.most)
		}
	}
	// The request's page shows the whole body it kept: at least five bytes a byte of it.
	if one < 5*keptLimits.Body {
		t.Errorf("the request page is %d bytes: it does not show the whole kept body", one)
	}
}
