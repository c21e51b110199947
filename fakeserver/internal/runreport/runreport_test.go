package runreport

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var testStart = time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)

// hostile is text that would run or fetch something if the page did not escape it.
const hostile = `<img src=x onerror=alert(1)><script>alert(2)</script>"'><a href="https://example.com/x">`

// sampleRun makes a run of reports reports and entries journal entries; each text field holds
// text, and each analysed report a series of seconds values.
func sampleRun(reports, entries int, text string, bodyBytes, seconds int) *Run {
	r := &Run{
		Format: Format, RunID: NewRunID(testStart), Reason: ReasonStop, WrittenAt: testStart.Add(time.Hour),
		BaseURL:    "http://127.0.0.1:8080",
		Clock:      Clock{Mode: "manual", Now: testStart.Add(time.Hour), Moves: []Event{{At: testStart, Level: "INFO", Kind: "clock_advanced", Message: "clock advanced " + text, Attrs: []Attr{{"by", "5m0s"}}}}},
		Workspaces: []Workspace{{ID: "ws-1", Type: "personal", Name: "Demo " + text}},
		Journal:    Journal{Size: 10000, BodyLimit: 64 << 10},
		Faults: Faults{
			Armed: []ArmedFault{{ID: "f-1", Spec: json.RawMessage(`{"path_prefix":"/api","status":503}`), Matches: 3, Fired: 2}},
			Fired: []Event{{At: testStart, Level: "INFO", Kind: "fault_fired", Message: "fault fired " + text}},
		},
	}
	statuses := []string{"COMPLETE", "FAILED", "OUT_OF_QUOTA", "IN_PROGRESS"}
	series := make([]*float64, seconds) // shared by the analysed reports: they are only read
	for s := range seconds {
		if s%50 != 7 { // a silent second now and then
			v := math.Round((-16+4*math.Sin(float64(s)/30))*100) / 100
			series[s] = &v
		}
	}
	body := strings.Repeat(text, bodyBytes/max(len(text), 1)+1)[:bodyBytes]
	for i := range reports {
		st := statuses[i%len(statuses)]
		rep := Report{
			ID: fmt.Sprintf("rep-%05d", i), WorkspaceID: "ws-1", SeriesID: "series-1", Source: "upload", Status: st,
			CreatedAt: testStart.Add(time.Duration(i) * time.Second), UpdatedAt: testStart.Add(time.Duration(i)*time.Second + time.Minute),
			Timeline:    []StatusChange{{Status: "PENDING", At: testStart}, {Status: st, At: testStart.Add(time.Minute), Reason: text}},
			Checks:      []Check{},
			DeliveryIDs: []string{fmt.Sprintf("del-%05d", i)},
			EmailIDs:    []string{},
			Name:        fmt.Sprintf("Episode %d %s", i, text),
		}
		if st == "FAILED" {
			rep.Failure = "the audio could not be analysed: unknown audio format " + text
		}
		if st == "COMPLETE" {
			il, tp, lra, lead, clips := -16.1, -1.2, 5.5, int64(300), 0
			rep.Measured = &Measured{Format: "mp3 " + text, Codec: "mp3", DurationMS: int64(seconds) * 1000, SampleRate: 44100, Channels: 2, BitRate: 128000,
				IntegratedLUFS: &il, TruePeakDBTP: &tp, SamplePeakDBFS: &tp, LoudnessRange: &lra, LeadingSilenceMS: &lead, ClippingRuns: &clips}
			// One completed report in two passes; the others fail half their checks.
			v := &Verdict{Passed: i%8 == 0, RequiredTotal: 8, Standard: "Podcast " + text}
			for c := range 8 {
				passed := v.Passed || c%2 == 0
				if !passed {
					v.RequiredFailures++
				}
				rep.Checks = append(rep.Checks, Check{ID: fmt.Sprint(c), Name: "check " + text, Severity: "required", Value: "-16.1 LUFS", Limit: "-16 ± 1 LU", Passed: passed, Why: "within the band " + text})
			}
			rep.Verdict = v
			rep.Loudness = Loudness{StepMS: 1000, WindowMS: 3000, LUFS: series}
		}
		r.Reports = append(r.Reports, rep)
	}
	ep := Endpoint{ID: "ep-1", WorkspaceID: "ws-1", URL: "https://hooks.example.com/" + text, Events: []string{"report.completed"}, Enabled: true, Source: "settings", CreatedAt: testStart}
	for i := range reports {
		d := Delivery{ID: fmt.Sprintf("del-%05d", i), EndpointID: "ep-1", EventType: "report.completed", WebhookID: fmt.Sprintf("msg_%d", i), Status: "succeeded", Attempts: 1, CreatedAt: testStart, Body: json.RawMessage(`{"type":"report.completed"}`)}
		if i%10 == 3 {
			at, next := testStart.Add(time.Minute), testStart.Add(6*time.Minute)
			d.Status, d.Attempts, d.FailedAttempts, d.LastError, d.LastAttemptAt, d.NextAttemptAt = "retrying", 2, 2, "connection refused "+text, &at, &next
			d.AttemptLog = []Event{{At: at, Level: "INFO", Kind: "webhook_attempt_failed", Message: "attempt failed", Attrs: []Attr{{"error", text}}}}
		}
		ep.Deliveries = append(ep.Deliveries, d)
	}
	r.Endpoints = []Endpoint{ep}
	r.Emails = []Email{{ID: "em-1", WorkspaceID: "ws-1", Kind: "report_failed", To: []string{"a@example.com"}, Subject: "Report failed " + text, Text: "The audio could not be analysed " + text, SentAt: testStart}}
	for i := range entries {
		status := []int{200, 201, 404, 429, 500}[i%5]
		r.Journal.Entries = append(r.Journal.Entries, JournalEntry{
			ID: fmt.Sprintf("req-%05d", i), At: testStart.Add(time.Duration(i) * time.Millisecond), Method: "POST",
			Path: "/api/rest/v1/reports/" + text, Query: "limit=10&x=" + text, Status: status, MaskedKey: "podqa_api_ab…",
			RequestContentType: "application/json", RequestBody: body, DurationMS: 1.25,
		})
	}
	Summarize(r)
	return r
}

