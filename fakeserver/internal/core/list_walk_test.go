package core

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// bruteList is every listing's specification: the workspace's reports that pass f, newest
// first by creation.
func bruteList(c *Core, ws uuid.UUID, f ReportFilter) []*Report {
	var all []*Report
	for _, r := range c.reports {
		if r.Workspace == ws &&
			(f.SeriesID == nil || (r.Series != nil && *r.Series == *f.SeriesID)) &&
			(f.Status == "" || r.Status == f.Status) &&
			(f.CreatedSince == nil || r.CreatedAt.After(*f.CreatedSince)) &&
			(f.UpdatedSince == nil || r.UpdatedAt.After(*f.UpdatedSince)) {
			all = append(all, r)
		}
	}
	slices.SortFunc(all, func(a, b *Report) int { return int(b.seq) - int(a.seq) })
	return all
}

func bruteListPage(c *Core, ws uuid.UUID, f ReportFilter, limit, offset int) Page[Report] {
	all := bruteList(c, ws, f)
	return window(len(all), limit, offset, func(i int) Report { return *all[i] })
}

func pageString(p Page[Report]) string {
	var b strings.Builder
	fmt.Fprint(&b, p.HasMore, p.Limit, p.Offset)
	for _, r := range p.Items {
		fmt.Fprintf(&b, " %s/%s/%s", r.ID.String()[:6], r.Status, r.UpdatedAt.Format("15:04:05"))
	}
	return b.String()
}

// liveWorkspace is a workspace whose reports are added and change between listings, as on a
// running fake: its reports change status and updated_at through the core's own steps.
type liveWorkspace struct {
	c      *Core
	p      Principal
	series []uuid.UUID
	rng    *rand.Rand
	now    time.Time
	ids    []uuid.UUID
}

func newLiveWorkspace(t *testing.T, seed uint64, n int) *liveWorkspace {
	t.Helper()
	c := New(newWorldClock(), Deps{})
	ws, err := c.CreateWorkspace(NewWorkspace{Type: Personal, Name: "Live"})
	if err != nil {
		t.Fatal(err)
	}
	lw := &liveWorkspace{c: c, p: Principal{Workspace: ws}, rng: rand.New(rand.NewPCG(seed, 7)), now: start}
	for range 4 {
		lw.series = append(lw.series, uuid.New())
	}
	for range n {
		lw.add()
	}
	return lw
}

// add creates a report now (several may share an instant), sometimes without a series.
func (lw *liveWorkspace) add() {
	lw.now = lw.now.Add(time.Duration(lw.rng.IntN(3)) * time.Second)
	r := &Report{ID: uuid.New(), Workspace: lw.p.Workspace.ID, Status: statusOrder[lw.rng.IntN(numStatuses)],
		CreatedAt: lw.now, UpdatedAt: lw.now, OriginalFilename: "a.wav"}
	if k := lw.rng.IntN(len(lw.series) + 1); k < len(lw.series) {
		s := lw.series[k]
		r.Series = &s
	}
	lw.c.mu.Lock()
	lw.c.insertReportLocked(r)
	lw.c.mu.Unlock()
	lw.ids = append(lw.ids, r.ID)
}

// change moves a random report to a random status (or only touches it), now.
func (lw *liveWorkspace) change() {
	lw.now = lw.now.Add(time.Duration(lw.rng.IntN(3)) * time.Second)
	lw.c.mu.Lock()
	defer lw.c.mu.Unlock()
	r := lw.c.reports[lw.ids[lw.rng.IntN(len(lw.ids))]]
	if lw.rng.IntN(3) > 0 {
		lw.c.setStatusLocked(r, statusOrder[lw.rng.IntN(numStatuses)], "", lw.now)
	}
	lw.c.touchLocked(r, lw.now)
}

