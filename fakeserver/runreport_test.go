package fakeserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/runreport"
)

// runReportSchema validates v (decoded JSON) against RunReport of control.openapi.json.
func runReportSchema(t *testing.T, v any) error {
	t.Helper()
	doc, err := controlContract()
	if err != nil {
		t.Fatal(err)
	}
	ref := doc.Components.Schemas["RunReport"]
	if ref == nil || ref.Value == nil {
		t.Fatal("control.openapi.json has no RunReport schema")
	}
	return ref.Value.VisitJSON(v)
}

// readRunReport reads a run report's JSON file, checks it against the schema and decodes it.
func readRunReport(t *testing.T, name string) runreport.Run {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var loose any
	if err := json.Unmarshal(data, &loose); err != nil {
		t.Fatalf("%s is not JSON: %v", name, err)
	}
	if err := runReportSchema(t, loose); err != nil {
		t.Fatalf("%s does not hold to the RunReport schema: %v", name, err)
	}
	var run runreport.Run
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&run); err != nil {
		t.Fatal(err)
	}
	return run
}

// TestRunReportOfARun: a run with a report that completes, an upload that is not audio, a
// receiver that fails, a fault that fires and clock moves. POST /_fake/report writes both files
// and says where; Close writes them again; the JSON holds to the schema in
// control.openapi.json and tells the run; the HTML shows its reports, failures first.
func TestRunReportOfARun(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "made", "by-the-fake")
	srv, err := New(WithManualClock(TestStart()), WithPrivateURLs(true), WithAnalysisPace(0), WithReportDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = srv.Close()
		}
	})
	seed, err := srv.SeedDemo()
	if err != nil {
		t.Fatal(err)
	}
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down for the test", http.StatusServiceUnavailable)
	}))
	defer failing.Close()
	ep, err := srv.CreateWebhookEndpoint(t.Context(), seed.WorkspaceID, WebhookEndpointSpec{URL: failing.URL + "/hook", Events: []string{"report.completed", "report.failed"}})
	if err != nil {
		t.Fatal(err)
	}
	good := uploadReport(t, srv, seed.APIKey, synthWAV(t, 3))
	notAudio := uploadReport(t, srv, seed.APIKey, []byte(strings.Repeat("this is not audio <script>alert(1)</script>\n", 40)))
	if _, err := srv.InjectFault(Fault{Method: "GET", PathPrefix: "/api/rest/v1/reports", Status: 503, Count: 1}); err != nil {
		t.Fatal(err)
	}
	if status, _, _ := call(t, srv, "GET", "/api/rest/v1/reports", bearer(seed.APIKey), ""); status != 503 {
		t.Fatalf("the fault did not fire: %d", status)
	}
	for range 3 {
		if _, err := srv.Advance(10 * time.Second); err != nil {
			t.Fatal(err)
		}
	}

	status, _, body := call(t, srv, "POST", "/_fake/report", admin(srv), "")
	var files RunReportFiles
	if status != http.StatusOK || json.Unmarshal(body, &files) != nil {
		t.Fatalf("POST /_fake/report: %d %s", status, body)
	}
	if filepath.Dir(files.JSON) != dir || filepath.Base(files.JSON) != runreport.FilePrefix+files.RunID+".json" || files.HTML != strings.TrimSuffix(files.JSON, ".json")+".html" {
		t.Fatalf("written to %+v, want podqa-fake-report-<run id>.json and .html in %s", files, dir)
	}
	run := readRunReport(t, files.JSON)
	if run.Reason != runreport.ReasonRequest || run.RunID != files.RunID || run.Clock.Mode != "manual" || run.BaseURL != srv.URL() {
		t.Errorf("head of the report: reason %q, run %q, clock %q, base %q", run.Reason, run.RunID, run.Clock.Mode, run.BaseURL)
	}
	byID := map[string]runreport.Report{}
	for _, r := range run.Reports {
		byID[r.ID] = r
	}
	if len(run.Reports) != 2 || byID[good].Status != "COMPLETE" || byID[notAudio].Status != "FAILED" {
		t.Fatalf("reports %+v", run.Reports)
	}
	if g := byID[good]; g.Measured == nil || g.Measured.Format != "wav" || g.Measured.DurationMS != 3000 || len(g.Checks) == 0 || len(g.Timeline) != 4 {
		t.Errorf("the completed report's account: %+v", g)
	}
	acc, err := srv.ReportAccount(good)
	if err != nil {
		t.Fatal(err)
	}
	if l := byID[good].Loudness; len(l.LUFS) != len(acc.Loudness.LUFS) || len(l.LUFS) == 0 || l.StepMS != acc.Loudness.Step.Milliseconds() || l.WindowMS != acc.Loudness.Window.Milliseconds() {
		t.Errorf("the completed report's series: %d values every %d ms over %d ms, the account's %d every %s over %s",
			len(l.LUFS), l.StepMS, l.WindowMS, len(acc.Loudness.LUFS), acc.Loudness.Step, acc.Loudness.Window)
	}
	if f := byID[notAudio]; !strings.Contains(f.Failure, "could not be analysed") || len(f.DeliveryIDs) == 0 || len(f.EmailIDs) == 0 {
		t.Errorf("the failed report's account: failure %q, deliveries %v, emails %v", f.Failure, f.DeliveryIDs, f.EmailIDs)
	}
	if fs := run.Summary.Failures; len(fs) == 0 || fs[0].Kind != "report" || fs[0].ID != notAudio {
		t.Errorf("failures %+v, want the failed report first", fs)
	}
	if run.Summary.ReportsByStatus["FAILED"] != 1 || run.Summary.ReportsByStatus["COMPLETE"] != 1 || run.Summary.RequestsByStatus["503"] != 1 {
		t.Errorf("counts: %+v", run.Summary)
	}
	if len(run.Endpoints) != 1 || run.Endpoints[0].ID != ep.ID || len(run.Endpoints[0].Deliveries) != 2 {
		t.Fatalf("endpoints %+v", run.Endpoints)
	}
	for _, d := range run.Endpoints[0].Deliveries {
		if d.Status != "retrying" || d.ResponseCode != 503 || d.NextAttemptAt == nil || d.Attempts < 1 {
			t.Errorf("delivery %+v, want retrying after a 503", d)
		}
		if len(d.AttemptLog) != d.Attempts {
			t.Errorf("delivery %s: %d attempts, %d in its attempt log", d.ID, d.Attempts, len(d.AttemptLog))
		}
		for _, e := range d.AttemptLog {
			if e.Kind != EventDeliveryFailed || e.ReportID == "" {
				t.Errorf("delivery %s: attempt %+v", d.ID, e)
			}
		}
	}
	if len(run.Emails) == 0 {
		t.Error("no email, though a report failed")
	}
	if run.Summary.FaultsFired != 1 || run.Summary.ClockMoves != 3 {
		t.Errorf("%d faults fired and %d clock moves, want 1 and 3", run.Summary.FaultsFired, run.Summary.ClockMoves)
	}
	// What the event record keeps, the report shows, and no more.
	if want := len(srv.Events(EventFilter{Kind: EventFaultFired})); len(run.Faults.Fired) != want {
		t.Errorf("%d faults fired in the report, %d in the event record", len(run.Faults.Fired), want)
	}
	if want := len(srv.Events(EventFilter{Kind: EventClockAdvanced})); len(run.Clock.Moves) != want {
		t.Errorf("%d clock moves in the report, %d in the event record", len(run.Clock.Moves), want)
	}
	if want := len(srv.Requests(RequestFilter{Limit: MaxJournalSize})); len(run.Journal.Entries) != want || want < 5 {
		t.Errorf("%d journal entries in the report, %d in the journal", len(run.Journal.Entries), want)
	}
	for i := 1; i < len(run.Journal.Entries); i++ {
		if run.Journal.Entries[i].At.Before(run.Journal.Entries[i-1].At) {
			t.Fatalf("the journal is not oldest first at %d", i)
		}
	}
	page, err := os.ReadFile(files.HTML)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{good, notAudio, ep.ID, "Content-Security-Policy", "could not be analysed"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the page does not show %q", want)
		}
	}
	if bytes.Contains(page, []byte("<script>alert")) {
		t.Error("the page holds the uploaded text unescaped")
	}

	// GET answers the same report, held to the contract by call.
	status, _, body = call(t, srv, "GET", "/_fake/report", admin(srv), "")
	var got runreport.Run
	if status != http.StatusOK || json.Unmarshal(body, &got) != nil || len(got.Reports) != 2 || got.RunID != run.RunID {
		t.Fatalf("GET /_fake/report: %d %.300s", status, body)
	}

	// Close writes the run's files again, as stopped.
	closed = true
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	final := readRunReport(t, files.JSON)
	if final.Reason != runreport.ReasonStop || len(final.Reports) != 2 {
		t.Errorf("after Close: reason %q, %d reports", final.Reason, len(final.Reports))
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 2 {
		t.Errorf("files in the report dir: %q, want the run's two", names)
	}
}

