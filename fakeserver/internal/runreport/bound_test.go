package runreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// encodeJSON writes r's JSON document and decodes it back.
func encodeJSON(t testing.TB, r *Run) ([]byte, Run) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var got Run
	dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("the JSON document does not decode: %v (%.300s)", err, buf.Bytes())
	}
	return buf.Bytes(), got
}

// TestJSONSizeBoundAfterEscaping: the JSON document stays under MaxJSON counted in encoded
// bytes, whatever the texts: a plain run is written whole (nothing left out, nothing cut); a run
// of the journal's largest bodies of the costliest bytes (0x01 is 6 bytes as \u0001, a quote 2)
// has each body cut with its marker, sections past their share left out and counted, and the
// failing reports kept first. The run (1,030 bodies of 64 KiB of 0x01, 383 MiB before)
// comes to a few MiB.
func TestJSONSizeBoundAfterEscaping(t *testing.T) {
	t.Parallel()
	if jsonBudgeted+jsonShell > MaxJSON {
		t.Fatalf("the shares add up to %d bytes, more than MaxJSON", jsonBudgeted+jsonShell)
	}
	for _, tc := range []struct {
		name               string
		reports, entries   int
		text               string
		bodyBytes, seconds int
		maxBytes           int // the bound this run must stay under
		whole              bool
	}{
		{"plain run", 1000, 10000, "ok", 300, 3600, MaxJSON, true},
		{"control bytes", 1000, 10000, strings.Repeat("\x01", 4096), 64 << 10, 3 * 3600, MaxJSON, false},
		{"quotes", 1000, 10000, strings.Repeat(`"`, 4096), 64 << 10, 3 * 3600, MaxJSON, false},
		// 1,030 GETs with 64 KiB of 0x01 each: a body costs at most its share and its row.
		{"the issue's journal", 0, 1030, "\x01", 64 << 10, 0, 1030 * 2 * textBody, false},
	} {
		if testing.Short() && tc.reports > 0 {
			// The quick subset: a tenth of the reports and a fifth of the requests, with ten
			// minutes of loudness each; still every body cut and every count kept. The full
			// run writes and reads back the whole 64 MiB.
			tc.reports, tc.entries, tc.seconds = tc.reports/10, tc.entries/5, min(tc.seconds, 600)
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := sampleRun(tc.reports, tc.entries, tc.text, tc.bodyBytes, tc.seconds)
			doc, got := encodeJSON(t, r)
			t.Logf("%d bytes of JSON (%.1f MiB); bounds %+v", len(doc), float64(len(doc))/(1<<20), got.Bounds)
			if len(doc) > tc.maxBytes {
				t.Fatalf("%d bytes of JSON, more than %d", len(doc), tc.maxBytes)
			}
			if got.Bounds.MaxBytes != MaxJSON {
				t.Errorf("bounds.max_bytes %d, want %d", got.Bounds.MaxBytes, MaxJSON)
			}
			om := got.Bounds.Omitted
			if n := len(got.Journal.Entries) + om.Journal; n != tc.entries {
				t.Errorf("%d journal entries kept and %d left out, want %d in all", len(got.Journal.Entries), om.Journal, tc.entries)
			}
			if n := len(got.Reports) + om.Reports; n != tc.reports {
				t.Errorf("%d reports kept and %d left out, want %d in all", len(got.Reports), om.Reports, tc.reports)
			}
			if got.Summary.Requests != tc.entries || got.Summary.Reports != tc.reports {
				t.Errorf("the summary counts %d requests and %d reports, want the whole run's %d and %d", got.Summary.Requests, got.Summary.Reports, tc.entries, tc.reports)
			}
			if tc.whole {
				if om != (Omitted{}) || got.Bounds.TextsCut != 0 {
					t.Errorf("a plain run lost rows or texts: %+v", got.Bounds)
				}
				if got.Journal.Entries[0].RequestBody != r.Journal.Entries[0].RequestBody {
					t.Error("a plain body was changed")
				}
				return
			}
			if got.Bounds.TextsCut == 0 {
				t.Error("no text counted as cut")
			}
			for _, e := range got.Journal.Entries {
				b, _ := json.Marshal(e.RequestBody)
				if len(b)-2 > textBody || !strings.Contains(e.RequestBody, "[cut by the run report: ") {
					t.Fatalf("a body of %d encoded bytes, marker %v; want at most %d with the marker", len(b)-2, strings.Contains(e.RequestBody, "[cut"), textBody)
				}
			}
			// Every failing report the run holds is kept before any other.
			kept := map[string]bool{}
			for _, rep := range got.Reports {
				kept[rep.ID] = true
			}
			for i := range r.Reports {
				if failing(&r.Reports[i]) && !kept[r.Reports[i].ID] && om.Reports > 0 && len(got.Reports) > 0 && !failing(&got.Reports[len(got.Reports)-1]) {
					t.Fatalf("failing report %s left out while others are kept", r.Reports[i].ID)
				}
			}
			for i := 1; i < len(got.Journal.Entries); i++ {
				if got.Journal.Entries[i].At.Before(got.Journal.Entries[i-1].At) {
					t.Fatal("the kept journal is not oldest first")
				}
			}
			if om.Journal > 0 && got.Journal.Entries[len(got.Journal.Entries)-1].ID != r.Journal.Entries[len(r.Journal.Entries)-1].ID {
				t.Error("the journal's newest entry was left out: the newest are kept first")
			}
		})
	}
}

