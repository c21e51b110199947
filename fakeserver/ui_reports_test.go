package fakeserver

import (
	"encoding/json"
	"html"
	"log/slog"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
)

// attrOf returns the value of attribute name of the first element carrying it after the
// marker, unescaped.
func attrOf(t *testing.T, body, marker, name string) string {
	t.Helper()
	i := strings.Index(body, marker)
	if i < 0 {
		t.Fatalf("no %q in the page", marker)
	}
	m := regexp.MustCompile(name + `="([^"]*)"`).FindStringSubmatch(body[i:])
	if m == nil {
		t.Fatalf("no %s after %q", name, marker)
	}
	return htmlUnescape(m[1])
}

// seedWorkspace makes a workspace holding n reports, in progress for an hour of fake time.
func seedWorkspace(t testing.TB, srv *Server, name string, n int) string {
	t.Helper()
	ws, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: name})
	if err != nil {
		t.Fatal(err)
	}
	reports := make([]SeededReport, n)
	for i := range reports {
		reports[i].CompleteAfter = time.Hour
	}
	if _, err := srv.SeedReports(ws.ID, reports); err != nil {
		t.Fatal(err)
	}
	return ws.ID
}

var reportRow = regexp.MustCompile(`<tr class="report" data-id="([0-9a-f-]{36})">`)

// Not parallel: testing.AllocsPerRun counts every allocation of the process.
func TestDashboardReportsPageWorkIsPerPage(t *testing.T) {
	srv, _ := NewTest(t)
	admin := browser(bearer(srv.AdminToken()))
	small := seedWorkspace(t, srv, "Small", 150)
	// A workspace 650 times the small one shows work per workspace well enough for -short;
	// the full run seeds 100,000 reports, the dashboard's stated scale.
	largeCount := 100_000
	if testing.Short() {
		largeCount = 10_000
	}
	large := seedWorkspace(t, srv, "Large", largeCount)
	largeTotal := strconv.Itoa(largeCount)

	type measured struct {
		allocs float64
		bytes  int
		rows   []string
		total  string
		next   string
	}
	measure := func(target string) measured {
		var m measured
		m.allocs = testing.AllocsPerRun(5, func() {
			w := uiDo(t, srv, uiReq{method: "GET", target: target, header: admin})
			if w.Code != http.StatusOK {
				t.Fatalf("%s: %d %s", target, w.Code, w.Body)
			}
			body := w.Body.String()
			m.bytes = len(body)
			m.rows = m.rows[:0]
			for _, r := range reportRow.FindAllStringSubmatch(body, -1) {
				m.rows = append(m.rows, r[1])
			}
			m.total = regexp.MustCompile(`<span id="total">(\d+)</span>`).FindStringSubmatch(body)[1]
			if n := regexp.MustCompile(`href="([^"]*)" id="next-page"`).FindStringSubmatch(body); n != nil {
				m.next = htmlUnescape(n[1])
			} else {
				m.next = ""
			}
		})
		return m
	}
	s, l := measure("/_fake/ui/workspaces/"+small), measure("/_fake/ui/workspaces/"+large)
	if len(s.rows) != dashboard.ReportPageSize || len(l.rows) != dashboard.ReportPageSize || s.total != "150" || l.total != largeTotal {
		t.Fatalf("rows %d and %d, totals %s and %s", len(s.rows), len(l.rows), s.total, l.total)
	}
	// The work of a page: allocations and bytes written, counted, not timed. A page of the
	// workspace of largeCount reports costs what a page of the one of 150 costs, give or take
	// the digits of the total.
	// Each row names its seeded file (seeded-<n>.wav), whose number has more digits in the
	// large workspace: that much more text is data, not work.
	nameDigits := dashboard.ReportPageSize * (len(strconv.Itoa(largeCount)) - len("150"))
	if l.allocs > s.allocs*1.05+10 || l.bytes > s.bytes+64+nameDigits {
		t.Fatalf("a page of %d reports costs %.0f allocations and %d bytes; of 150: %.0f and %d", largeCount, l.allocs, l.bytes, s.allocs, s.bytes)
	}
	t.Logf("first page: %.0f allocations, %d bytes with 150 reports; %.0f, %d with %d", s.allocs, s.bytes, l.allocs, l.bytes, largeCount)

	// The cursor walks on: the second page holds the next reports, newest first, none twice,
	// and the last page has no next link.
	p2 := measure(l.next)
	if len(p2.rows) != dashboard.ReportPageSize || p2.total != largeTotal {
		t.Fatalf("second page: %d rows, total %s", len(p2.rows), p2.total)
	}
	seen := map[string]bool{}
	for _, id := range append(l.rows, p2.rows...) {
		if seen[id] {
			t.Fatalf("report %s on two pages", id)
		}
		seen[id] = true
	}
	s2 := measure(s.next)
	if len(s2.rows) != 50 || s2.next != "" {
		t.Fatalf("last page of 150: %d rows, next %q", len(s2.rows), s2.next)
	}
}