// TestRunReportRefusals: a report dir that cannot be written fails New with its path; a fake
// without one answers POST /_fake/report 409 in the control error shape, and WriteRunReport
// ErrNoReportDir; GET still answers.
func TestRunReportRefusals(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(file, "reports")
	if srv, err := New(WithReportDir(bad)); err == nil || !strings.Contains(err.Error(), bad) {
		if srv != nil {
			_ = srv.Close()
		}
		t.Fatalf("New with an unwritable report dir: %v, want an error naming %s", err, bad)
	}
	if srv, err := New(WithReportDir("")); err == nil {
		_ = srv.Close()
		t.Fatal("New with an empty report dir: no error")
	}

	srv, _ := NewTest(t)
	if _, err := srv.WriteRunReport(); !errors.Is(err, ErrNoReportDir) {
		t.Errorf("WriteRunReport without a dir: %v", err)
	}
	status, _, body := call(t, srv, "POST", "/_fake/report", admin(srv), "")
	if status != http.StatusConflict || errorCode(t, body) != "conflict" || !strings.Contains(string(body), "-report-dir") {
		t.Errorf("POST /_fake/report without a dir: %d %s", status, body)
	}
	status, _, _ = call(t, srv, "POST", "/_fake/report", http.Header{"Authorization": {"Bearer wrong"}}, "")
	if status != http.StatusUnauthorized {
		t.Errorf("POST /_fake/report with a wrong token: %d", status)
	}
	status, _, body = call(t, srv, "GET", "/_fake/report", admin(srv), "")
	if status != http.StatusOK || !bytes.Contains(body, []byte(`"run_id":""`)) {
		t.Errorf("GET /_fake/report without a dir: %d %.200s", status, body)
	}
}