// TestJSONLeavesTheRunAlone: writing the document cuts copies; the run keeps its texts whole.
func TestJSONLeavesTheRunAlone(t *testing.T) {
	t.Parallel()
	r := sampleRun(4, 3, strings.Repeat("<", 2000), 8000, 30)
	before := r.Journal.Entries[0].RequestBody
	reason := r.Reports[0].Timeline[1].Reason
	encodeJSON(t, r)
	if r.Journal.Entries[0].RequestBody != before || r.Reports[0].Timeline[1].Reason != reason {
		t.Error("WriteJSON changed the run it wrote")
	}
}

func TestCutText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		s     string
		limit int
		cut   bool
	}{
		{"short", "hello", 64, false},
		{"exactly the limit", strings.Repeat("a", 64), 64, false},
		{"one past", strings.Repeat("a", 65), 64, true},
		{"escapes count", strings.Repeat("\x01", 11), 64, true},
		{"escapes that fit", strings.Repeat("\x01", 10), 64, false},
		{"multibyte at the edge", strings.Repeat("é", 200), 100, true},
		{"invalid UTF-8", strings.Repeat("\xff", 20), 100, true},
	} {
		got, cut := cutText(tc.s, tc.limit)
		if cut != tc.cut {
			t.Errorf("%s: cut %v, want %v", tc.name, cut, tc.cut)
		}
		checkCut(t, tc.s, tc.limit, got, cut)
	}
}

// checkCut holds one cut to its promises: within limit as JSON, the original's prefix at a
// character boundary, a marker saying how much went.
func checkCut(t *testing.T, s string, limit int, got string, cut bool) {
	t.Helper()
	b, _ := json.Marshal(got)
	if len(b)-2 > limit && cut {
		t.Fatalf("cut to %d encoded bytes, more than %d: %q", len(b)-2, limit, got)
	}
	if !cut {
		if got != s {
			t.Fatalf("not cut but changed: %q", got)
		}
		if whole, _ := json.Marshal(s); len(whole)-2 > limit {
			t.Fatalf("%q is %d encoded bytes, more than %d, and was not cut", s, len(whole)-2, limit)
		}
		return
	}
	i := strings.Index(got, " … [cut by the run report: ")
	if i < 0 || !strings.HasPrefix(s, got[:i]) {
		t.Fatalf("a cut without its marker or not a prefix: %q", got)
	}
	if !decodeBoundary(s, i) {
		t.Fatalf("cut inside a character at %d", i)
	}
	if want := fmt.Sprintf("%d more bytes]", len(s)-i); !strings.HasSuffix(got, want) {
		t.Fatalf("the marker %q does not say %q", got[i:], want)
	}
}

// decodeBoundary says whether i is where a character of s begins as UTF-8 decoding reads it
// (an invalid byte is a character of its own).
func decodeBoundary(s string, i int) bool {
	for j := 0; j < i; {
		_, size := utf8.DecodeRuneInString(s[j:])
		j += size
		if j > i {
			return false
		}
	}
	return true
}

// FuzzCutText: whatever the text and the share, a cut text fits its share as encoding/json
// writes it, and encodedLen never counts less than encoding/json writes.
func FuzzCutText(f *testing.F) {
	for _, s := range []string{"", "plain", "\x01\x02\"\\<>&\u2028", "\xff\xfeé", strings.Repeat("\b\f", 40)} {
		f.Add(s, uint16(64))
	}
	f.Fuzz(func(t *testing.T, s string, limit uint16) {
		l := 64 + int(limit)%4096
		got, cut := cutText(s, l)
		checkCut(t, s, l, got, cut)
		b, _ := json.Marshal(s)
		if encodedLen(s) < len(b)-2 {
			t.Fatalf("encodedLen %d, encoding/json writes %d", encodedLen(s), len(b)-2)
		}
	})
}