// filter is a random filter: each parameter set or not, bounds near the workspace's instants.
func (lw *liveWorkspace) filter() ReportFilter {
	var f ReportFilter
	if lw.rng.IntN(3) == 0 {
		s := lw.series[lw.rng.IntN(len(lw.series))]
		if lw.rng.IntN(8) == 0 {
			s = uuid.New() // a series without reports
		}
		f.SeriesID = &s
	}
	if lw.rng.IntN(2) == 0 {
		f.Status = statusOrder[lw.rng.IntN(numStatuses)]
	}
	span := lw.now.Sub(start)
	at := func() *time.Time {
		t := start.Add(time.Duration(lw.rng.Int64N(int64(span)+2*int64(time.Second))) - time.Second).Truncate(time.Second)
		return &t
	}
	if lw.rng.IntN(3) == 0 {
		f.CreatedSince = at()
	}
	if lw.rng.IntN(2) == 0 {
		f.UpdatedSince = at()
	}
	return f
}

// TestListingsMatchTheirSpecificationWhileReportsChange lists random pages, and pages through
// listings as pollers do (which resumes from the previous page), between additions and status
// changes, and compares every page with the brute-force listing.
func TestListingsMatchTheirSpecificationWhileReportsChange(t *testing.T) {
	t.Parallel()
	steps := 4000
	if testing.Short() {
		steps = 1000 // the quick subset walks a quarter of each seed's steps
	}
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			lw := newLiveWorkspace(t, seed, 400)
			type poll struct {
				f             ReportFilter
				limit, offset int
			}
			var polls []poll
			for i := range steps {
				switch k := lw.rng.IntN(20); {
				case k < 2:
					lw.add()
				case k < 6:
					lw.change()
				case k < 12 || len(polls) == 0:
					f := lw.filter()
					limit, offset := 1+lw.rng.IntN(40), lw.rng.IntN(300)
					if lw.rng.IntN(4) == 0 {
						offset = 0
					}
					polls = append(polls, poll{f, limit, offset})
					if len(polls) > 6 {
						polls = polls[1:]
					}
					fallthrough
				default:
					j := lw.rng.IntN(len(polls))
					pl := &polls[j]
					got := listed(t, lw.c, lw.p, pl.f, pl.limit, pl.offset)
					want := bruteListPage(lw.c, lw.p.Workspace.ID, pl.f, pl.limit, pl.offset)
					if pageString(got) != pageString(want) {
						t.Fatalf("step %d, filter %+v limit %d offset %d:\n got %s\nwant %s", i, pl.f, pl.limit, pl.offset, pageString(got), pageString(want))
					}
					pl.offset += pl.limit // the next page of this poll
					if !got.HasMore && lw.rng.IntN(2) == 0 {
						pl.offset = 0
					}
				}
			}
		})
	}
}

// TestBrowseReportsMatchesItsSpecification pages the control listing through every
// combination of status and series, by its cursors, while reports change.
func TestBrowseReportsMatchesItsSpecification(t *testing.T) {
	t.Parallel()
	lw := newLiveWorkspace(t, 9, 300)
	for i := range 300 {
		if i%3 == 0 {
			lw.add()
			lw.change()
		}
		f := lw.filter()
		f.CreatedSince, f.UpdatedSince = nil, nil
		want := bruteList(lw.c, lw.p.Workspace.ID, f)
		q := BrowseQuery{Workspace: lw.p.Workspace.ID, Status: f.Status, Series: f.SeriesID, Limit: 1 + lw.rng.IntN(30)}
		start := lw.rng.IntN(len(want) + 1)
		if start > 0 {
			// A cursor of another series or status is fine too: the page starts below it.
			after := want[start-1].ID
			if lw.rng.IntN(4) == 0 {
				after = lw.ids[lw.rng.IntN(len(lw.ids))]
				start = slices.IndexFunc(want, func(r *Report) bool { return r.seq < lw.c.reports[after].seq })
				if start < 0 {
					start = len(want)
				}
			}
			q.After = &after
		}
		page, err := lw.c.BrowseReports(q)
		if err != nil {
			t.Fatal(err)
		}
		end := min(len(want), start+q.Limit)
		var gotIDs, wantIDs []uuid.UUID
		for _, h := range page.Reports {
			gotIDs = append(gotIDs, h.ID)
		}
		for _, r := range want[start:end] {
			wantIDs = append(wantIDs, r.ID)
		}
		if !slices.Equal(gotIDs, wantIDs) || page.More != (end < len(want)) || page.Total != len(want) {
			t.Fatalf("step %d %+v: got %v more %v total %d, want %v more %v total %d", i, q, gotIDs, page.More, page.Total, wantIDs, end < len(want), len(want))
		}
	}
}

