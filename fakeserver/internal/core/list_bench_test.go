package core

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// listSizes are the workspace sizes the listing benchmarks compare: a page must cost the same
// at each.
var listSizes = []int{1_000, 10_000, 100_000}

// listWorkspace is a workspace of n reports for the listing benchmarks and the work bounds:
// created one second apart, each updated 30 minutes after it was created, in four series (one
// report in four in each), one in three FAILED and one in fifty still IN_PROGRESS, the rest
// COMPLETE. 1,000, 10,000 and 100,000 are alike modulo 4, 3, 12 and 50, so the newest reports
// of each size follow the same pattern.
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
	for range 4 {
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
		case i%3 == 1:
			status = StatusFailed
		}
		s := lw.series[i%4]
		r := &Report{ID: uuid.New(), Workspace: ws.ID, Status: status, CreatedAt: created,
			UpdatedAt: created.Add(30 * time.Minute), OriginalFilename: "a.wav", Series: &s}
		c.insertReportLocked(r)
	}
	return lw
}

// benchWorkspaces are the listWorkspaces of listSizes, one per size, all alive at once so that
// the sizes are timed side by side on the same heap.
func benchWorkspaces(b *testing.B) map[int]listWorkspace {
	b.Helper()
	out := map[int]listWorkspace{}
	for _, n := range listSizes {
		out[n] = newListWorkspace(b, n)
	}
	return out
}

// namedFilter is a filter of GET /reports (and GraphQL reports) with a name for benchmarks.
type namedFilter struct {
	name string
	f    ReportFilter
}

// listFilters are the filters of GET /reports (and GraphQL reports) the work bounds try, each
// with the workspace it runs on: every combination, and a status few reports have.
func listFilters(lw listWorkspace) []namedFilter {
	return append(listCombos(lw), namedFilter{"status_rare", ReportFilter{Status: StatusInProgress}})
}

// listCombos is every combination of the filters of GET /reports (rest-api.md: series_id,
// status, created_since, updated_since; GraphQL's reports takes the same four), the
// updated_since bound old (most reports match) or recent (the last 50 updates), named by the
// filters set ("none" for none).
func listCombos(lw listWorkspace) []namedFilter {
	s := lw.series[3]
	var out []namedFilter
	for _, series := range []bool{false, true} {
		for _, status := range []bool{false, true} {
			for _, created := range []bool{false, true} {
				for _, updated := range []string{"", "old", "recent"} {
					var f ReportFilter
					var name []string
					if series {
						f.SeriesID = &s
						name = append(name, "series")
					}
					if status {
						f.Status = StatusFailed
						name = append(name, "status")
					}
					if created {
						f.CreatedSince = &lw.old
						name = append(name, "created")
					}
					switch updated {
					case "old":
						f.UpdatedSince = &lw.old
						name = append(name, "updated_old")
					case "recent":
						f.UpdatedSince = &lw.recent
						name = append(name, "updated_recent")
					}
					if len(name) == 0 {
						name = []string{"none"}
					}
					out = append(out, namedFilter{strings.Join(name, "+"), f})
				}
			}
		}
	}
	return out
}

// benchPage is the page size of the listing benchmarks: every combination's first page is full
// at 1,000 reports (the rarest, one series and FAILED created and updated since old, has about
// 70), so that every size compares pages holding as many reports.
const benchPage = 25

// deepOffset is the offset of the last full page of f at the smallest size (at least the
// second page), which every size then asks: a page deep in the listing holding as many reports
// at each size.
func deepOffset(lw listWorkspace, f ReportFilter) int {
	matches := len(bruteList(lw.c, lw.p.Workspace.ID, f))
	return max(benchPage, (matches/benchPage-1)*benchPage)
}

// BenchmarkListings times the listings at each of listSizes, the sizes of a case one after the
// other so that they meet the same load (benchstat -col /n compares them). The workspaces are
// built once per run of the benchmark (a smoke run at -benchtime 1x pays for 111,000 reports
// once) and let go when it ends, so that no later benchmark's collections walk them.
func BenchmarkListings(b *testing.B) {
	lws := benchWorkspaces(b)
	b.Run("ListReports", func(b *testing.B) { benchListReports(b, lws) })
	b.Run("paging", func(b *testing.B) { benchListReportsPaging(b, lws) })
	b.Run("BrowseReports", func(b *testing.B) { benchBrowseReports(b, lws) })
}

// benchListReports is one page of ListReports for every filter combination at each size: the
// first page, and the last full page at 1,000 found afresh (the workspace's kept pages
// forgotten first, so the walk counts its way there from the top). The time per page should
// not grow with the size; items/page says the pages hold as many reports.
func benchListReports(b *testing.B, lws map[int]listWorkspace) {
	small := lws[listSizes[0]]
	combos := map[int][]namedFilter{}
	for _, n := range listSizes {
		combos[n] = listCombos(lws[n])
	}
	for i, lf := range combos[listSizes[0]] {
		deep := deepOffset(small, lf.f)
		for _, page := range []string{"first", "deep"} {
			offset := 0
			if page == "deep" {
				offset = deep
			}
			benchSizes(b, fmt.Sprintf("filter=%s/page=%s", lf.name, page), func(b *testing.B, n int) int {
				lw := lws[n]
				if page == "deep" {
					forgetPages(lw.c, lw)
				}
				return len(listed(b, lw.c, lw.p, combos[n][i].f, benchPage, offset).Items)
			})
		}
	}
}