func TestDashboardReportFilters(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	admin := browser(bearer(srv.AdminToken()))
	ws, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "Filters"})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := srv.SeedReports(ws.ID, []SeededReport{{}, {}, {CompleteAfter: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query  string
		status int
		want   []string
	}{
		{"", 200, []string{ids[2], ids[1], ids[0]}},
		{"?status=COMPLETE", 200, []string{ids[1], ids[0]}},
		{"?status=IN_PROGRESS", 200, []string{ids[2]}},
		{"?status=FAILED", 200, nil},
		{"?series=" + seed.WorkspaceID, 200, nil},
		{"?status=nonsense", 400, nil},
		{"?series=nope", 400, nil},
		{"?after=nope", 400, nil},
	} {
		w := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/workspaces/" + ws.ID + tc.query, header: admin})
		var got []string
		for _, r := range reportRow.FindAllStringSubmatch(w.Body.String(), -1) {
			got = append(got, r[1])
		}
		if w.Code != tc.status || strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: %d %v, want %d %v", tc.query, w.Code, got, tc.status, tc.want)
		}
	}
}

// hostedReport hosts a feed of one episode, reports on it over REST and advances the clock
// until the report finishes; it returns the report's id.
func hostedReport(t *testing.T, srv *Server, seed DemoWorkspace, e HostedEpisode) string {
	t.Helper()
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Plot", Episodes: []HostedEpisode{e}})
	if err != nil {
		t.Fatal(err)
	}
	status, _, body := call(t, srv, "POST", "/api/rest/v1/reports", jsonHeader(bearer(seed.APIKey)), `{"feed_url":"`+feed.FeedURL+`"}`)
	var created struct {
		ID string `json:"id"`
	}
	if status != http.StatusCreated || json.Unmarshal(body, &created) != nil {
		t.Fatalf("create report: %d %s", status, body)
	}
	if _, err := srv.Advance(10 * time.Minute); err != nil {
		t.Fatal(err)
	}
	return created.ID
}

