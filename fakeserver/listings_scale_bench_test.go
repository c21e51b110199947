//go:build unix

package fakeserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/internal/apitime"
)

// scaleSizes are the sizes the listing scale benchmarks compare: a page must cost the same at
// each (issue 41: within 1.3× in process and 1.5× over loopback at 100,000 against 1,000).
var scaleSizes = []int{1_000, 10_000, 100_000}

// scalePage is the page size the scale benchmarks ask: every filter combination's first page
// is full at 1,000 reports (the rarest holds about 70), so every size compares pages holding
// as many items.
const scalePage = 25

// scaleFake is a fake holding n of everything a listing lists: one workspace of n reports (in
// four series of one episode each, one in three FAILED and one in fifty IN_PROGRESS, the rest
// COMPLETE, created a second apart and updated 30 minutes after), n workspaces in all, n hosted
// feeds and n events in the record. old is older than nine reports in ten; recent newer than
// all but the last 50 updates. 1,000, 10,000 and 100,000 are alike modulo 4, 3, 12 and 50, so
// the newest reports of each size follow the same pattern.
type scaleFake struct {
	srv         *Server
	key, ws     string
	series      string // the series the series filter names
	old, recent string // apitime.Format of the two bounds
	filters     []scaleFilter
}

// scaleFakes are the scaleFakes of scaleSizes, all alive at once so that the sizes are timed
// side by side on the same heap, closed when b ends.
func scaleFakes(b *testing.B) map[int]*scaleFake {
	b.Helper()
	out := map[int]*scaleFake{}
	for _, n := range scaleSizes {
		f, err := newScaleFake(n)
		if err != nil {
			b.Fatalf("%d: %v", n, err)
		}
		b.Cleanup(func() { _ = f.srv.Close() })
		out[n] = f
	}
	return out
}

func newScaleFake(n int) (_ *scaleFake, err error) {
	srv, err := New(WithManualClock(TestStart()), WithoutRateLimits(), WithEventRecordSize(n))
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = srv.Close()
		}
	}()
	off := false
	ws, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "Lists", ChargingEnabled: &off})
	if err != nil {
		return nil, err
	}
	key, err := srv.CreateAPIKey(ws.ID, "")
	if err != nil {
		return nil, err
	}
	wsID := uuid.MustParse(ws.ID)
	var series, episodes []uuid.UUID
	for i := range 4 {
		s, eps, err := srv.core.ImportSeries(wsID, core.ImportedSeries{FeedURL: fmt.Sprintf("https://feeds.example/%d.xml", i),
			Episodes: []core.ImportedEpisode{{AudioURL: fmt.Sprintf("https://feeds.example/%d.mp3", i)}}})
		if err != nil {
			return nil, err
		}
		series, episodes = append(series, s.ID), append(episodes, eps[0].ID)
	}
	begin := srv.Now().Add(-time.Hour - time.Duration(n)*time.Second)
	in := make([]core.ImportedReport, n)
	for i := range in {
		status := core.StatusComplete
		switch {
		case i%50 == 7:
			status = core.StatusInProgress
		case i%3 == 1:
			status = core.StatusFailed
		}
		created := begin.Add(time.Duration(i) * time.Second)
		in[i] = core.ImportedReport{Status: status, CreatedAt: created, UpdatedAt: created.Add(30 * time.Minute),
			OriginalFilename: "a.wav", Series: &series[i%4], Episode: &episodes[i%4]}
	}
	if _, err := srv.core.ImportReports(wsID, in); err != nil {
		return nil, err
	}
	for i := range n - len(srv.Workspaces()) {
		if _, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: fmt.Sprint("User ", i)}); err != nil {
			return nil, err
		}
	}
	for i := range n {
		if _, err := srv.HostFeed(HostedFeedSpec{Title: fmt.Sprint("Show ", i)}); err != nil {
			return nil, err
		}
	}
	for range n {
		srv.events.keep(Event{Kind: EventClockAdvanced})
	}
	f := &scaleFake{srv: srv, key: key.Key, ws: ws.ID, series: series[3].String(),
		old:    apitime.Format(begin.Add(time.Duration(n/10) * time.Second)),
		recent: apitime.Format(begin.Add(30*time.Minute + time.Duration(n-51)*time.Second))}
	f.filters = scaleFilters(f)
	return f, nil
}

