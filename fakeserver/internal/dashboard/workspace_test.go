package dashboard

import (
	"testing"

	"github.com/google/uuid"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// TestWorkspacePageBoundedWhateverTenantsSend: a workspace's page of reports with long names
// and a long standard's name, a thousand top-up lots and a long filter in the query, every
// text made of characters the page escapes to five bytes, stays under its documented size and
// lists at most maxTopups lots.
func TestWorkspacePageBoundedWhateverTenantsSend(t *testing.T) {
	t.Parallel()
	long := fiveByteText(100 << 10)
	id := "00000000-0000-4000-8000-000000000000"
	uid := uuid.MustParse(id)
	head := core.ReportHead{ID: uid, Workspace: uid, Series: &uid, Source: "feed", Status: "COMPLETE", CreatedAt: testStart, UpdatedAt: testStart,
		Name: long, Verdict: core.Verdict{Judged: true, RequiredFailures: 2, RequiredTotal: 8, Standard: long}}
	expires := testStart
	cr := core.Credits{}
	for range 1000 {
		cr.TopupLots = append(cr.TopupLots, core.TopupLot{AmountRemaining: 1 << 30, ExpiresAt: &expires})
	}
	wv := workspaceView{Workspace: WorkspaceRow(Workspace{ID: id, Type: "organization", Name: long}), Statuses: core.ReportStatuses(),
		Filter: core.ReportsQuery{Status: "COMPLETE", SeriesID: ShownFilter(long), After: ShownFilter(long)}, Filtered: true, NextURL: "/_fake/ui/workspaces/" + id + "?after=" + id}
	shown, more := shownCredits(cr)
	wv.Credits, wv.MoreTopups = &shown, more
	if len(shown.TopupLots) != maxTopups || more != 1000-maxTopups {
		t.Errorf("the credits line lists %d lots and counts %d more", len(shown.TopupLots), more)
	}
	for range ReportPageSize {
		wv.Page.Reports = append(wv.Page.Reports, head)
		wv.Rows = append(wv.Rows, RowOf(summaryOf(head)))
	}
	got := renderSize(t, "workspace", wv)
	t.Logf("workspace page: %d bytes (bound %d)", got, maxWorkspacePageBytes)
	if got > maxWorkspacePageBytes {
		t.Errorf("workspace page: %d bytes, over its bound of %d", got, maxWorkspacePageBytes)
	}
}
