package fakeserver

import (
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// page parses a dashboard answer into a tree; the tests below read it by element, id and
// class, never by matching markup as text.
func page(t *testing.T, body string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func attr(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

func hasClass(n *html.Node, class string) bool {
	v, _ := attr(n, "class")
	for _, c := range strings.Fields(v) {
		if c == class {
			return true
		}
	}
	return false
}

// find returns every element under n for which match holds, in document order.
func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for c := range n.Descendants() {
		if c.Type == html.ElementNode && match(c) {
			out = append(out, c)
		}
	}
	return out
}

func byID(t *testing.T, n *html.Node, id string) *html.Node {
	t.Helper()
	got := find(n, func(c *html.Node) bool { v, ok := attr(c, "id"); return ok && v == id })
	if len(got) != 1 {
		t.Fatalf("%d elements with id %q", len(got), id)
	}
	return got[0]
}

// text is the text under n, spaces folded.
func text(n *html.Node) string {
	var b strings.Builder
	for c := range n.Descendants() {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// verdictReports makes, in the demo workspace, a report that passes Podcast and one that
// completes without passing it (too loud, and its true peak above the ceiling).
func verdictReports(t *testing.T, srv *Server, seed DemoWorkspace) (passing, failing string) {
	t.Helper()
	good, goodPeak := -16.0, -1.5
	loud, loudPeak := -11.0, -0.2
	passing = hostedReport(t, srv, seed, HostedEpisode{Title: "Quiet & well", Duration: 8 * time.Second, LoudnessLUFS: &good, TruePeakDB: &goodPeak, Format: "wav", Channels: 2})
	failing = hostedReport(t, srv, seed, HostedEpisode{Title: "<b>Too loud</b>", Duration: 8 * time.Second, LoudnessLUFS: &loud, TruePeakDB: &loudPeak, Format: "wav", Channels: 2})
	return passing, failing
}

func TestDashboardVerdictAndName(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	admin := browser(bearer(srv.AdminToken()))
	passing, failing := verdictReports(t, srv, seed)
	list := page(t, uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/workspaces/" + seed.WorkspaceID, header: admin}).Body.String())
	for _, tc := range []struct {
		id, name, verdict, verdictClass string
		notPassed                       bool
	}{
		{passing, "Quiet & well", "passed Podcast (0 of ", "passed", false},
		{failing, "<b>Too loud</b>", "did not pass Podcast: 2 of ", "not-passed", true},
	} {
		acc, err := srv.ReportAccount(tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if acc.Report.Name != tc.name || !acc.Report.Verdict.Judged || acc.Report.Verdict.Passed == tc.notPassed || acc.Report.Verdict.Standard != "Podcast" {
			t.Fatalf("account of %s: %+v", tc.name, acc.Report)
		}
		// The list: the row names the report, and its verdict sits beside its status.
		rows := find(list, func(n *html.Node) bool { v, _ := attr(n, "data-id"); return n.Data == "tr" && v == tc.id })
		if len(rows) != 1 {
			t.Fatalf("%d rows for %s", len(rows), tc.id)
		}
		name := find(rows[0], func(n *html.Node) bool { return hasClass(n, "report-name") })
		status := find(rows[0], func(n *html.Node) bool { return hasClass(n, "status") })
		verdict := find(rows[0], func(n *html.Node) bool { return hasClass(n, "verdict") })
		if len(name) != 1 || text(name[0]) != tc.name || len(status) != 1 || text(status[0]) != "COMPLETE" || len(verdict) != 1 {
			t.Fatalf("row of %s: name %v, status %v, verdict %v", tc.name, name, status, verdict)
		}
		if !strings.HasPrefix(text(verdict[0]), tc.verdict) || !hasClass(verdict[0], tc.verdictClass) || hasClass(status[0], "not-passed") != tc.notPassed {
			t.Errorf("row of %s: verdict %q (class %v), status not-passed %v", tc.name, text(verdict[0]), verdict[0].Attr, hasClass(status[0], "not-passed"))
		}

		// The report page: the name in the title and the heading, the verdict beside the status.
		doc := page(t, uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/reports/" + tc.id, header: admin}).Body.String())
		titles := find(doc, func(n *html.Node) bool { return n.Data == "title" && n.Parent.Data == "head" })
		if len(titles) != 1 || !strings.HasPrefix(text(titles[0]), tc.name+" ") {
			t.Errorf("title of %s: %v", tc.name, titles)
		}
		if got := text(byID(t, doc, "report-name")); got != tc.name {
			t.Errorf("heading %q, want %q", got, tc.name)
		}
		st, v := byID(t, doc, "report-status"), byID(t, doc, "report-verdict")
		required := 0
		for _, c := range acc.Checks {
			if c.Severity == "required" && !c.Passed {
				required++
			}
		}
		fails, _ := attr(v, "data-required-failures")
		passed, _ := attr(v, "data-passed")
		if !strings.HasPrefix(text(v), tc.verdict) || hasClass(st, "not-passed") != tc.notPassed || fails != strconv.Itoa(required) || passed != strconv.FormatBool(!tc.notPassed) {
			t.Errorf("report page of %s: status %v, verdict %q %v (required failures %d in the account)", tc.name, st.Attr, text(v), v.Attr, required)
		}
		// Every built-in check's why reads whole on the page, the longest explanation included.
		for _, c := range acc.Checks {
			rows := find(byID(t, doc, "checks"), func(n *html.Node) bool { v, _ := attr(n, "data-check"); return n.Data == "tr" && v == c.ID })
			if len(rows) != 1 {
				t.Fatalf("report page of %s: %d rows of check %s", tc.name, len(rows), c.ID)
			}
			cells := find(rows[0], func(n *html.Node) bool { return n.Data == "td" })
			if len(cells) != 5 {
				t.Fatalf("report page of %s: check %s's row has %d cells", tc.name, c.ID, len(cells))
			}
			// (The page collapses the explanation's paragraph break, as HTML does.)
			if got := text(cells[4]); got != strings.Join(strings.Fields(c.Why), " ") {
				t.Errorf("report page of %s, check %s: why %q, want %q", tc.name, c.ID, got, c.Why)
			}
		}
		if !slices.ContainsFunc(acc.Checks, func(c CheckAccount) bool { return c.ID == "quiet_channel" && c.Passed }) {
			t.Errorf("%s has no quiet_channel check, the longest why of a passed check", tc.name)
		}
	}

	// A report not yet judged says so, and is never drawn as passed.
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Later", Episodes: []HostedEpisode{{Title: "Pending one", Duration: 8 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	status, _, body := call(t, srv, "POST", "/api/rest/v1/reports", jsonHeader(bearer(seed.APIKey)), `{"feed_url":"`+feed.FeedURL+`"}`)
	var created struct{ ID string }
	if status != http.StatusCreated || json.Unmarshal(body, &created) != nil {
		t.Fatalf("create: %d %s", status, body)
	}
	doc := page(t, uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/reports/" + created.ID, header: admin}).Body.String())
	if v := byID(t, doc, "report-verdict"); !hasClass(v, "unjudged") || !strings.Contains(text(v), "Podcast") {
		t.Errorf("pending report's verdict: %q %v", text(v), v.Attr)
	}
}

func TestDashboardPlotIsHonest(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	admin := browser(bearer(srv.AdminToken()))
	_, failing := verdictReports(t, srv, seed)
	acc, err := srv.ReportAccount(failing)
	if err != nil {
		t.Fatal(err)
	}
	doc := page(t, uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/reports/" + failing, header: admin}).Body.String())
	svg := byID(t, doc, "loudness-plot")
	// Axis titles with units, for both scales.
	for id, want := range map[string]string{"y-axis-title": "LUFS", "x-axis-title": "Time", "peak-axis-title": "dBTP"} {
		if got := text(byID(t, svg, id)); !strings.Contains(got, want) {
			t.Errorf("%s reads %q, want it to name %s", id, got, want)
		}
	}
	// The legend names every mark drawn.
	legend := map[string]string{}
	for _, li := range find(byID(t, doc, "plot-legend"), func(n *html.Node) bool { return n.Data == "li" }) {
		k, _ := attr(li, "data-legend")
		legend[k] = text(li)
	}
	for _, k := range []string{"series", "band", "integrated", "true-peak", "ceiling"} {
		if legend[k] == "" {
			t.Errorf("the legend lacks %s: %v", k, legend)
		}
	}
	if !strings.Contains(legend["true-peak"], "above the ceiling") {
		t.Errorf("a true peak over its ceiling reads %q", legend["true-peak"])
	}
	// The true peak is on its own track, its value in the DOM, and above the ceiling's line
	// there, as measured.
	track := byID(t, svg, "true-peak-track")
	marker := byID(t, track, "true-peak-marker")
	got, _ := attr(marker, "data-true-peak")
	if tp, err := strconv.ParseFloat(got, 64); err != nil || tp != acc.Measured.TruePeakDB || !hasClass(marker, "over") {
		t.Errorf("data-true-peak %q (class %v), the account's %v", got, marker.Attr, acc.Measured.TruePeakDB)
	}
	ceilings := find(track, func(n *html.Node) bool { return hasClass(n, "ceiling") })
	if len(ceilings) != 1 {
		t.Fatalf("%d ceilings on the track", len(ceilings))
	}
	my, _ := attr(marker, "y")
	cy, _ := attr(ceilings[0], "y1")
	if a, b := atof(t, my), atof(t, cy); a >= b {
		t.Errorf("the peak's top at y %v is not above the ceiling's line at y %v", a, b)
	}
	if len(find(svg, func(n *html.Node) bool { return hasClass(n, "ceiling") })) != 1 {
		t.Error("a ceiling is drawn outside the true-peak track (on the loudness axis)")
	}
	// The integrated loudness is a line, its full value in a title.
	if len(find(svg, func(n *html.Node) bool { return n.Data == "line" && hasClass(n, "integrated") })) != 1 {
		t.Error("no integrated loudness line")
	}
	// Shown values are rounded to two decimals; the full value is in a title.
	for _, n := range find(doc, func(n *html.Node) bool { _, ok := attr(n, "title"); return ok && n.Data == "span" }) {
		shown := strings.TrimSpace(strings.Fields(text(n) + " x")[0])
		if i := strings.IndexByte(shown, '.'); i >= 0 && len(shown)-i-1 > 2 {
			t.Errorf("%q shows more than two decimals", text(n))
		}
	}

	// Checks: no value prints raw JSON or null, no number more than two decimals.
	rows := find(byID(t, doc, "checks"), func(n *html.Node) bool { return n.Data == "tr" && hasClass(n, "check") })
	if len(rows) != len(acc.Checks) || len(rows) == 0 {
		t.Fatalf("%d check rows, %d checks", len(rows), len(acc.Checks))
	}
	for _, r := range rows {
		cells := find(r, func(n *html.Node) bool { return n.Data == "td" })
		value := text(cells[1])
		if strings.ContainsAny(value, "{}[]") || strings.Contains(text(r), "null") {
			t.Errorf("check %v shows %q", r.Attr, text(r))
		}
		for _, w := range strings.Fields(value) {
			if i := strings.IndexByte(w, '.'); i >= 0 && strings.Trim(w[i+1:], "0123456789") == "" && len(w)-i-1 > 2 {
				t.Errorf("check value %q is not rounded", value)
			}
		}
		if full, ok := attr(cells[1], "title"); !ok || full == "" {
			t.Errorf("check value %q has no full value in a title", value)
		}
	}

	// No frame without data: a report never measured draws no plot.
	broken := hostedReport(t, srv, seed, HostedEpisode{Title: "Broken", Duration: time.Second, FailAnalysis: true, Format: "wav"})
	doc = page(t, uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/reports/" + broken, header: admin}).Body.String())
	if len(find(doc, func(n *html.Node) bool { return n.Data == "svg" })) != 0 || text(byID(t, doc, "no-series")) == "" {
		t.Error("a report with no loudness series draws a frame")
	}
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) {
		t.Fatalf("not a number: %q", s)
	}
	return f
}
