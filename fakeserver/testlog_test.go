package fakeserver

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// recordTB is a test as NewTest sees it, run by hand: the real t for Helper, Errorf and Fatalf;
// its own cleanups, log and verdict, so that a test can fail it without failing. Like testing's,
// its Log must not be called once it has ended: such a call is counted as late.
type recordTB struct {
	testing.TB
	name string

	mu       sync.Mutex
	cleanups []func()
	logs     []string
	failed   bool
	ended    bool
	late     []string
}

func newRecordTB(t *testing.T, name string) *recordTB { return &recordTB{TB: t, name: name} }

func (r *recordTB) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

func (r *recordTB) Log(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		r.late = append(r.late, fmt.Sprint(args...))
		return
	}
	r.logs = append(r.logs, fmt.Sprint(args...))
}

func (r *recordTB) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *recordTB) Name() string { return r.name }

func (r *recordTB) fail() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
}

// end runs the cleanups, last registered first, as testing does when a test ends, and then
// marks the test ended.
func (r *recordTB) end() {
	r.mu.Lock()
	cleanups := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	r.mu.Lock()
	r.ended = true
	r.mu.Unlock()
}

// lines are the log lines Log got that contain s.
func (r *recordTB) lines(s string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, l := range r.logs {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return out
}

// TestNewTestLogsToTheTest: NewTest's fake logs into its test's Log, from INFO up by default
// (the Demo workspace, a clock move) and with the API requests from DEBUG; a level above ERROR
// passes nothing, and WithLogger sends the lines to its logger instead.
func TestNewTestLogsToTheTest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		opts        []Option
		own         bool // WithLogger: the lines go there
		info, debug bool // what the test's log gets
	}{
		{"default", nil, false, true, false},
		{"debug", []Option{WithTestLogLevel(slog.LevelDebug)}, false, true, true},
		{"warn", []Option{WithTestLogLevel(slog.LevelWarn)}, false, false, false},
		{"off", []Option{WithTestLogLevel(slog.LevelError + 1)}, false, false, false},
		{"own logger", []Option{WithTestLogLevel(slog.LevelDebug)}, true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecordTB(t, t.Name())
			own := &lockedBuffer{}
			opts := tt.opts
			if tt.own {
				opts = append(opts, WithLogger(slog.New(slog.NewTextHandler(own, nil))))
			}
			srv, seed := NewTest(rec, opts...)
			mustAdvance(t, srv, time.Minute)
			if status, _, _ := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), ""); status != http.StatusOK {
				t.Fatalf("GET /me: %d", status)
			}
			rec.end()

			created := rec.lines(`msg="workspace created"`)
			advanced := rec.lines(`msg="clock advanced" kind=clock.advanced by=1m0s`)
			request := rec.lines(`msg=request kind=request method=GET path=/api/rest/v1/me status=200`)
			if tt.info != (len(created) == 1 && len(advanced) == 1) || tt.debug != (len(request) == 1) {
				t.Fatalf("the test's log got %d workspace, %d clock and %d request lines; want info %v, debug %v:\n%s",
					len(created), len(advanced), len(request), tt.info, tt.debug, strings.Join(rec.lines(""), "\n"))
			}
			for _, l := range rec.lines("") {
				if !strings.HasPrefix(l, "fakeserver: level=") || strings.Contains(l, "time=") || strings.Contains(l, "\n") {
					t.Errorf("log line %q: want one fakeserver: level=... line without the wall-clock time", l)
				}
			}
			if tt.own != strings.Contains(own.String(), `msg="clock advanced"`) {
				t.Errorf("WithLogger's logger got %q", own.String())
			}
			if !tt.info && !tt.debug && len(rec.lines("")) != 0 {
				t.Errorf("the test's log got %q", rec.lines(""))
			}
		})
	}
}