func TestDashboardReportPage(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	admin := browser(bearer(srv.AdminToken()))
	lufs, peak := -16.0, -1.5
	id := hostedReport(t, srv, seed, HostedEpisode{Title: "Eight seconds", Duration: 8 * time.Second, LoudnessLUFS: &lufs, TruePeakDB: &peak, Format: "wav", Channels: 2})
	acc, err := srv.ReportAccount(id)
	if err != nil {
		t.Fatal(err)
	}
	w := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/reports/" + id, header: admin})
	body := w.Body.String()
	if w.Code != http.StatusOK || !strings.Contains(body, `id="report-status" class="status COMPLETE">COMPLETE<`) {
		t.Fatalf("report page: %d %s", w.Code, body)
	}
	for _, st := range acc.Timeline {
		if !strings.Contains(body, `<b class="status `+st.Status+`">`) {
			t.Errorf("the timeline lacks %s", st.Status)
		}
	}
	if len(acc.Checks) == 0 || strings.Count(body, `<tr class="check `) != len(acc.Checks) {
		t.Errorf("%d checks in the account, %d on the page", len(acc.Checks), strings.Count(body, `<tr class="check `))
	}
	// The plot's points are the account's series, value for value.
	var points [][2]*float64
	if err := json.Unmarshal([]byte(attrOf(t, body, `id="loudness-plot"`, "data-points")), &points); err != nil {
		t.Fatal(err)
	}
	if len(acc.Loudness.LUFS) < 5 || len(points) != len(acc.Loudness.LUFS) {
		t.Fatalf("%d points, %d values in the account", len(points), len(acc.Loudness.LUFS))
	}
	for i, p := range points {
		v := float64(acc.Loudness.LUFS[i])
		switch {
		case *p[0] != float64(i)*acc.Loudness.Step.Seconds():
			t.Fatalf("point %d at %v s", i, *p[0])
		case math.IsNaN(v) != (p[1] == nil), p[1] != nil && math.Abs(*p[1]-v) > 0.005:
			t.Fatalf("point %d is %v, the account has %v", i, p[1], v)
		}
	}
	rep, _ := srv.core.ReportByID(mustID(t, id))
	band := rep.Standard.Limits.Loudness
	if attrOf(t, body, `id="loudness-plot"`, "data-target-min") != jsonNumber(band.Min) ||
		attrOf(t, body, `id="loudness-plot"`, "data-true-peak-ceiling") != jsonNumber(rep.Standard.Limits.MaxTruePeak) {
		t.Errorf("the plot's band or ceiling is not the standard's (%v, %v)", band, rep.Standard.Limits.MaxTruePeak)
	}
	if !strings.Contains(body, `<rect class="band"`) || !strings.Contains(body, `<line class="ceiling"`) {
		t.Error("the plot draws no band or no ceiling")
	}

	// A report whose audio cannot be analysed shows why.
	failed := hostedReport(t, srv, seed, HostedEpisode{Title: "Broken", Duration: time.Second, FailAnalysis: true, Format: "wav"})
	facc, err := srv.ReportAccount(failed)
	if err != nil {
		t.Fatal(err)
	}
	body = uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/reports/" + failed, header: admin}).Body.String()
	if facc.Failure == "" || !strings.Contains(htmlUnescape(body), `id="failure">`+facc.Failure+"<") || !strings.Contains(body, `id="no-series"`) {
		t.Errorf("failed report page (failure %q): %s", facc.Failure, body)
	}

	for target, want := range map[string]int{
		"/_fake/ui/reports/00000000-0000-0000-0000-000000000000": http.StatusNotFound,
		"/_fake/ui/reports/not-an-id":                            http.StatusBadRequest,
	} {
		if w := uiDo(t, srv, uiReq{method: "GET", target: target, header: bearer(srv.AdminToken())}); w.Code != want {
			t.Errorf("%s: %d, want %d", target, w.Code, want)
		}
	}
}

func mustID(t *testing.T, id string) [16]byte {
	t.Helper()
	u, err := parseID(id, "Report")
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func jsonNumber(v float64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestDashboardEventsPage(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	admin := browser(bearer(srv.AdminToken()))
	for i, p := range uiPayloads {
		srv.events.raise(srv.Now(), slog.LevelWarn, EventFaultFired, "planted "+p, seed.WorkspaceID, "", slog.String("detail", p), slog.Int("n", i))
	}
	body := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/events?kind=" + EventFaultFired, header: admin}).Body.String()
	if n := strings.Count(body, `<tr class="event" data-kind="`+EventFaultFired+`">`); n != len(uiPayloads) {
		t.Fatalf("%d events shown, want %d: %s", n, len(uiPayloads), body)
	}
	for _, p := range uiPayloads {
		shownEscaped(t, "events", body, "planted "+p)
		shownEscaped(t, "events", body, "detail="+p)
	}
	if other := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/events?kind=" + EventReset, header: admin}).Body.String(); strings.Contains(other, "planted") {
		t.Fatal("the kind filter lets other kinds through")
	}
}

func TestDashboardEscapesWorkspaceNames(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	admin := browser(bearer(srv.AdminToken()))
	for _, p := range uiPayloads {
		ws, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: p})
		if err != nil {
			t.Fatal(err)
		}
		shownEscaped(t, "workspace", uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/workspaces/" + ws.ID, header: admin}).Body.String(), p)
	}
	overview := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/", header: admin}).Body.String()
	for _, p := range uiPayloads {
		shownEscaped(t, "overview", overview, p)
	}
}

func htmlUnescape(s string) string { return html.UnescapeString(s) }