// TestListingsUnderConcurrentChanges lists from several goroutines while reports are added
// and change, for the race detector: the pages the listings keep for their next pages are
// shared between readers.
func TestListingsUnderConcurrentChanges(t *testing.T) {
	t.Parallel()
	lw := newLiveWorkspace(t, 4, 500)
	filters := make([]ReportFilter, 8)
	for i := range filters {
		filters[i] = lw.filter()
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 300 {
				f := filters[(g+i)%len(filters)]
				if page := listed(t, lw.c, lw.p, f, 10, (i%20)*10); len(page.Items) > 10 {
					t.Errorf("%d items on a page of 10", len(page.Items))
					return
				}
			}
		})
	}
	for range 300 {
		lw.add()
		lw.change()
	}
	wg.Wait()
	// Once still, every listing agrees with its specification again, resumed or not.
	for _, f := range filters {
		for offset := 0; offset < 300; offset += 10 {
			got := listed(t, lw.c, lw.p, f, 10, offset)
			if want := bruteListPage(lw.c, lw.p.Workspace.ID, f, 10, offset); pageString(got) != pageString(want) {
				t.Fatalf("%+v offset %d:\n got %s\nwant %s", f, offset, pageString(got), pageString(want))
			}
		}
	}
}

// TestListingTimesKeepCreationOrder: a report created at an instant before the workspace's
// newest report's (the wall clock stepped back, or two creations read the clock in one order
// and took the lock in the other) takes the newest's created_at, and updated_at never goes
// back, so that listings stay in created_at order and created_since and updated_since stay
// exact.
func TestListingTimesKeepCreationOrder(t *testing.T) {
	t.Parallel()
	c := New(newWorldClock(), Deps{})
	ws, err := c.CreateWorkspace(NewWorkspace{Type: Personal, Name: "Clock"})
	if err != nil {
		t.Fatal(err)
	}
	p := Principal{Workspace: ws}
	later, earlier := start.Add(time.Minute), start
	c.mu.Lock()
	first := &Report{ID: uuid.New(), Workspace: ws.ID, Status: StatusPending, CreatedAt: later, UpdatedAt: later}
	c.insertReportLocked(first)
	second := &Report{ID: uuid.New(), Workspace: ws.ID, Status: StatusPending, CreatedAt: earlier, UpdatedAt: earlier}
	c.insertReportLocked(second)
	c.touchLocked(first, earlier)
	c.mu.Unlock()
	if !second.CreatedAt.Equal(later) || !second.UpdatedAt.Equal(later) {
		t.Errorf("the second report was created at %v and updated at %v, want both %v", second.CreatedAt, second.UpdatedAt, later)
	}
	if !first.UpdatedAt.Equal(later) || first.Version != 1 {
		t.Errorf("touched at an earlier instant, updated_at is %v (version %d), want %v (1)", first.UpdatedAt, first.Version, later)
	}
	since := later.Add(-time.Nanosecond)
	for _, f := range []ReportFilter{{}, {CreatedSince: &since}, {UpdatedSince: &since}} {
		page := listed(t, c, p, f, 10, 0)
		if len(page.Items) != 2 || page.Items[0].ID != second.ID || page.Items[1].ID != first.ID {
			t.Errorf("%+v: %s, want the second report then the first", f, pageString(page))
		}
	}
}