func render(t testing.TB, r *Run) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestPageEscapesEverythingAndFetchesNothing: hostile text in every field comes out as text; the
// page has no script, no element that loads anything, and a CSP whose hash is its style's.
func TestPageEscapesEverythingAndFetchesNothing(t *testing.T) {
	t.Parallel()
	page := string(render(t, sampleRun(8, 20, hostile, 200, 120)))
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`<(script|img|link|iframe|object|embed|image|use|audio|video|source)\b`),
		regexp.MustCompile(`<[a-z][^>]*\s(src|srcset|xlink:href|on[a-z]+)=`),
		regexp.MustCompile(`<[a-z][^>]*\shref="[^#]`),
	} {
		if loc := bad.FindStringIndex(page); loc != nil {
			t.Errorf("page holds %s: …%s…", bad, page[max(loc[0]-80, 0):min(loc[1]+80, len(page))])
		}
	}
	if !strings.Contains(page, "&lt;img src=x onerror=alert(1)&gt;") {
		t.Error("the hostile text is not shown escaped")
	}
	style := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(page)
	if style == nil {
		t.Fatal("no style block")
	}
	sum := sha256.Sum256([]byte(style[1]))
	want := "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; img-src 'none'; base-uri 'none'; form-action 'none'"
	meta := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	if meta == nil || html.UnescapeString(meta[1]) != want {
		t.Errorf("the CSP meta is %q, want %q: exactly the style block by its hash", meta, want)
	}
	for _, want := range []string{"<th>Clipping runs</th><td>0</td>", "<th>Integrated loudness</th><td>-16.10 LUFS</td>", "<th>Duration</th><td>2m0s</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not show the measurement %s", want)
		}
	}
	if n := strings.Count(page, `<details class="report"`); n != 8 {
		t.Errorf("%d reports on the page, want 8", n)
	}
	// Failures first: the first report shown is a failed one.
	first := page[strings.Index(page, `<details class="report"`):]
	if !strings.Contains(first[:200], `data-status="FAILED"`) && !strings.Contains(first[:200], `data-status="OUT_OF_QUOTA"`) {
		t.Errorf("the first report shown is not a failure: %s", first[:200])
	}
}

