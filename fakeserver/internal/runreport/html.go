package runreport

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxHTML is the most bytes the HTML page takes, whatever the run: each section has a share of
// it (sectionBudgets), and rows past a section's share are left to the JSON file, which the page
// says. The JSON file is never cut.
const MaxHTML = 20 << 20

// The shares of MaxHTML, in bytes of HTML; shellBudget bounds the rest of the page (head, style,
// headings, the counts by status), whose size does not grow with the run but by the number of
// distinct statuses.
const (
	failuresBudget   = 768 << 10
	reportsBudget    = 7 << 20
	endpointsBudget  = 3 << 20
	emailsBudget     = 1 << 20
	faultsBudget     = 512 << 10
	clockBudget      = 256 << 10
	journalBudget    = 7 << 20
	shellBudget      = 512 << 10
	sectionsBudgeted = failuresBudget + reportsBudget + endpointsBudget + emailsBudget + faultsBudget + clockBudget + journalBudget
)

// The page cuts long texts (bodies and email texts to 1 or 4 KiB, paths to 512 bytes, names and
// values to 256; page.html.tmpl says where) and the JSON file keeps them whole: a row costs at
// most a few KiB, escaped, so that one row cannot take a section's share.

// maxPlotPoints is how many points a loudness plot draws at most; a longer series is drawn by
// the loudest value of each of that many spans.
const maxPlotPoints = 240

//go:embed page.css
var pageCSS string

//go:embed page.html.tmpl
var pageTemplate string

// contentSecurityPolicy allows the page's one style block by its hash and nothing else: no
// script, no request of any kind.
var contentSecurityPolicy = func() string {
	sum := sha256.Sum256([]byte(pageCSS))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; img-src 'none'; base-uri 'none'; form-action 'none'"
}()

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"t":      formatTime,
	"tp":     formatTimePtr,
	"cut":    cut,
	"class":  statusClass,
	"plot":   plotOf,
	"status": func(n int) string { return strconv.Itoa(n) },
	"join":   strings.Join,
	"css":    func() template.CSS { return template.CSS(pageCSS) },
	"csp":    func() string { return contentSecurityPolicy },
	"num":    formatNumber,
	"ms":     formatMS,
	"bad":    func(r *Report) bool { return failing(r) },
	"msp":    formatMSPtr,
}).Parse(pageTemplate))

// pageView is what the page template renders: the run, and each section already rendered
// within its share.
type pageView struct {
	Run      *Run
	Failures section
	Reports  section
	Endpts   section
	Emails   section
	Armed    section
	Fired    section
	Moves    section
	Journal  section
	Requests []statusCount
	ByReport []statusCount
	// NotPassed counts the COMPLETE reports that did not pass their standard.
	NotPassed int
	ByDeliv   []statusCount
}

// section is rows rendered by their own template, and how many rows did not fit.
type section struct {
	HTML    template.HTML
	Rows    int
	Omitted int
}

// statusCount is one line of a count by status.
type statusCount struct {
	Status string
	Count  int
}

// WriteHTML renders r as one self-contained HTML page: inline style under a strict
// Content-Security-Policy, no script, nothing fetched; every text escaped. It writes at most
// MaxHTML bytes.
func WriteHTML(w io.Writer, r *Run) error {
	v := pageView{Run: r}
	var err error
	shares := []struct {
		dst    *section
		name   string
		budget int
		rows   func(yield func(any) bool)
	}{
		{&v.Failures, "failure", failuresBudget, each(r.Summary.Failures)},
		{&v.Reports, "report", reportsBudget, each(reportsFailuresFirst(r.Reports))},
		{&v.Endpts, "endpoint", endpointsBudget, each(endpointViews(r))},
		{&v.Emails, "email", emailsBudget, each(r.Emails)},
		{&v.Armed, "armed", faultsBudget / 2, each(r.Faults.Armed)},
		{&v.Fired, "event", faultsBudget / 2, each(r.Faults.Fired)},
		{&v.Moves, "event", clockBudget, each(r.Clock.Moves)},
		{&v.Journal, "request", journalBudget, each(r.Journal.Entries)},
	}
	for _, s := range shares {
		if *s.dst, err = renderRows(s.name, s.budget, s.rows); err != nil {
			return err
		}
	}
	v.Requests = counts(r.Summary.RequestsByStatus, func(s string) bool { return s >= "500" })
	v.ByReport = counts(r.Summary.ReportsByStatus, func(s string) bool { return failedReport[s] })
	for i := range r.Reports {
		if NotPassed(&r.Reports[i]) {
			v.NotPassed++
		}
	}
	v.ByDeliv = counts(r.Summary.DeliveriesByStatus, func(s string) bool { return failedDelivery[s] })
	return page.ExecuteTemplate(w, "page", v)
}

// each yields the elements of s as any, for renderRows.
func each[T any](s []T) func(yield func(any) bool) {
	return func(yield func(any) bool) {
		for i := range s {
			if !yield(&s[i]) {
				return
			}
		}
	}
}

