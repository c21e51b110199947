package core

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
)

// listSizes are the workspace sizes the listing benchmarks compare: a page must cost the same
// at each.
var listSizes = []int{1_000, 10_000, 100_000}

// listWorkspace is a workspace of n finished reports for the listing benchmarks and the work
// bounds: created one second apart, each updated 30 minutes after it was created, in ten
// series (one report in ten in each), one in seven FAILED and one in fifty still IN_PROGRESS.
type listWorkspace struct {
	c      *Core
	p      Principal
	series []uuid.UUID
	// old is an instant older than nine reports in ten; recent is newer than all but the last
	// 50 updates.
	old, recent time.Time
}

func newListWorkspace(tb testing.TB, n int) listWorkspace {
	tb.Helper()
	c := New(newWorldClock(), Deps{})
	ws, err := c.CreateWorkspace(NewWorkspace{Type: Personal, Name: "Lists"})
	if err != nil {
		tb.Fatal(err)
	}
	lw := listWorkspace{c: c, p: Principal{Workspace: ws}}
	for range 10 {
		lw.series = append(lw.series, uuid.New())
	}
	lw.old = start.Add(time.Duration(n/10) * time.Second)
	lw.recent = start.Add(30*time.Minute + time.Duration(n-51)*time.Second)
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range n {
		created := start.Add(time.Duration(i) * time.Second)
		status := StatusComplete
		switch {
		case i%50 == 7:
			status = StatusInProgress
		case i%7 == 3:
			status = StatusFailed
		}
		s := lw.series[i%10]
		r := &Report{ID: uuid.New(), Workspace: ws.ID, Status: status, CreatedAt: created,
			UpdatedAt: created.Add(30 * time.Minute), OriginalFilename: "a.wav", Series: &s}
		c.insertReportLocked(r)
	}
	return lw
}

// listFilters are the filters of GET /reports (and GraphQL reports) the benchmarks and the work
// bounds try, each with the workspace it runs on.
func listFilters(lw listWorkspace) []struct {
	name string
	f    ReportFilter
} {
	s := lw.series[3]
	return []struct {
		name string
		f    ReportFilter
	}{
		{"none", ReportFilter{}},
		{"series", ReportFilter{SeriesID: &s}},
		{"status", ReportFilter{Status: StatusFailed}},
		{"status_rare", ReportFilter{Status: StatusInProgress}},
		{"created_since", ReportFilter{CreatedSince: &lw.old}},
		{"updated_since_old", ReportFilter{UpdatedSince: &lw.old}},
		{"updated_since_recent", ReportFilter{UpdatedSince: &lw.recent}},
		{"series_status", ReportFilter{SeriesID: &s, Status: StatusFailed}},
		{"series_status_updated_since", ReportFilter{SeriesID: &s, Status: StatusFailed, UpdatedSince: &lw.old}},
		{"status_created_since_updated_since", ReportFilter{Status: StatusComplete, CreatedSince: &lw.old, UpdatedSince: &lw.old}},
	}
}

// BenchmarkListReports is one page of 100 of ListReports for each filter at each workspace size:
// the first page, and a page at offset 500 (found from the top each time: the page before it
// was not read). The time per page should not grow with the size where the pages hold as many
// reports (items/page).
func BenchmarkListReports(b *testing.B) {
	for _, n := range listSizes {
		lw := newListWorkspace(b, n)
		for _, lf := range listFilters(lw) {
			for _, offset := range []int{0, 500} {
				name := lf.name
				if offset != 0 {
					name += "_offset500"
				}
				b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
					b.ReportAllocs()
					items := 0
					for b.Loop() {
						page := listed(b, lw.c, lw.p, lf.f, 100, offset)
						if offset == 0 && len(page.Items) == 0 {
							b.Fatal("an empty first page")
						}
						items = len(page.Items)
					}
					// Pages of a filter hold fewer reports in a small workspace: compare
					// sizes where they hold as many.
					b.ReportMetric(float64(items), "items/page")
				})
			}
		}
	}
}

// BenchmarkListReportsPaging pages through every report updated since an old instant, 100 at a
// time, as a poller catching up does; ns/report should not grow with the size.
func BenchmarkListReportsPaging(b *testing.B) {
	for _, n := range listSizes {
		lw := newListWorkspace(b, n)
		f := ReportFilter{UpdatedSince: &lw.old}
		want := 0
		for _, r := range lw.c.reports {
			if r.UpdatedAt.After(lw.old) {
				want++
			}
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				seen := 0
				for offset := 0; ; offset += 100 {
					page := listed(b, lw.c, lw.p, f, 100, offset)
					seen += len(page.Items)
					if !page.HasMore {
						break
					}
				}
				if seen != want {
					b.Fatalf("paged through %d of %d", seen, want)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(want), "ns/report")
		})
	}
}