// TestPageSizeBound: 10,000 journal entries and 1,000 reports stay under MaxHTML, both with the
// texts of a plain run (everything shown) and with the largest texts the journal keeps, escaped
// at their most expensive (rows past each section's share left to the JSON file, and said so).
func TestPageSizeBound(t *testing.T) {
	t.Parallel()
	if sectionsBudgeted+shellBudget > MaxHTML {
		t.Fatalf("the sections' shares and the shell add up to %d bytes, more than MaxHTML", sectionsBudgeted+shellBudget)
	}
	// The quick subset renders a fifth of the run (the full run 1,000 reports and 10,000
	// requests); the largest texts still overflow the sections' shares.
	reports, requests := 1000, 10000
	if testing.Short() {
		reports, requests = 200, 2000
	}
	for _, tc := range []struct {
		name        string
		text        string
		bodyBytes   int
		seconds     int
		allShown    bool
		wantOmitted bool
	}{
		{"plain run", "ok", 300, 3600, true, false},
		{"largest texts", strings.Repeat(`"`, 4096), 64 << 10, 3 * 3600, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := sampleRun(reports, requests, tc.text, tc.bodyBytes, tc.seconds)
			page := render(t, r)
			t.Logf("%d bytes of HTML (%.1f MiB)", len(page), float64(len(page))/(1<<20))
			if len(page) > MaxHTML {
				t.Errorf("%d bytes of HTML, more than %d", len(page), MaxHTML)
			}
			omitted := bytes.Contains(page, []byte(`class="omitted"`))
			if omitted != tc.wantOmitted {
				t.Errorf("rows left out: %v, want %v", omitted, tc.wantOmitted)
			}
			if tc.allShown {
				if n := bytes.Count(page, []byte(`<details class="report"`)); n != reports {
					t.Errorf("%d reports shown, want %d", n, reports)
				}
				if n := bytes.Count(page, []byte(`<tr><td class="at">2026-`)); n < requests {
					t.Errorf("%d journal rows shown, want %d", n, requests)
				}
			}
		})
	}
}

func TestSummarizeCountsAndFailuresFirst(t *testing.T) {
	t.Parallel()
	r := sampleRun(8, 10, "x", 10, 10)
	s := r.Summary
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"reports", s.Reports, 8},
		{"FAILED", s.ReportsByStatus["FAILED"], 2},
		{"OUT_OF_QUOTA", s.ReportsByStatus["OUT_OF_QUOTA"], 2},
		{"COMPLETE", s.ReportsByStatus["COMPLETE"], 2},
		{"deliveries", s.Deliveries, 8},
		{"retrying", s.DeliveriesByStatus["retrying"], 1},
		{"requests", s.Requests, 10},
		{"500", s.RequestsByStatus["500"], 2},
		{"failures", len(s.Failures), 4 + 1 + 1 + 2},
		{"endpoint summaries", len(s.Endpoints), 1},
		{"failing deliveries of the endpoint", s.Endpoints[0].Failing, 1},
		{"emails", s.Emails, 1},
		{"faults fired", s.FaultsFired, 1},
		{"clock moves", s.ClockMoves, 1},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}
	var kinds string
	for _, f := range s.Failures {
		kinds += map[string]string{"report": "r", "endpoint": "e", "request": "q"}[f.Kind]
		if f.Kind == "report" && f.Status == "COMPLETE" {
			kinds += "!" // completed, not passed
		}
	}
	if kinds != "rrrrr!eqq" {
		t.Errorf("failures in the order %q (r report, r! completed and not passed, e endpoint, q request), want failed reports, then those not passed, then endpoints, then requests", kinds)
	}
}

