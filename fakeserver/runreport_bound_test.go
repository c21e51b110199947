package fakeserver

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/runreport"
)

// TestRunReportBoundedAfterEscaping: keyed GETs whose bodies are 64 KiB of 0x01 (the journal
// keeps each whole; JSON writes each byte as the 6 bytes \u0001) make GET /_fake/report and the
// file the fake writes (as on Close and SIGTERM) a few KiB a request: each body cut to its share
// with the marker, not 384 KiB of it. The answer holds to the schema (call checks it).
func TestRunReportBoundedAfterEscaping(t *testing.T) {
	t.Parallel()
	const requests = 200
	srv, seed := NewTest(t, WithoutRateLimits(), WithReportDir(t.TempDir()))
	body := strings.Repeat("\x01", MaxJournalBody)
	for range requests {
		req := httptest.NewRequest("GET", "/api/rest/v1/me", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+seed.APIKey)
		srv.Handler().ServeHTTP(httptest.NewRecorder(), req)
	}
	entries := srv.Requests(RequestFilter{Limit: MaxJournalSize})
	kept := 0
	for _, e := range entries {
		if len(e.RequestBody) == MaxJournalBody {
			kept++
		}
	}
	if kept != requests {
		t.Fatalf("the journal kept %d whole bodies, want %d: the test's premise", kept, requests)
	}
	// 4 KiB a request is well above a cut body (1 KiB) with its row, and far below one
	// written whole (6 × 64 KiB).
	bound := requests * 4 << 10
	status, _, got := call(t, srv, "GET", "/_fake/report", admin(srv), "")
	if status != http.StatusOK {
		t.Fatalf("GET /_fake/report: %d %.300s", status, got)
	}
	t.Logf("GET /_fake/report: %d bytes for %d journal entries", len(got), len(entries))
	if len(got) > bound {
		t.Errorf("GET /_fake/report answered %d bytes, more than %d", len(got), bound)
	}
	if n := bytes.Count(got, []byte("[cut by the run report: ")); n != requests {
		t.Errorf("%d bodies cut with the marker, want %d", n, requests)
	}
	files, err := srv.WriteRunReport()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{files.JSON, files.HTML} {
		st, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > int64(bound) {
			t.Errorf("%s: %d bytes, more than %d", name, st.Size(), bound)
		}
	}
	run := readRunReport(t, files.JSON)
	if run.Bounds.MaxBytes != runreport.MaxJSON || run.Bounds.TextsCut < requests {
		t.Errorf("bounds %+v", run.Bounds)
	}
}

// TestRunReportVerdictAndName: a report that completed but failed a required check is among
// the run's failures after a FAILED one, with the standard and the checks it failed; every
// report carries its name (the title tag, else the file name) and its verdict.
func TestRunReportVerdictAndName(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithAnalysisPace(0))
	wav := func(lufs float64, title string) []byte {
		b, err := SynthesizeWAV(AudioSpec{Duration: 3 * time.Second, SampleRate: 8000, LoudnessLUFS: &lufs, Title: title})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	quiet := uploadReport(t, srv, seed.APIKey, wav(-35, "Too quiet"))
	notAudio := uploadReport(t, srv, seed.APIKey, []byte(strings.Repeat("not audio\n", 100)))
	untitled := uploadReport(t, srv, seed.APIKey, wav(-35, ""))
	if _, err := srv.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	run := srv.runReport()
	byID := map[string]runreport.Report{}
	for _, r := range run.Reports {
		byID[r.ID] = r
	}
	q := byID[quiet]
	if q.Status != "COMPLETE" || q.Name != "Too quiet" || q.Verdict == nil || q.Verdict.Passed || q.Verdict.RequiredFailures == 0 || q.Verdict.Standard == "" {
		t.Fatalf("the quiet report: status %s, name %q, verdict %+v", q.Status, q.Name, q.Verdict)
	}
	if u := byID[untitled]; u.Name != "up.wav" {
		t.Errorf("an untitled upload is named %q, want its file name", u.Name)
	}
	if f := byID[notAudio]; f.Status != "FAILED" || f.Verdict != nil || f.Name != "up.wav" {
		t.Errorf("the failed report: status %s, verdict %+v, name %q", f.Status, f.Verdict, f.Name)
	}
	var order []string
	for _, f := range run.Summary.Failures {
		if f.Kind == "report" {
			order = append(order, f.ID)
		}
		if f.ID == quiet && (!strings.Contains(f.Reason, "did not pass "+q.Verdict.Standard) || !strings.Contains(f.Reason, "loudness_lufs") || f.Name != "Too quiet") {
			t.Errorf("the quiet report's failure: %+v", f)
		}
	}
	if strings.Join(order, " ") != notAudio+" "+quiet+" "+untitled {
		t.Errorf("report failures %v, want the FAILED one, then the two that did not pass, oldest first", order)
	}
	var page bytes.Buffer
	if err := runreport.WriteHTML(&page, run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), `<span class="report-name">Too quiet</span>`) || !strings.Contains(page.String(), `<span class="verdict bad">not passed: `) {
		t.Error("the page does not show the quiet report's name and verdict")
	}
}