// TestRunReportSchemaCatchesDrift: the schema the tests hold the report to can fail.
func TestRunReportSchemaCatchesDrift(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	var buf bytes.Buffer
	if err := runreport.WriteJSON(&buf, srv.runReport()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(m map[string]any)
		ok     bool
	}{
		{"as written", func(map[string]any) {}, true},
		{"a field missing", func(m map[string]any) { delete(m, "summary") }, false},
		{"a field more", func(m map[string]any) { m["extra"] = 1 }, false},
		{"a wrong type", func(m map[string]any) { m["reports"] = "none" }, false},
		{"an unknown reason", func(m map[string]any) { m["reason"] = "whim" }, false},
	} {
		var m map[string]any
		if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		tc.change(m)
		if err := runReportSchema(t, m); (err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// BenchmarkRunReportWrite10kJournal1kReports: WriteRunReport of a fake holding 1,000 reports
// (SeedReports: judged, without a loudness series) and 10,000 journal entries (GET /reports?limit=1,
// served in process): gathering from the fake's state, both files written. The package
// runreport's benchmark of the same name renders 1,000 reports with an hour's series each.
func BenchmarkRunReportWrite10kJournal1kReports(b *testing.B) {
	srv, seed := NewTest(b, WithReportDir(b.TempDir()), WithJournalSize(10000))
	if _, err := srv.SeedReports(seed.WorkspaceID, make([]SeededReport, 1000)); err != nil {
		b.Fatal(err)
	}
	for range 10000 {
		req := httptest.NewRequest("GET", "/api/rest/v1/reports?limit=1", nil)
		req.Header.Set("Authorization", "Bearer "+seed.APIKey)
		srv.Handler().ServeHTTP(httptest.NewRecorder(), req)
	}
	if n := len(srv.Requests(RequestFilter{Limit: MaxJournalSize})); n != 10000 {
		b.Fatalf("%d journal entries, want 10000", n)
	}
	b.ReportAllocs()
	var files RunReportFiles
	for b.Loop() {
		var err error
		if files, err = srv.WriteRunReport(); err != nil {
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

// TestRunReportFilesAttemptsUnderTheirDelivery: an attempt event goes under the delivery it
// names; one that names none of the run's deliveries is left out.
func TestRunReportFilesAttemptsUnderTheirDelivery(t *testing.T) {
	t.Parallel()
	at := TestStart()
	attempt := func(kind string, delivery string, attrs ...slog.Attr) Event {
		at = at.Add(time.Second)
		return Event{At: at, Level: slog.LevelWarn, Kind: kind, Attrs: append(attrs, slog.String("delivery_id", delivery))}
	}
	ep, event := slog.String("endpoint_id", "ep1"), slog.String("event", "report.completed")
	run := &runreport.Run{
		Endpoints: []runreport.Endpoint{{ID: "ep1", Deliveries: []runreport.Delivery{
			{ID: "d1", EndpointID: "ep1", EventType: "report.completed"},
			{ID: "d2", EndpointID: "ep1", EventType: "report.completed"},
			{ID: "t1", EndpointID: "ep1", EventType: "report.completed", Test: true},
			{ID: "t2", EndpointID: "ep1", EventType: "report.completed", Test: true},
		}}},
	}
	assignAttempts(run, []Event{
		attempt(EventDeliveryFailed, "d1", ep, event, slog.Int("attempt", 1)),
		attempt(EventDeliveryFailed, "d2", ep, event, slog.Int("attempt", 1)),
		attempt(EventClockAdvanced, "d1"),
		attempt(EventDeliverySucceeded, "d1", ep, event, slog.Int("attempt", 2)),
		attempt(EventDeliveryFailed, "t2", ep, event),
		attempt(EventDeliveryFailed, "", ep, event),   // names no delivery
		attempt(EventDeliveryFailed, "d9", ep, event), // no delivery of the run
	})
	got := map[string]string{}
	for _, d := range run.Endpoints[0].Deliveries {
		var kinds []string
		for _, e := range d.AttemptLog {
			kinds = append(kinds, e.Kind)
		}
		got[d.ID] = strings.Join(kinds, " ")
	}
	want := map[string]string{
		"d1": EventDeliveryFailed + " " + EventDeliverySucceeded,
		"d2": EventDeliveryFailed,
		"t1": "",
		"t2": EventDeliveryFailed,
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("delivery %s: attempts %q, want %q", id, got[id], w)
		}
	}
}

// TestRunReportWriteFailureOnClose: a report dir gone by the stop makes Close return the error,
// after stopping the fake all the same.
func TestRunReportWriteFailureOnClose(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "reports")
	srv, err := New(WithManualClock(TestStart()), WithReportDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o644); err != nil { // a file where the dir was
		t.Fatal(err)
	}
	err = srv.Close()
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Fatalf("Close: %v, want the failed write naming %s", err, dir)
	}
	if _, err := http.Get(srv.URL() + "/_fake/healthz"); err == nil {
		t.Error("the fake still answers after Close")
	}
}