func TestPlotDrawsLoudestPerSpanAndBreaksAtSilence(t *testing.T) {
	t.Parallel()
	v := func(x float64) *float64 { return &x }
	nan := math.NaN()
	for _, tc := range []struct {
		name   string
		lufs   []*float64
		points int
		lines  int
		max    string
	}{
		{"empty", nil, 0, 0, ""},
		{"short", []*float64{v(-20), v(-18), nil, v(-30)}, 3, 2, "-18.0"},
		{"NaN is silence", []*float64{v(-20), &nan, v(-25)}, 2, 2, "-20.0"},
		{"all silent", []*float64{nil, nil}, 0, 0, ""},
		{"long, downsampled", func() []*float64 {
			s := make([]*float64, 10800)
			for i := range s {
				s[i] = v(-23 + float64(i%100)/100)
			}
			s[5000] = v(-1)
			return s
		}(), maxPlotPoints, 1, "-1.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := plotOf(Loudness{StepMS: 1000, WindowMS: 3000, LUFS: tc.lufs})
			if tc.points == 0 && tc.lines == 0 && len(tc.lufs) == 0 {
				if p != nil {
					t.Errorf("a plot of nothing: %+v", p)
				}
				return
			}
			if p.Points != tc.points || len(p.Lines) != tc.lines || p.Max != tc.max {
				t.Errorf("%d points in %d lines, loudest %q; want %d in %d, %q", p.Points, len(p.Lines), p.Max, tc.points, tc.lines, tc.max)
			}
		})
	}
}

func TestWriteIsAtomicAndKeepsRunsApart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := sampleRun(2, 3, "a", 10, 5), sampleRun(2, 3, "b", 10, 5)
	if a.RunID == b.RunID {
		t.Fatalf("two runs started in the same second share the id %s", a.RunID)
	}
	fa, err := Write(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	a.Reason = ReasonRequest
	Summarize(a)
	if again, err := Write(dir, a); err != nil || again != fa {
		t.Fatalf("a second write of run a: %v, %v; want the same files %v", again, err, fa)
	}
	if _, err := Write(dir, b); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(names) != 4 {
		t.Errorf("files in the dir: %q, want two runs' two files and no temporary file", names)
	}
	data, err := os.ReadFile(fa.JSON)
	if err != nil {
		t.Fatal(err)
	}
	var back Run
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Reason != ReasonRequest || back.RunID != a.RunID || len(back.Reports) != 2 {
		t.Errorf("read back reason %q, run %q, %d reports", back.Reason, back.RunID, len(back.Reports))
	}
	if !strings.HasPrefix(filepath.Base(fa.HTML), FilePrefix) {
		t.Errorf("HTML file %s", fa.HTML)
	}
}

func TestPrepareDir(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	file := filepath.Join(tmp, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		dir  string
		ok   bool
	}{
		{"existing", tmp, true},
		{"made", filepath.Join(tmp, "new", "deeper"), true},
		{"under a file", filepath.Join(file, "sub"), false},
		{"empty", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := PrepareDir(tc.dir)
			if (err == nil) != tc.ok {
				t.Fatalf("PrepareDir(%q) = %v", tc.dir, err)
			}
			if err != nil && tc.dir != "" && !strings.Contains(err.Error(), tc.dir) {
				t.Errorf("the error %q does not name the dir", err)
			}
			if err == nil {
				left, _ := filepath.Glob(filepath.Join(tc.dir, ".podqa-fake-report-probe-*"))
				if len(left) > 0 {
					t.Errorf("the probe was left behind: %q", left)
				}
			}
		})
	}
}

