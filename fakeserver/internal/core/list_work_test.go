package core

import (
	"math/bits"
	"testing"
)

// pageBound is the most reports one page of limit may read in a list of n: the page and the
// one after it (has_more), two binary searches for the _since bounds, and a block's worth at
// each end of the page. It grows with the logarithm of n only.
func pageBound(limit, n int) uint64 {
	return uint64(limit + 1 + 4*bits.Len(uint(n)) + 2*listBlock)
}

// forgetPages drops the ended pages a workspace keeps, so that the next page is found from
// the top of its list.
func forgetPages(c *Core, lw listWorkspace) {
	cs := &c.reportIdx[lw.p.Workspace.ID].cursors
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for i := range cs.c {
		cs.c[i].live = false
	}
}

// visits is the number of reports ListReports reads for one page.
func visits(tb testing.TB, lw listWorkspace, f ReportFilter, limit, offset int) (Page[Report], uint64) {
	before := lw.c.listVisits.Load()
	page := listed(tb, lw.c, lw.p, f, limit, offset)
	return page, lw.c.listVisits.Load() - before
}

// TestListingPagesReadWhatTheyHold bounds the reports a page reads, for every filter, at
// 1,000 and at 100,000 reports: the first pages, a page at offset 500 found afresh, and every
// page of a poller paging through the listing, which in all reads each report about once.
func TestListingPagesReadWhatTheyHold(t *testing.T) {
	t.Parallel()
	sizes := []int{1_000, 100_000}
	if testing.Short() {
		sizes = []int{1_000, 20_000}
	}
	for _, n := range sizes {
		lw := newListWorkspace(t, n)
		for _, lf := range listFilters(lw) {
			const limit = 100
			bound := pageBound(limit, n)
			for offset := 0; offset < 5*limit; offset += limit {
				if _, v := visits(t, lw, lf.f, limit, offset); v > bound {
					t.Errorf("%d reports, %s: the page at offset %d read %d reports, above %d", n, lf.name, offset, v, bound)
				}
			}
			forgetPages(lw.c, lw)
			if _, v := visits(t, lw, lf.f, limit, 500); v > bound {
				t.Errorf("%d reports, %s: the page at offset 500, found afresh, read %d reports, above %d", n, lf.name, v, bound)
			}
			forgetPages(lw.c, lw)
			var read uint64
			items, pages := 0, 0
			for offset := 0; ; offset += limit {
				page, v := visits(t, lw, lf.f, limit, offset)
				read += v
				items += len(page.Items)
				pages++
				if v > bound {
					t.Errorf("%d reports, %s: paging through, the page at offset %d read %d reports, above %d", n, lf.name, offset, v, bound)
					break
				}
				if !page.HasMore {
					break
				}
			}
			if want := len(bruteList(lw.c, lw.p.Workspace.ID, lf.f)); items != want {
				t.Errorf("%d reports, %s: paged through %d reports of %d", n, lf.name, items, want)
			}
			if max := uint64(items) + uint64(pages)*(bound-limit); read > max {
				t.Errorf("%d reports, %s: paging through %d reports read %d, above %d", n, lf.name, items, read, max)
			}
		}
	}
}

// TestBrowsePagesReadWhatTheyHold bounds the reports a page of the control listing reads, by
// status and series, from the top and from a cursor deep in the workspace.
func TestBrowsePagesReadWhatTheyHold(t *testing.T) {
	t.Parallel()
	const n, limit = 20_000, 50
	lw := newListWorkspace(t, n)
	deep := lw.c.reportIdx[lw.p.Workspace.ID].all.reports[n/3].ID
	for _, lf := range listFilters(lw) {
		if lf.f.CreatedSince != nil || lf.f.UpdatedSince != nil {
			continue // the control listing has neither
		}
		for _, fromDeep := range []bool{false, true} {
			q := BrowseQuery{Workspace: lw.p.Workspace.ID, Status: lf.f.Status, Series: lf.f.SeriesID, Limit: limit}
			if fromDeep {
				q.After = &deep
			}
			before := lw.c.listVisits.Load()
			page, err := lw.c.BrowseReports(q)
			if err != nil {
				t.Fatal(err)
			}
			if v := lw.c.listVisits.Load() - before; v > pageBound(limit, n) || len(page.Reports) == 0 {
				t.Errorf("%s after %v: %d reports on the page, %d read, bound %d", lf.name, q.After, len(page.Reports), v, pageBound(limit, n))
			}
		}
	}
}

// listed is c.ListReports of a principal the test admitted, failing tb on a refusal.
func listed(tb testing.TB, c *Core, p Principal, f ReportFilter, limit, offset int) Page[Report] {
	tb.Helper()
	page, err := c.ListReports(p, f, limit, offset)
	if err != nil {
		tb.Fatalf("ListReports: %v", err)
	}
	return page
}