// TestNewTestLogStopsAtTheTestsEnd: lines logged while the test ends reach it or are dropped,
// and once it has ended none reaches it (testing's Log panics then), however many goroutines
// log at that moment.
func TestNewTestLogStopsAtTheTestsEnd(t *testing.T) {
	t.Parallel()
	rec := newRecordTB(t, t.Name())
	srv, _ := NewTest(rec)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				srv.log.Warn("from a goroutine", "goroutine", i, "n", n)
			}
		})
	}
	// Let each goroutine log before the end, counted by lines rather than by time.
	for len(rec.lines("from a goroutine")) < 40 {
		srv.log.Info("waiting")
	}
	rec.end()
	srv.log.Error("after the end")
	close(stop)
	wg.Wait()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.late) != 0 {
		t.Fatalf("%d lines reached the test after its end, the first %q", len(rec.late), rec.late[0])
	}
}

// TestNewTestFailureReport: when its test fails NewTest writes the run report with the test's
// name in the files' names and says where in the test's log; a passing test gets none;
// WithFailureReport("") turns it off; with WithReportDir the report Close writes there is the
// one named; a directory that cannot be made is said in the log.
func TestNewTestFailureReport(t *testing.T) {
	t.Parallel()
	const name = "TestCheckout/card declined#01"
	files := regexp.MustCompile(`^fakeserver: the test failed; the fake's run report: (\S+\.html) \(JSON: (\S+\.json)\)$`)
	unwritable := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(unwritable, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		failed    bool
		failDir   func(t *testing.T) string // WithFailureReport's dir
		reportDir bool                      // WithReportDir
		want      string                    // where the named files are: "failure", "report" or ""
		wantLog   string                    // a log line that must be there instead
	}{
		{"failed", true, tempDir, false, "failure", ""},
		{"passed", false, tempDir, false, "", ""},
		{"turned off", true, func(*testing.T) string { return "" }, false, "", ""},
		{"failed with a report dir", true, tempDir, true, "report", ""},
		{"unwritable", true, func(*testing.T) string { return filepath.Join(unwritable, "reports") }, false, "",
			"fakeserver: the run report of this failed test was not written: the report dir "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecordTB(t, name)
			failDir := tt.failDir(t)
			opts := []Option{WithFailureReport(failDir)}
			reportDir := t.TempDir()
			if tt.reportDir {
				opts = append(opts, WithReportDir(reportDir))
			}
			_, seed := NewTest(rec, opts...)
			if tt.failed {
				rec.fail()
			}
			rec.end()

			named := rec.lines("the fake's run report")
			if tt.want == "" {
				if len(named) != 0 {
					t.Fatalf("the log names a report: %q", named)
				}
				if failDir != "" {
					if entries, _ := os.ReadDir(failDir); len(entries) != 0 {
						t.Fatalf("files written to the failure report dir: %v", entries)
					}
				}
				if tt.wantLog != "" && len(rec.lines(tt.wantLog)) != 1 {
					t.Fatalf("no log line %q in %q", tt.wantLog, rec.lines(""))
				}
				return
			}
			if len(named) != 1 {
				t.Fatalf("the log names %d reports: %q", len(named), rec.lines(""))
			}
			m := files.FindStringSubmatch(named[0])
			if m == nil {
				t.Fatalf("log line %q", named[0])
			}
			dir := map[string]string{"failure": failDir, "report": reportDir}[tt.want]
			base := regexp.MustCompile(`^podqa-fake-report-TestCheckout-card_declined_01-\d{8}T\d{6}Z-[0-9a-f]{8}\.(html|json)$`)
			for _, p := range m[1:] {
				if filepath.Dir(p) != dir || !base.MatchString(filepath.Base(p)) {
					t.Fatalf("report file %s, want one named after the test in %s", p, dir)
				}
			}
			raw, err := os.ReadFile(m[2])
			if err != nil {
				t.Fatal(err)
			}
			var run struct {
				RunID      string `json:"run_id"`
				Reason     string `json:"reason"`
				Workspaces []struct{ ID string }
			}
			if err := json.Unmarshal(raw, &run); err != nil || run.Reason != "stop" || len(run.Workspaces) != 1 || run.Workspaces[0].ID != seed.WorkspaceID ||
				"podqa-fake-report-"+run.RunID+".json" != filepath.Base(m[2]) {
				t.Fatalf("report %s: %+v (%v)", m[2], run, err)
			}
			if html, err := os.ReadFile(m[1]); err != nil || !strings.Contains(string(html), "<html") {
				t.Fatalf("page %s: %v", m[1], err)
			}
			if tt.reportDir {
				if entries, _ := os.ReadDir(failDir); len(entries) != 0 {
					t.Fatalf("a second report in the failure dir: %v", entries)
				}
			}
		})
	}
}