// BenchmarkRunReport10kJournal1kReports writes the report of a run of 10,000 journal entries
// and 1,000 reports (a quarter of them analysed, with an hour of loudness series each): both
// files, into a temporary dir, synced.
func BenchmarkRunReport10kJournal1kReports(b *testing.B) {
	r := sampleRun(1000, 10000, "ok", 300, 3600)
	dir := b.TempDir()
	b.ReportAllocs()
	var files Files
	for b.Loop() {
		var err error
		if files, err = Write(dir, r); err != nil {
			b.Fatal(err)
		}
	}
	for _, f := range []struct{ name, unit string }{{files.HTML, "HTML-MiB"}, {files.JSON, "JSON-MiB"}} {
		st, err := os.Stat(f.name)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(st.Size())/(1<<20), f.unit)
	}
}

// pageTags and pageAttrs are the only elements and attributes the page template writes; text
// from a run that came out as markup would add others.
var (
	pageTags = map[string]bool{"!doctype": true, "html": true, "head": true, "meta": true, "title": true, "style": true, "body": true,
		"header": true, "h1": true, "h2": true, "h3": true, "p": true, "span": true, "nav": true, "a": true, "main": true, "section": true,
		"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "div": true, "details": true, "summary": true,
		"svg": true, "line": true, "text": true, "polyline": true, "pre": true}
	pageAttrs = map[string]bool{"lang": true, "charset": true, "http-equiv": true, "content": true, "name": true, "id": true, "class": true,
		"href": true, "data-status": true, "data-passed": true, "data-kind": true, "role": true, "aria-label": true, "width": true, "height": true, "viewBox": true,
		"data-points": true, "data-max-lufs": true, "x1": true, "y1": true, "x2": true, "y2": true, "x": true, "y": true,
		"points": true, "colspan": true}
	tagRE  = regexp.MustCompile(`<(/?)([^\s>/]+)([^>]*)>`)
	attrRE = regexp.MustCompile(`\s([^\s=]+)(="([^"]*)")?`)
)

// FuzzPageEscapes: whatever text a run holds, the page's markup is the template's own: no other
// element, no other attribute, links only within the page.
func FuzzPageEscapes(f *testing.F) {
	for _, s := range []string{hostile, "plain", `"><svg onload=alert(1)>`, "</style><script>x</script>", "\x00\xff<!--", "é<a href=//x>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if text == "" {
			text = "x"
		}
		if err := templateMarkupOnly(string(render(t, sampleRun(4, 3, text, 64, 30)))); err != nil {
			t.Fatal(err)
		}
	})
}

// templateMarkupOnly says where page holds markup the template does not write.
func templateMarkupOnly(page string) error {
	if strings.Count(page, "<") != len(tagRE.FindAllString(page, -1)) {
		return errors.New("a < that opens no tag: the page holds unescaped text")
	}
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		if !pageTags[strings.ToLower(m[2])] {
			return fmt.Errorf("element %q is not the template's: %s", m[2], m[0])
		}
		for _, a := range attrRE.FindAllStringSubmatch(m[3], -1) {
			if !pageAttrs[a[1]] && a[1] != "open" && a[1] != "html" {
				return fmt.Errorf("attribute %q is not the template's: %s", a[1], m[0])
			}
			if a[1] == "href" && !strings.HasPrefix(a[3], "#") {
				return fmt.Errorf("a link out of the page: %s", m[0])
			}
		}
	}
	return nil
}

func TestTemplateMarkupOnlyCatchesMarkup(t *testing.T) {
	t.Parallel()
	good := string(render(t, sampleRun(2, 2, "ok", 10, 10)))
	if err := templateMarkupOnly(good); err != nil {
		t.Fatalf("the page as rendered: %v", err)
	}
	for _, bad := range []string{"<img src=x>", `<p onclick="x">`, `<a href="https://x">`, "a < b", `<span class="x" style="y">`} {
		if templateMarkupOnly(good+bad) == nil {
			t.Errorf("%q passed", bad)
		}
	}
}