// renderRows renders rows with the template name until the next would pass budget bytes.
func renderRows(name string, budget int, rows func(yield func(any) bool)) (section, error) {
	var out, row bytes.Buffer
	var sec section
	var err error
	rows(func(v any) bool {
		if sec.Omitted > 0 {
			sec.Omitted++
			return true
		}
		row.Reset()
		if err = page.ExecuteTemplate(&row, name, v); err != nil {
			return false
		}
		if out.Len()+row.Len() > budget {
			sec.Omitted++
			return true
		}
		out.Write(row.Bytes())
		sec.Rows++
		return true
	})
	sec.HTML = template.HTML(out.String()) // rendered by html/template, escaped there
	return sec, err
}

// reportsFailuresFirst orders the page's reports: FAILED and OUT_OF_QUOTA first, then COMPLETE
// reports that did not pass, then the others, each oldest first.
func reportsFailuresFirst(reports []Report) []Report {
	out := slices.Clone(reports)
	rank := func(r *Report) int {
		switch {
		case failedReport[r.Status]:
			return 0
		case NotPassed(r):
			return 1
		}
		return 2
	}
	slices.SortStableFunc(out, func(a, b Report) int { return rank(&a) - rank(&b) })
	return out
}

// endpointView is an endpoint as the page shows it: with the sum of its deliveries.
type endpointView struct {
	*Endpoint
	Sum      EndpointSummary
	ByStatus []statusCount
}

// endpointViews pairs each endpoint of r with its summary (Summarize's, by id).
func endpointViews(r *Run) []endpointView {
	sums := make(map[string]EndpointSummary, len(r.Summary.Endpoints))
	for _, s := range r.Summary.Endpoints {
		sums[s.ID] = s
	}
	out := make([]endpointView, len(r.Endpoints))
	for i := range r.Endpoints {
		ep := &r.Endpoints[i]
		sum, ok := sums[ep.ID]
		if !ok {
			sum = summarizeEndpoint(*ep)
		}
		out[i] = endpointView{Endpoint: ep, Sum: sum, ByStatus: counts(sum.ByStatus, func(s string) bool { return failedDelivery[s] })}
	}
	return out
}

// counts lists m by status, failures (as failed says) first, then in order of status.
func counts(m map[string]int, failed func(string) bool) []statusCount {
	out := make([]statusCount, 0, len(m))
	for s, n := range m {
		out = append(out, statusCount{s, n})
	}
	slices.SortFunc(out, func(a, b statusCount) int {
		fa, fb := failed(a.Status), failed(b.Status)
		switch {
		case fa && !fb:
			return -1
		case fb && !fa:
			return 1
		}
		return strings.Compare(a.Status, b.Status)
	})
	return out
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

func formatTimePtr(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return formatTime(*t)
}

// formatNumber writes a measured figure with its unit, or says it has none.
func formatNumber(v *float64, unit string) string {
	if v == nil {
		return "none"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64) + " " + unit
}

// formatMS writes milliseconds as a Go duration, such as 1h2m3.5s.
func formatMS(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() }

func formatMSPtr(ms *int64) string {
	if ms == nil {
		return "not measured"
	}
	return formatMS(*ms)
}

// cut shortens s to at most n bytes at a character boundary, saying so.
func cut(n int, s string) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + fmt.Sprintf(" … (%d more bytes in the JSON file)", len(s)-i)
}

// statusClass is the style of a status: bad for failures, ok for success, else plain.
func statusClass(s string) string {
	switch {
	case failedReport[s], failedDelivery[s]:
		return "bad"
	case s == "COMPLETE", s == "succeeded":
		return "ok"
	}
	if n, err := strconv.Atoi(s); err == nil {
		switch {
		case n >= 500:
			return "bad"
		case n >= 400:
			return "warn"
		case n >= 200 && n < 300:
			return "ok"
		}
	}
	return "plain"
}

// plot is a loudness series drawn as SVG polylines (one per run of values between silent
// steps), on a fixed scale from plotFloor to 0 LUFS.
type plot struct {
	Lines  []string
	Points int
	Max    string
	Width  int
	Height int
}

const (
	plotWidth  = 480
	plotHeight = 96
	plotFloor  = -60.0
)

// plotOf draws l: at most maxPlotPoints points, each the loudest value of its span of steps.
func plotOf(l Loudness) *plot {
	n := len(l.LUFS)
	if n == 0 {
		return nil
	}
	buckets := min(n, maxPlotPoints)
	p := &plot{Width: plotWidth, Height: plotHeight}
	var line strings.Builder
	loudest := math.Inf(-1)
	for b := range buckets {
		lo, hi := b*n/buckets, (b+1)*n/buckets
		v, ok := math.Inf(-1), false
		for _, x := range l.LUFS[lo:hi] {
			if x != nil && !math.IsNaN(*x) && !math.IsInf(*x, 0) {
				v, ok = max(v, *x), true
			}
		}
		if !ok {
			if line.Len() > 0 {
				p.Lines = append(p.Lines, line.String())
				line.Reset()
			}
			continue
		}
		loudest = max(loudest, v)
		x := float64(b) * plotWidth / float64(max(buckets-1, 1))
		y := min(max(v/plotFloor, 0), 1) * plotHeight
		if line.Len() > 0 {
			line.WriteByte(' ')
		}
		fmt.Fprintf(&line, "%.1f,%.1f", x, y)
		p.Points++
	}
	if line.Len() > 0 {
		p.Lines = append(p.Lines, line.String())
	}
	if p.Points > 0 {
		p.Max = strconv.FormatFloat(loudest, 'f', 1, 64)
	}
	return p
}