func tempDir(t *testing.T) string { return t.TempDir() }

// TestNewTestFailureReportDefaultDir: without WithFailureReport a failed test's report goes to
// podqa-fake-reports in os.TempDir(). It sets TMPDIR, so it does not run in parallel.
func TestNewTestFailureReportDefaultDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	rec := newRecordTB(t, "TestDefault")
	NewTest(rec)
	rec.fail()
	rec.end()
	named := rec.lines("the fake's run report")
	want := filepath.Join(tmp, "podqa-fake-reports")
	if len(named) != 1 || !strings.Contains(named[0], want+string(filepath.Separator)+"podqa-fake-report-TestDefault-") {
		t.Fatalf("log %q, want the report in %s", rec.lines(""), want)
	}
	if entries, err := os.ReadDir(want); err != nil || len(entries) != 2 {
		t.Fatalf("%s holds %v (%v), want the two files", want, entries, err)
	}
}

// plainTB has only what TB requires: NewTest works with it, logging nowhere.
type plainTB struct {
	t        *testing.T
	cleanups []func()
}

func (p *plainTB) Helper()                        {}
func (p *plainTB) Cleanup(f func())               { p.cleanups = append(p.cleanups, f) }
func (p *plainTB) Errorf(format string, a ...any) { p.t.Errorf(format, a...) }
func (p *plainTB) Fatalf(format string, a ...any) { p.t.Fatalf(format, a...) }

func TestNewTestWithAPlainTB(t *testing.T) {
	t.Parallel()
	p := &plainTB{t: t}
	srv, seed := NewTest(p)
	if status, _, _ := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), ""); status != http.StatusOK {
		t.Fatalf("GET /me: %d", status)
	}
	if srv.reports != nil {
		t.Fatal("a run report dir without WithReportDir")
	}
	for i := len(p.cleanups) - 1; i >= 0; i-- {
		p.cleanups[i]()
	}
}

// fuzzRecordTB is a recordTB that is a fuzz test, as *testing.F is (it has Fuzz).
type fuzzRecordTB struct{ *recordTB }

func (fuzzRecordTB) Fuzz(any) {}

// TestNewTestOfAFuzzTest: a fuzz test's fake logs nothing into it (testing.F's Log panics while
// the fuzz target runs, where the fake is used; FuzzFaultBodies does that), and its failure
// still gets the run report.
func TestNewTestOfAFuzzTest(t *testing.T) {
	t.Parallel()
	rec := newRecordTB(t, "FuzzThing")
	dir := t.TempDir()
	srv, _ := NewTest(fuzzRecordTB{rec}, WithTestLogLevel(slog.LevelDebug), WithFailureReport(dir))
	mustAdvance(t, srv, time.Minute)
	rec.fail()
	rec.end()
	if got := rec.lines("level="); len(got) != 0 {
		t.Fatalf("a fuzz test got log lines: %q", got)
	}
	if named := rec.lines("the fake's run report: " + dir + string(filepath.Separator) + "podqa-fake-report-FuzzThing-"); len(named) != 1 {
		t.Fatalf("log %q, want the report named", rec.lines(""))
	}
}

// benchRecordTB is a recordTB that looks like a *testing.B.
type benchRecordTB struct{ *recordTB }

func (benchRecordTB) ResetTimer() {}

// TestNewTestOfABenchmark: a benchmark's fake logs nothing into it unless WithTestLogLevel asks
// (go test prints a benchmark's Log lines whether it fails or not), and logs when asked.
func TestNewTestOfABenchmark(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		opts  []Option
		lines bool
	}{
		{"default", nil, false},
		{"asked", []Option{WithTestLogLevel(slog.LevelInfo)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecordTB(t, "BenchmarkThing")
			srv, _ := NewTest(benchRecordTB{rec}, append(tc.opts, WithFailureReport(""))...)
			mustAdvance(t, srv, time.Minute)
			rec.end()
			if got := rec.lines("level="); (len(got) > 0) != tc.lines {
				t.Fatalf("log lines %q, want some: %v", got, tc.lines)
			}
		})
	}
}
