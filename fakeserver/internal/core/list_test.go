package core

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
)

// bruteForce is ListReports' specification: filter everything, order by creation, newest first.
func bruteForce(c *Core, ws uuid.UUID, f ReportFilter, limit, offset int) Page[Report] {
	var all []*Report
	for _, r := range c.reports {
		if r.Workspace == ws &&
			(f.Status == "" || r.Status == f.Status) &&
			(f.CreatedSince == nil || r.CreatedAt.After(*f.CreatedSince)) &&
			(f.UpdatedSince == nil || r.UpdatedAt.After(*f.UpdatedSince)) {
			all = append(all, r)
		}
	}
	slices.SortFunc(all, func(a, b *Report) int { return int(b.seq) - int(a.seq) })
	return window(len(all), limit, offset, func(i int) Report { return *all[i] })
}

func TestListReportsMatchesItsSpecification(t *testing.T) {
	t.Parallel()
	off := false
	f := newFixture(t, 5*time.Minute, NewWorkspace{Type: Personal, Name: "Lister", ChargingEnabled: &off})
	rng := rand.New(rand.NewPCG(1, 2))
	var instants []time.Time
	for range 60 {
		idx := rng.IntN(3)
		if _, err := f.c.CreateReportFromFeed(t.Context(), f.p, FromFeed{FeedURL: "http://feeds.test/show.rss", EpisodeIndex: idx}); err != nil {
			t.Fatal(err)
		}
		instants = append(instants, f.c.Clock().Now())
		f.advance(t, time.Duration(rng.IntN(90))*time.Second)
	}
	statuses := []string{"", StatusComplete, StatusInProgress, StatusFailed, StatusPending}
	for i := range 300 {
		var filter ReportFilter
		filter.Status = statuses[rng.IntN(len(statuses))]
		if rng.IntN(2) == 0 {
			at := instants[rng.IntN(len(instants))].Add(time.Duration(rng.IntN(3)-1) * time.Second)
			filter.UpdatedSince = &at
		}
		if rng.IntN(3) == 0 {
			at := instants[rng.IntN(len(instants))]
			filter.CreatedSince = &at
		}
		limit, offset := 1+rng.IntN(20), rng.IntN(30)
		got := listReports(t, f.c, f.p, filter, limit, offset)
		want := bruteForce(f.c, f.ws.ID, filter, limit, offset)
		ids := func(p Page[Report]) string {
			s := fmt.Sprint(p.HasMore, p.Limit, p.Offset)
			for _, r := range p.Items {
				s += " " + r.ID.String()[:8]
			}
			return s
		}
		if ids(got) != ids(want) {
			t.Fatalf("case %d %+v limit %d offset %d:\n got %s\nwant %s", i, filter, limit, offset, ids(got), ids(want))
		}
	}
}

// seedReports gives a workspace n completed reports, updated one second apart.
func seedReports(b *testing.B, n int) (fixture, time.Time) {
	f := fixture{}
	f.c = New(newWorldClock(), Deps{})
	ws, _ := f.c.CreateWorkspace(NewWorkspace{Type: Personal, Name: "Bench"})
	f.p = Principal{Workspace: ws}
	now := start
	f.c.mu.Lock()
	for i := range n {
		r := &Report{ID: uuid.New(), Workspace: ws.ID, Status: StatusComplete, CreatedAt: now, UpdatedAt: now, OriginalFilename: "a.wav"}
		f.c.insertReportLocked(r)
		if i < n-50 {
			now = now.Add(time.Second)
		}
	}
	f.c.mu.Unlock()
	return f, now.Add(-time.Second)
}

func BenchmarkListReportsUpdatedSince(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			f, watermark := seedReports(b, n)
			filter := ReportFilter{Status: StatusComplete, UpdatedSince: &watermark}
			b.ReportAllocs()
			for b.Loop() {
				if page := listReports(b, f.c, f.p, filter, 100, 0); len(page.Items) != 50 {
					b.Fatalf("%d items", len(page.Items))
				}
			}
		})
	}
}