// benchSizes times page, which lists a page at size n and returns how many items it held,
// in a sub-benchmark name/n=N for each of listSizes (ns/op, B/op and allocs/op of one size;
// benchstat -col /n sets them side by side), and in name/n=interleaved, whose op is a batch of
// pages at each size in turn (the first size rotating), so that every size meets the same
// load: ns/page@N and cpu-ns/page@N (the process's CPU, which other processes' load does not
// inflate as it does wall time) are each size's, ratio and cpu-ratio the largest size's over
// the smallest's.
func benchSizes(b *testing.B, name string, page func(b *testing.B, n int) int) {
	for _, n := range listSizes {
		b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
			b.ReportAllocs()
			items := 0
			for b.Loop() {
				items = page(b, n)
			}
			b.ReportMetric(float64(items), "items/page")
		})
	}
	b.Run(name+"/n=interleaved", func(b *testing.B) {
		wall := make([]time.Duration, len(listSizes))
		cpu := make([]int64, len(listSizes))
		turn := 0
		for b.Loop() {
			for k := range listSizes {
				i := (turn + k) % len(listSizes)
				began, beganCPU := time.Now(), processCPU()
				for range benchBatch {
					page(b, listSizes[i])
				}
				wall[i] += time.Since(began)
				cpu[i] += processCPU() - beganCPU
			}
			turn++
		}
		pages := float64(b.N * benchBatch)
		last := len(listSizes) - 1
		for i, n := range listSizes {
			b.ReportMetric(float64(wall[i].Nanoseconds())/pages, fmt.Sprintf("ns/page@%d", n))
			if cpu[0] > 0 {
				b.ReportMetric(float64(cpu[i])/pages, fmt.Sprintf("cpu-ns/page@%d", n))
			}
		}
		b.ReportMetric(float64(wall[last])/float64(wall[0]), "ratio")
		if cpu[0] > 0 {
			b.ReportMetric(float64(cpu[last])/float64(cpu[0]), "cpu-ratio")
		}
	})
}

// benchBatch is how many pages the interleaved op lists at one size before the next: enough
// for the process's CPU clock (microseconds) to time a batch to about a percent.
const benchBatch = 20

// benchListReportsPaging pages through every report updated since an old instant (nine in
// ten of the workspace), 100 at a time, as a poller catching up does, at each size: ns/report
// and cpu-ns/report (the process's CPU) should not grow with the size, and first-ns/page (the first tenth of the pages) and
// last-ns/page (the last tenth) should read alike, the cost flat from the first page to the last.
func benchListReportsPaging(b *testing.B, lws map[int]listWorkspace) {
	for _, n := range listSizes {
		lw := lws[n]
		f := ReportFilter{UpdatedSince: &lw.old}
		want := len(bruteList(lw.c, lw.p.Workspace.ID, f))
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			pages := (want + 99) / 100
			tenth := max(1, pages/10)
			var first, last time.Duration
			beganCPU := processCPU()
			for b.Loop() {
				forgetPages(lw.c, lw)
				seen := 0
				for p := 0; ; p++ {
					began := time.Now()
					page := listed(b, lw.c, lw.p, f, 100, 100*p)
					took := time.Since(began)
					switch {
					case p < tenth:
						first += took
					case p >= pages-tenth:
						last += took
					}
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
			if cpu := processCPU() - beganCPU; cpu > 0 {
				b.ReportMetric(float64(cpu)/float64(b.N)/float64(want), "cpu-ns/report")
			}
			b.ReportMetric(float64(first.Nanoseconds())/float64(b.N*tenth), "first-ns/page")
			b.ReportMetric(float64(last.Nanoseconds())/float64(b.N*tenth), "last-ns/page")
		})
	}
}

// benchBrowseReports is one page of BrowseReports (the control API's GET /_fake/reports and
// the dashboard's lists) for each of its filters at each size (see benchSizes): the first page,
// and the page after the report that ends the last full page but one at 1,000 (a cursor deep
// in the listing).
func benchBrowseReports(b *testing.B, lws map[int]listWorkspace) {
	small := lws[listSizes[0]]
	for i, lf := range listCombos(small) {
		if lf.f.CreatedSince != nil || lf.f.UpdatedSince != nil {
			continue // the control listing has neither
		}
		deep := deepOffset(small, lf.f)
		for _, page := range []string{"first", "deep"} {
			queries := map[int]BrowseQuery{}
			for _, n := range listSizes {
				lw := lws[n]
				f := listCombos(lw)[i].f
				q := BrowseQuery{Workspace: lw.p.Workspace.ID, Status: f.Status, Series: f.SeriesID, Limit: benchPage}
				if page == "deep" {
					after := bruteList(lw.c, lw.p.Workspace.ID, f)[deep-1].ID
					q.After = &after
				}
				queries[n] = q
			}
			benchSizes(b, fmt.Sprintf("filter=%s/page=%s", lf.name, page), func(b *testing.B, n int) int {
				page, err := lws[n].c.BrowseReports(queries[n])
				if err != nil {
					b.Fatal(err)
				}
				return len(page.Reports)
			})
		}
	}
}