// TestEndpointFailuresGrouped: 17 retrying deliveries of one endpoint are one failure row
// with their count and the error most share; the page says so once, the deliveries one by
// one folded away.
func TestEndpointFailuresGrouped(t *testing.T) {
	t.Parallel()
	r := sampleRun(0, 0, "x", 0, 0)
	at := testStart.Add(time.Hour)
	ep := Endpoint{ID: "ep-2", WorkspaceID: "ws-1", URL: "https://down.example.com/hook", Events: []string{"report.completed"}, Enabled: true, Source: "settings", CreatedAt: testStart}
	for i := range 19 {
		d := Delivery{ID: fmt.Sprintf("d2-%02d", i), EndpointID: "ep-2", EventType: "report.completed", Status: "retrying", Attempts: 2, CreatedAt: testStart, Body: json.RawMessage(`{}`), LastError: "HTTP 503"}
		last := at.Add(time.Duration(i) * time.Second)
		d.LastAttemptAt = &last
		switch {
		case i < 2:
			d.LastError = "connection refused"
		case i == 18:
			d.Status, d.LastError = "succeeded", ""
		case i == 17:
			d.Status = "abandoned"
		}
		ep.Deliveries = append(ep.Deliveries, d)
	}
	r.Endpoints = []Endpoint{ep}
	Summarize(r)
	var rows []Failure
	for _, f := range r.Summary.Failures {
		if f.Kind == "endpoint" {
			rows = append(rows, f)
		}
	}
	if len(rows) != 1 {
		t.Fatalf("%d endpoint failure rows, want 1: %+v", len(rows), r.Summary.Failures)
	}
	f := rows[0]
	if f.ID != "ep-2" || f.Name != ep.URL || f.Status != "17 retrying, 1 abandoned" || f.Reason != "16 of 18 failing deliveries: HTTP 503" || !f.At.Equal(at.Add(18*time.Second)) {
		t.Errorf("the endpoint's row: %+v", f)
	}
	sum := r.Summary.Endpoints[0]
	if sum.Deliveries != 19 || sum.Failing != 18 || sum.ByStatus["succeeded"] != 1 || sum.CommonErrorCount != 16 {
		t.Errorf("the endpoint's summary: %+v", sum)
	}
	page := string(render(t, r))
	if n := strings.Count(page, `<tr class="failure" data-kind="endpoint">`); n != 1 {
		t.Errorf("%d endpoint rows among the page's failures, want 1", n)
	}
	for _, want := range []string{"18 failing deliveries; 16 with: HTTP 503", "17 retrying", `<details class="deliveries"><summary>The 19 deliveries one by one</summary>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
}

// TestNotPassedAmongFailures: a COMPLETE report that failed required checks is among the
// failures after FAILED and OUT_OF_QUOTA, with the checks it failed; on the page its row
// shows the verdict, the standard and the name, and comes after the failed reports.
func TestNotPassedAmongFailures(t *testing.T) {
	t.Parallel()
	r := sampleRun(8, 0, "x", 0, 10)
	var reportRows []Failure
	for _, f := range r.Summary.Failures {
		if f.Kind == "report" {
			reportRows = append(reportRows, f)
		}
	}
	if len(reportRows) != 5 {
		t.Fatalf("%d report failures, want 4 failed or out of quota and 1 not passed: %+v", len(reportRows), reportRows)
	}
	last := reportRows[4]
	if last.ID != "rep-00004" || last.Status != "COMPLETE" || last.Name != "Episode 4 x" || last.Reason != "did not pass Podcast x: 4 of 8 required checks failed (1, 3, 5, 7)" {
		t.Errorf("the report that did not pass: %+v", last)
	}
	for _, f := range reportRows[:4] {
		if f.Status == "COMPLETE" {
			t.Errorf("a completed report before the failed ones: %+v", f)
		}
	}
	page := string(render(t, r))
	for _, want := range []string{
		`<span class="verdict bad">not passed: 4 of 8 required checks failed (Podcast x)</span> · <span class="report-name">Episode 4 x</span>`,
		`<span class="verdict ok">passed (Podcast x)</span> · <span class="report-name">Episode 0 x</span>`,
		`<td class="bad">COMPLETE, not passed</td>`,
		`<tr id="not-passed"><td class="bad">of them COMPLETE, not passed</td><td class="n">1</td></tr>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not show %s", want)
		}
	}
	order := []string{}
	for _, part := range strings.Split(page, `<details class="report" id="report-`)[1:] {
		order = append(order, part[:9])
	}
	if strings.Join(order, " ") != "rep-00001 rep-00002 rep-00005 rep-00006 rep-00004 rep-00000 rep-00003 rep-00007" {
		t.Errorf("reports on the page in the order %v, want failed and out of quota, then not passed, then the rest", order)
	}
	_, got := encodeJSON(t, r)
	if v := got.Reports[4].Verdict; v == nil || v.Passed || v.RequiredFailures != 4 || v.Standard != "Podcast x" || got.Reports[4].Name != "Episode 4 x" {
		t.Errorf("the JSON's report 4: verdict %+v, name %q", v, got.Reports[4].Name)
	}
}