// scaleVias are the two ways the benchmarks ask: through the fake's handler in process (the
// whole chain, no socket) and over loopback with the fake's own client.
var scaleVias = []string{"handler", "loopback"}

// do answers req via the handler or over loopback, failing b unless it is a 200.
func (f *scaleFake) do(b *testing.B, via string, req *http.Request) []byte {
	if via == "handler" {
		rec := httptest.NewRecorder()
		f.srv.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%s %s: %d %.300s", req.Method, req.URL, rec.Code, rec.Body)
		}
		return rec.Body.Bytes()
	}
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("%s %s: %d %v %.300s", req.Method, req.URL, resp.StatusCode, err, body)
	}
	return body
}

// get is GET path (below the fake's URL) with token: the number of its page's items and the
// cursor of the next page (next_cursor of the control listings), if any.
func (f *scaleFake) get(b *testing.B, via, path, token string) (items int, next string) {
	req, _ := http.NewRequest("GET", f.srv.URL()+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	var page struct {
		Items      []json.RawMessage `json:"items"`
		NextCursor *string           `json:"next_cursor"`
	}
	if err := json.Unmarshal(f.do(b, via, req), &page); err != nil {
		b.Fatalf("GET %s: %v", path, err)
	}
	if page.NextCursor != nil {
		next = *page.NextCursor
	}
	return len(page.Items), next
}

// graphql answers query and counts the reports it lists.
func (f *scaleFake) graphql(b *testing.B, via, query string) int {
	body, _ := json.Marshal(map[string]string{"query": query})
	req, _ := http.NewRequest("POST", f.srv.URL()+"/api/graphql", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+f.key)
	req.Header.Set("Content-Type", "application/json")
	var answer struct {
		Data   struct{ Reports []json.RawMessage }
		Errors []json.RawMessage
	}
	raw := f.do(b, via, req)
	if err := json.Unmarshal(raw, &answer); err != nil || len(answer.Errors) > 0 {
		b.Fatalf("GraphQL %s: %v %.300s", query, err, raw)
	}
	return len(answer.Data.Reports)
}

// scaleFilter is one combination of GET /reports' filters (rest-api.md: series_id, status,
// created_since, updated_since, the last old or recent) as a REST query and as GraphQL
// reports arguments (forSeriesId, status, createdSince, updatedSince).
type scaleFilter struct {
	name, rest, graphql string
}

func scaleFilters(f *scaleFake) []scaleFilter {
	var out []scaleFilter
	for _, series := range []bool{false, true} {
		for _, status := range []bool{false, true} {
			for _, created := range []bool{false, true} {
				for _, updated := range []string{"", "old", "recent"} {
					var name, rest, gql []string
					if series {
						name, rest = append(name, "series"), append(rest, "series_id="+f.series)
						gql = append(gql, `forSeriesId: "`+f.series+`"`)
					}
					if status {
						name, rest = append(name, "status"), append(rest, "status=FAILED")
						gql = append(gql, `status: "failed"`)
					}
					if created {
						name, rest = append(name, "created"), append(rest, "created_since="+url.QueryEscape(f.old))
						gql = append(gql, `createdSince: "`+f.old+`"`)
					}
					if updated != "" {
						bound := f.old
						if updated == "recent" {
							bound = f.recent
						}
						name, rest = append(name, "updated_"+updated), append(rest, "updated_since="+url.QueryEscape(bound))
						gql = append(gql, `updatedSince: "`+bound+`"`)
					}
					if len(name) == 0 {
						name = []string{"none"}
					}
					out = append(out, scaleFilter{strings.Join(name, "+"), strings.Join(rest, "&"), strings.Join(gql, ", ")})
				}
			}
		}
	}
	return out
}

// scaleDeep is the offset of the last full page of filter at the smallest size (at least the
// second page), which every size then asks: a page deep in the listing, as full at each size.
func scaleDeep(b *testing.B, f *scaleFake, filter scaleFilter) int {
	matches := 0
	for offset := 0; ; offset += 100 {
		items, _ := f.get(b, "handler", fmt.Sprintf("/api/rest/v1/reports?limit=100&offset=%d&%s", offset, filter.rest), f.key)
		matches += items
		if items < 100 {
			break
		}
	}
	return max(scalePage, (matches/scalePage-1)*scalePage)
}

// BenchmarkListingsScale is the listings at each size, in process (through the fake's handler)
// and over loopback, the sizes of a case one after the other (compare them with benchstat -col
// /n): GET /reports and GraphQL reports, an op being one page of scalePage of every filter
// combination in turn (their first pages, or their last full pages at 1,000, found by offset:
// the core counts its way there; BenchmarkListings in internal/core times each combination
// alone), and each control listing (GET /_fake/workspaces, /feeds, /reports of the workspace,
// by status and of every workspace, /events, all and of one kind), an op being its first page
// and the page from a cursor 500 items in. ns/page and cpu-ns/page (the process's user+sys
// CPU, which other processes' load inflates less) are per page; items/page says the pages
// compared hold as many items. The fakes are built once per run of the benchmark (a smoke run at
// -benchtime 1x pays for them once) and closed when it ends, so that no later benchmark's
// collections walk them.
func BenchmarkListingsScale(b *testing.B) {
	fakes := scaleFakes(b)
	small := fakes[scaleSizes[0]]
	run := func(name string, op func(b *testing.B, f *scaleFake, via string) (pages, items int)) {
		for _, via := range scaleVias {
			for _, n := range scaleSizes {
				f := fakes[n]
				b.Run(fmt.Sprintf("%s/via=%s/n=%d", name, via, n), func(b *testing.B) {
					b.ReportAllocs()
					pages, items := 0, 0
					began := processCPU(b)
					for b.Loop() {
						pages, items = op(b, f, via)
					}
					cpu := processCPU(b) - began
					perPage := float64(b.N * pages)
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/perPage, "ns/page")
					b.ReportMetric(float64(cpu.Nanoseconds())/perPage, "cpu-ns/page")
					b.ReportMetric(float64(items)/float64(pages), "items/page")
				})
			}
			// The sizes in turn within each op (the first rotating), so that they meet the same
			// load: ns/page@N and cpu-ns/page@N each size's, ratio and cpu-ratio the largest
			// size's over the smallest's.
			b.Run(fmt.Sprintf("%s/via=%s/n=interleaved", name, via), func(b *testing.B) {
				wall := make([]time.Duration, len(scaleSizes))
				cpu := make([]time.Duration, len(scaleSizes))
				pages, turn := 0, 0
				for b.Loop() {
					for k := range scaleSizes {
						i := (turn + k) % len(scaleSizes)
						began, beganCPU := time.Now(), processCPU(b)
						pages, _ = op(b, fakes[scaleSizes[i]], via)
						wall[i] += time.Since(began)
						cpu[i] += processCPU(b) - beganCPU
					}
					turn++
				}
				perPage := float64(b.N * pages)
				for i, n := range scaleSizes {
					b.ReportMetric(float64(wall[i].Nanoseconds())/perPage, fmt.Sprintf("ns/page@%d", n))
					b.ReportMetric(float64(cpu[i].Nanoseconds())/perPage, fmt.Sprintf("cpu-ns/page@%d", n))
				}
				last := len(scaleSizes) - 1
				b.ReportMetric(float64(wall[last])/float64(wall[0]), "ratio")
				b.ReportMetric(float64(cpu[last])/float64(cpu[0]), "cpu-ratio")
			})
		}
	}
	filters := small.filters
	deep := make([]int, len(filters))
	for i, filter := range filters {
		deep[i] = scaleDeep(b, small, filter)
	}
	for _, page := range []string{"first", "deep"} {
		offset := func(i int) int {
			if page == "deep" {
				return deep[i]
			}
			return 0
		}
		run("rest/page="+page, func(b *testing.B, f *scaleFake, via string) (pages, items int) {
			for i, filter := range f.filters {
				n, _ := f.get(b, via, fmt.Sprintf("/api/rest/v1/reports?limit=%d&offset=%d&%s", scalePage, offset(i), filter.rest), f.key)
				items += n
			}
			return len(filters), items
		})
		run("graphql/page="+page, func(b *testing.B, f *scaleFake, via string) (pages, items int) {
			for i, filter := range f.filters {
				args := fmt.Sprintf("limit: %d, offset: %d", scalePage, offset(i))
				if filter.graphql != "" {
					args += ", " + filter.graphql
				}
				items += f.graphql(b, via, `{ reports(`+args+`) { id status createdAt updatedAt } }`)
			}
			return len(filters), items
		})
	}
	for _, c := range []struct{ name, path string }{
		{"workspaces", "/_fake/workspaces?"},
		{"feeds", "/_fake/feeds?"},
		{"reports", "/_fake/reports?workspace_id={ws}"},
		{"reports_status", "/_fake/reports?status=FAILED&workspace_id={ws}"},
		{"reports_all_workspaces", "/_fake/reports?"},
		{"events", "/_fake/events?"},
		{"events_kind", "/_fake/events?kind=" + EventClockAdvanced},
	} {
		pathOf := func(f *scaleFake) string {
			path := strings.ReplaceAll(c.path, "{ws}", f.ws)
			if !strings.HasSuffix(path, "?") {
				path += "&"
			}
			return path + fmt.Sprintf("limit=%d", scalePage)
		}
		// Each size's cursor 500 items in, found by paging there.
		cursors := map[*scaleFake]string{}
		for _, f := range fakes {
			for range 500 / scalePage {
				_, cursors[f] = f.get(b, "handler", withCursor(pathOf(f), cursors[f]), f.srv.AdminToken())
			}
		}
		run("control/"+c.name, func(b *testing.B, f *scaleFake, via string) (pages, items int) {
			first, _ := f.get(b, via, pathOf(f), f.srv.AdminToken())
			deep, _ := f.get(b, via, withCursor(pathOf(f), cursors[f]), f.srv.AdminToken())
			return 2, first + deep
		})
	}
	b.Run("rest/paging", func(b *testing.B) { benchScalePaging(b, fakes) })
}