func TestDashboardDeliveryTimeline(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	admin := browser(bearer(srv.AdminToken()))
	ep, err := srv.CreateWebhookEndpoint(t.Context(), seed.WorkspaceID, WebhookEndpointSpec{URL: "http://127.0.0.1:1/hook", Events: []string{"report.completed"}})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := srv.SeedReports(seed.WorkspaceID, []SeededReport{{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Advance(time.Second); err != nil {
		t.Fatal(err)
	}
	ds, err := srv.WebhookDeliveries(ep.ID)
	if err != nil || len(ds) != 1 || ds[0].Attempts < 1 || ds[0].NextAttemptAt.IsZero() || reportOfDelivery(ds[0]) != ids[0] {
		t.Fatalf("deliveries %+v (%v)", ds, err)
	}
	d := ds[0]
	page := func() string {
		t.Helper()
		w := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/endpoints/" + ep.ID, header: admin})
		if w.Code != http.StatusOK {
			t.Fatalf("endpoint page: %d", w.Code)
		}
		return w.Body.String()
	}
	attempts := regexp.MustCompile(`<li class="attempt (\w+)" data-attempt="(\d+)">`)
	timeline := func(body string) string {
		var out []string
		for _, m := range attempts.FindAllStringSubmatch(body, -1) {
			out = append(out, m[1]+" "+m[2])
		}
		return strings.Join(out, ", ")
	}
	// Every attempt the event record holds, each with its error, then the retry queued; a
	// second failed attempt joins the first as the clock reaches it.
	body := page()
	if got := timeline(body); got != "failed 1, queued 2" || !strings.Contains(htmlUnescape(body), *d.LastError) || !strings.Contains(body, when(d.NextAttemptAt)) {
		t.Fatalf("timeline %q: %s", got, body)
	}
	if _, err := srv.Advance(d.NextAttemptAt.Sub(srv.Now())); err != nil {
		t.Fatal(err)
	}
	ds, _ = srv.WebhookDeliveries(ep.ID)
	d = ds[0]
	body = page()
	if got := timeline(body); d.Attempts != 2 || got != "failed 1, failed 2, queued 3" || strings.Count(htmlUnescape(body), *d.LastError) != 2 {
		t.Fatalf("after the retry (%d attempts): timeline %q: %s", d.Attempts, got, body)
	}
	// Events of another endpoint or another delivery are not mixed in; what an event says is
	// shown as text.
	raise := func(endpoint, delivery string, n int, msg string) {
		srv.events.raise(d.LastAttemptAt, slog.LevelWarn, EventDeliveryFailed, "webhook attempt failed", seed.WorkspaceID, ids[0],
			slog.String("endpoint_id", endpoint), slog.String("delivery_id", delivery), slog.String("event", "report.completed"), slog.Int("attempt", n),
			slog.String("error", msg), slog.Int("response_status", 502), slog.String("latency", "1.5ms"),
			slog.String("next_attempt", d.NextAttemptAt.UTC().Format(time.RFC3339Nano)))
	}
	raise("00000000-0000-0000-0000-000000000000", d.ID, 7, "mixed-in endpoint")
	raise(ep.ID, "00000000-0000-0000-0000-000000000000", 7, "mixed-in delivery")
	raise(ep.ID, d.ID, 3, "planted <b>failure</b>")
	body = page()
	if got := timeline(body); got != "failed 1, failed 2, failed 3, queued 3" || strings.Contains(body, "mixed-in") || !strings.Contains(body, "HTTP 502") || !strings.Contains(body, "1.5ms") {
		t.Fatalf("timeline %q: %s", got, body)
	}
	shownEscaped(t, "timeline", body, "planted <b>failure</b>")
}

// reportOfDelivery is the id of the report a delivery's body is about (data.report.id), ""
// for a test delivery and for events about no report.
func reportOfDelivery(d WebhookDelivery) string {
	if d.Test {
		return ""
	}
	var body struct {
		Data struct {
			Report struct {
				ID string `json:"id"`
			} `json:"report"`
		} `json:"data"`
	}
	if json.Unmarshal(d.Body, &body) != nil {
		return ""
	}
	return body.Data.Report.ID
}

func when(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.000Z") }
