package fakeserver

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/runreport"
)

// WithTestLogLevel sets the lowest level of the fake's log lines that NewTest passes to its
// test's Log (default slog.LevelInfo: reports created and finished, clock moves, faults fired,
// control calls, and at WARN failed webhook attempts, refusals, FAILED reports; slog.LevelDebug
// adds every API request and every delivery that succeeded). go test shows them when the test
// fails, or always with -v. A level above slog.LevelError passes none. WithLogger sends the log
// to its logger instead; New, which logs only to WithLogger, ignores this option. A benchmark's
// fake logs nothing unless this option is given: go test prints a benchmark's Log lines
// whether it fails or not, once per run of its function.
func WithTestLogLevel(level slog.Level) Option {
	return func(o *options) { o.testLogLevel, o.testLogLevelSet = level, true }
}

// WithFailureReport sets the directory NewTest writes the run report into when its test fails
// (default: podqa-fake-reports in os.TempDir()), made if missing; "" writes none. The files are
// podqa-fake-report-<test name>-<run id>.json and .html, the test's name with "/" made "-" and
// other characters but letters, digits, ".", "_" and "-" made "_"; the test's log names their
// paths. With WithReportDir the fake writes its report there anyway, on Close, under the same
// name, and a failed test's log names those files instead. New ignores this option.
func WithFailureReport(dir string) Option {
	return func(o *options) { o.failureReport, o.failureReportSet = dir, true }
}

// defaultFailureReportDir is where NewTest writes a failed test's run report without
// WithFailureReport.
func defaultFailureReportDir() string { return filepath.Join(os.TempDir(), "podqa-fake-reports") }

// testReporter is what NewTest uses of a TB when it has it, as every testing.TB does: the log
// that go test shows, the test's verdict and its name.
type testReporter interface {
	Log(args ...any)
	Failed() bool
	Name() string
}

// testOutput is NewTest's link to its test: the fake's log lines into the test's log until the
// test ends, and the run report of a failed test.
type testOutput struct {
	t          testReporter
	sink       *testSink
	failureDir string // "" writes no report
}

// newTestOutput reads opts (options are plain setters, so reading them first changes nothing)
// and returns t's output with the options that route the fake's log to it; nil, and no
// options, when t has no Log, Failed and Name.
func newTestOutput(t TB, opts []Option) (*testOutput, []Option) {
	tr, ok := t.(testReporter)
	if !ok {
		return nil, nil
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	out := &testOutput{t: tr, failureDir: defaultFailureReportDir()}
	if o.failureReportSet {
		out.failureDir = o.failureReport
	}
	name := tr.Name()
	named := []Option{func(o *options) { o.testName = name }}
	if _, fuzz := t.(interface{ Fuzz(any) }); fuzz {
		// A *testing.F's Log panics while its fuzz target runs, which is where a fuzz test uses
		// its fake: it gets the report of a failure, not the log.
		return out, named
	}
	if _, bench := t.(interface{ ResetTimer() }); bench && !o.testLogLevelSet {
		return out, named // a *testing.B prints every Log line: only when asked
	}
	out.sink = &testSink{t: tr}
	// Before opts, so that a WithLogger among them wins: the test asked for its log elsewhere.
	return out, append(named, WithLogger(out.sink.logger(o.testLogLevel)))
}

// beforeClose writes the report of a failed test before the fake stops, unless the fake writes
// one itself on Close (WithReportDir), and names its files in the test's log.
func (out *testOutput) beforeClose(s *Server) {
	if out == nil || !out.t.Failed() || s.reports != nil || out.failureDir == "" {
		return
	}
	if err := runreport.PrepareDir(out.failureDir); err != nil {
		out.t.Log("fakeserver: the run report of this failed test was not written: " + err.Error())
		return
	}
	files, err := s.writeRunReportAs(out.failureDir, runreport.NewLabelledRunID(out.t.Name(), time.Now()), runreport.ReasonStop)
	if err != nil {
		out.t.Log("fakeserver: the run report of this failed test was not written: " + err.Error())
		return
	}
	out.t.Log("fakeserver: the test failed; the fake's run report: " + files.HTML + " (JSON: " + files.JSON + ")")
}

// afterClose names the files Close wrote (WithReportDir) in a failed test's log, then stops the
// fake's log from reaching the test, whose Log panics once it has ended.
func (out *testOutput) afterClose(s *Server, closeErr error) {
	if out == nil {
		return
	}
	if s != nil && s.reports != nil && closeErr == nil && out.t.Failed() {
		files := s.reports.Files()
		out.t.Log("fakeserver: the test failed; the fake's run report: " + files.HTML + " (JSON: " + files.JSON + ")")
	}
	out.end()
}

// end stops the fake's log from reaching the test.
func (out *testOutput) end() {
	if out != nil && out.sink != nil {
		out.sink.close()
	}
}

// testSink writes each log line to the test's Log until close, and drops it after.
type testSink struct {
	mu   sync.Mutex
	t    testReporter
	done bool
}

// logger is a text logger at level into the sink, without the wall-clock time (the lines carry
// the fake's instants where they matter, and go test orders them).
func (s *testSink) logger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(s, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// Write takes one line, as the text handler writes each record in one call.
func (s *testSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.done {
		s.t.Log("fakeserver: " + strings.TrimSuffix(string(p), "\n"))
	}
	return len(p), nil
}

// close drops every later line; a line being written finishes first.
func (s *testSink) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
}