// benchScalePaging pages through every report updated since an old instant (at 100,000, nine
// in ten of the workspace), 100 at a time over loopback, as a poller catching up does, at each
// size: ns/report and cpu-ns/report (the process's CPU) should not grow with the size, and
// first-ns/page (the first tenth of the pages) and last-ns/page (the last tenth) should read
// alike, the cost flat from the first page to the last.
func benchScalePaging(b *testing.B, fakes map[int]*scaleFake) {
	for _, n := range scaleSizes {
		f := fakes[n]
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			// Updated after old: created after old's 30 minutes before (1,800 reports).
			want := n - max(0, n/10-1799)
			pages := (want + 99) / 100
			tenth := max(1, pages/10)
			var first, last time.Duration
			beganCPU := int64(processCPU(b))
			for b.Loop() {
				seen := 0
				for p := range pages {
					began := time.Now()
					items, _ := f.get(b, "loopback", fmt.Sprintf("/api/rest/v1/reports?limit=100&offset=%d&updated_since=%s", 100*p, url.QueryEscape(f.old)), f.key)
					took := time.Since(began)
					switch {
					case p < tenth:
						first += took
					case p >= pages-tenth:
						last += took
					}
					seen += items
				}
				if seen != want {
					b.Fatalf("paged through %d of %d", seen, want)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(want), "ns/report")
			if cpu := int64(processCPU(b)) - beganCPU; cpu > 0 {
				b.ReportMetric(float64(cpu)/float64(b.N)/float64(want), "cpu-ns/report")
			}
			b.ReportMetric(float64(first.Nanoseconds())/float64(b.N*tenth), "first-ns/page")
			b.ReportMetric(float64(last.Nanoseconds())/float64(b.N*tenth), "last-ns/page")
		})
	}
}
