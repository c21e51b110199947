package fakeserver

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/control"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/runreport"
)

// WithReportDir makes the fake write a report of its run into dir when it stops (Close; the
// program on SIGTERM or SIGINT), and on demand (WriteRunReport, POST /_fake/report): one JSON
// file and one self-contained HTML page with the same content, named
// podqa-fake-report-<run id>.json and .html. The run id is the wall-clock start of the fake
// and random bytes, so runs sharing dir keep their own files; each write of one run replaces
// that run's pair; a fake from NewTest puts its test's name in front of the run id. New makes
// dir if it is missing and returns an error naming it when files cannot be made there.
func WithReportDir(dir string) Option {
	return func(o *options) { o.reportDir, o.reportDirSet = dir, true }
}

// ErrNoReportDir is WriteRunReport's error on a fake started without WithReportDir; POST
// /_fake/report answers it 409 conflict.
var ErrNoReportDir = &Error{Status: http.StatusConflict, Code: core.CodeConflict, Message: "This fake writes no run report: start it with -report-dir DIR (or WithReportDir) to have one."}

// RunReportFiles says where a run report was written.
type RunReportFiles struct {
	// RunID names the run; every write of one run uses the same two files.
	RunID string `json:"run_id"`
	// JSON and HTML are the paths of the two files.
	JSON string `json:"json"`
	HTML string `json:"html"`
	// WrittenAt is the fake-clock instant of the report.
	WrittenAt time.Time `json:"written_at"`
}

// setupRunReports checks and prepares the report dir of WithReportDir, before the fake listens;
// nil without one.
func setupRunReports(o options) (*runreport.Reporter, error) {
	if !o.reportDirSet {
		return nil, nil
	}
	// A NewTest fake's run id begins with its test's name (see NewTest).
	p, err := runreport.NewReporter(o.reportDir, o.testName, time.Now())
	if err != nil {
		return nil, fmt.Errorf("fakeserver: %w", err)
	}
	return p, nil
}

// WriteRunReport writes the report of the run so far into the dir of WithReportDir and says
// where; ErrNoReportDir without one. The fake writes it again when it stops.
func (s *Server) WriteRunReport() (RunReportFiles, error) {
	if s.reports == nil {
		return RunReportFiles{}, ErrNoReportDir
	}
	return s.logWritten(s.reports.Dir())(s.reports.Write(runreport.ReasonRequest, s.runReport))
}

// writeRunReportOnStop writes the last report of the run, from Close.
func (s *Server) writeRunReportOnStop() error {
	if s.reports == nil {
		return nil
	}
	_, err := s.logWritten(s.reports.Dir())(s.reports.Write(runreport.ReasonStop, s.runReport))
	return err
}

// writeRunReportAs writes the report of the run so far into dir as run id, outside the report
// dir's own writes (a failed test's report).
func (s *Server) writeRunReportAs(dir, runID, reason string) (RunReportFiles, error) {
	return s.logWritten(dir)(runreport.WriteAs(dir, runID, reason, s.runReport))
}

// logWritten is what a write of a run report into dir ends with: a log line, and where it went.
func (s *Server) logWritten(dir string) func(*runreport.Run, runreport.Files, error) (RunReportFiles, error) {
	return func(run *runreport.Run, files runreport.Files, err error) (RunReportFiles, error) {
		if err != nil {
			s.log.Error("run report not written", "dir", dir, "err", err)
			return RunReportFiles{}, fmt.Errorf("fakeserver: run report: %w", err)
		}
		s.log.Info("run report written", "json", files.JSON, "html", files.HTML, "reason", run.Reason,
			"reports", run.Summary.Reports, "failures", len(run.Summary.Failures))
		return RunReportFiles{RunID: run.RunID, JSON: files.JSON, HTML: files.HTML, WrittenAt: run.WrittenAt}, nil
	}
}

// runReportCalls are the run report's control calls (GET and POST /_fake/report) over
// runReport and WriteRunReport.
func (s *Server) runReportCalls() control.RunReport {
	return control.RunReport{Gather: s.runReport, Log: s.log, Write: func() (runreport.Written, error) {
		f, err := s.WriteRunReport()
		return runreport.Written{RunID: f.RunID, Files: runreport.Files{JSON: f.JSON, HTML: f.HTML}, WrittenAt: f.WrittenAt}, answerOf(err)
	}}
}

// runReport gathers the report of the run so far, as WriteRunReport writes it and GET
// /_fake/report answers it. Its Reason is "request".
func (s *Server) runReport() *runreport.Run {
	now := s.Now()
	events := s.Events(EventFilter{}) // the whole record, oldest first
	run := &runreport.Run{
		Format:     runreport.Format,
		Reason:     runreport.ReasonRequest,
		WrittenAt:  now.UTC(),
		BaseURL:    s.url,
		Clock:      runreport.Clock{Mode: "real", Now: now.UTC(), Moves: eventsOfKind(events, EventClockAdvanced)},
		Workspaces: []runreport.Workspace{},
		Reports:    []runreport.Report{},
		Endpoints:  []runreport.Endpoint{},
		Emails:     []runreport.Email{},
		Journal:    runreport.Journal{Size: s.opts.journalSize, BodyLimit: MaxJournalBody, Entries: []runreport.JournalEntry{}},
		Faults:     runreport.Faults{Armed: []runreport.ArmedFault{}, Fired: eventsOfKind(events, EventFaultFired)},
	}
	if s.reports != nil {
		run.RunID = s.reports.RunID()
	}
	if s.clock.Manual() {
		run.Clock.Mode = "manual"
	}
	for _, ws := range s.Workspaces() {
		run.Workspaces = append(run.Workspaces, runreport.Workspace{ID: ws.ID, Type: ws.Type, Name: ws.Name})
		run.Reports = append(run.Reports, s.runReports(ws.ID)...)
		eps, err := s.WebhookEndpoints(ws.ID)
		if err != nil {
			continue // the workspace went with a reset while the report was gathered
		}
		for _, ep := range eps {
			run.Endpoints = append(run.Endpoints, s.runEndpoint(ws.ID, ep))
		}
		emails, _ := s.Emails(ws.ID)
		for _, e := range emails {
			run.Emails = append(run.Emails, emailOf(e))
		}
	}
	slices.SortStableFunc(run.Reports, func(a, b runreport.Report) int { return a.CreatedAt.Compare(b.CreatedAt) })
	slices.SortStableFunc(run.Emails, func(a, b runreport.Email) int { return a.SentAt.Compare(b.SentAt) })
	entries := s.Requests(RequestFilter{Limit: MaxJournalSize})
	for i := len(entries) - 1; i >= 0; i-- { // Requests lists the newest first
		run.Journal.Entries = append(run.Journal.Entries, journalEntryOf(entries[i]))
	}
	assignAttempts(run, events)
	for _, f := range s.Faults() {
		spec, _ := json.Marshal(faultView(f.Fault))
		run.Faults.Armed = append(run.Faults.Armed, runreport.ArmedFault{ID: f.ID, Spec: spec, Matches: f.Matches, Fired: f.Fired})
	}
	runreport.Summarize(run)
	return run
}

// runReports lists a workspace's reports, each with its account, a page at a time, oldest
// first (in creation order, also among reports created at one instant).
func (s *Server) runReports(workspaceID string) (out []runreport.Report) {
	defer func() { slices.Reverse(out) }() // Reports lists the newest first
	for after := ""; ; {
		page, err := s.Reports(workspaceID, ReportFilter{After: after, Limit: 500})
		if err != nil {
			return out
		}
		for _, sum := range page.Reports {
			acc, err := s.ReportAccount(sum.ID)
			if err != nil {
				continue // gone with a reset while the report was gathered
			}
			rep := reportOf(acc)
			s.nameAndVerdict(&rep)
			out = append(out, rep)
		}
		if page.Next == "" {
			return out
		}
		after = page.Next
	}
}

// nameAndVerdict gives rep its name and verdict by the core's rules (Core.ShownName,
// core.VerdictOf); it leaves them empty for a report gone with a reset meanwhile.
func (s *Server) nameAndVerdict(rep *runreport.Report) {
	id, err := parseReportID(rep.ID)
	if err != nil {
		return
	}
	r, ok := s.core.ReportByID(id)
	if !ok {
		return
	}
	rep.Name = s.core.ShownName(r)
	if v := core.VerdictOf(&r); v.Judged {
		rep.Verdict = &runreport.Verdict{Passed: v.Passed, RequiredFailures: v.RequiredFailures, RequiredTotal: v.RequiredTotal, Standard: v.Standard}
	}
}

func (s *Server) runEndpoint(workspaceID string, ep WebhookEndpoint) runreport.Endpoint {
	out := runreport.Endpoint{
		ID: ep.ID, WorkspaceID: workspaceID, URL: ep.URL, Events: orEmpty(ep.Events), SeriesID: ep.SeriesID,
		Enabled: ep.Enabled, Source: ep.Source, CreatedAt: ep.CreatedAt.UTC(), Deliveries: []runreport.Delivery{},
	}
	deliveries, _ := s.WebhookDeliveries(ep.ID)
	for _, d := range deliveries {
		out.Deliveries = append(out.Deliveries, deliveryOf(d))
	}
	return out
}

// assignAttempts files the event record's webhook attempts (failed and delivered) under their
// deliveries, oldest first, by the delivery id each attempt event names.
func assignAttempts(run *runreport.Run, events []Event) {
	byID := map[string]*runreport.Delivery{}
	for i := range run.Endpoints {
		for j := range run.Endpoints[i].Deliveries {
			d := &run.Endpoints[i].Deliveries[j]
			byID[d.ID] = d
		}
	}
	for _, e := range events {
		if e.Kind != EventDeliveryFailed && e.Kind != EventDeliverySucceeded {
			continue
		}
		if d := byID[eventAttr(e, "delivery_id")]; d != nil {
			d.AttemptLog = append(d.AttemptLog, eventOf(e))
		}
	}
}

// eventsOfKind are the events of one kind, oldest first.
func eventsOfKind(events []Event, kind string) []runreport.Event {
	out := []runreport.Event{}
	for _, e := range events {
		if e.Kind == kind {
			out = append(out, eventOf(e))
		}
	}
	return out
}

func eventOf(e Event) runreport.Event {
	out := runreport.Event{
		At: e.At.UTC(), Level: e.Level.String(), Kind: e.Kind, Message: e.Message,
		WorkspaceID: e.WorkspaceID, ReportID: e.ReportID, Attrs: make([]runreport.Attr, 0, len(e.Attrs)),
	}
	for _, a := range e.Attrs {
		out.Attrs = append(out.Attrs, runreport.Attr{Key: a.Key, Value: a.Value.Resolve().String()})
	}
	return out
}

func reportOf(acc ReportAccount) runreport.Report {
	r := acc.Report
	out := runreport.Report{
		ID: r.ID, WorkspaceID: r.WorkspaceID, SeriesID: r.SeriesID, Source: r.Source, Status: r.Status,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), Failure: acc.Failure,
		Timeline: []runreport.StatusChange{}, Checks: []runreport.Check{},
		Loudness:    runreport.Loudness{StepMS: acc.Loudness.Step.Milliseconds(), WindowMS: acc.Loudness.Window.Milliseconds(), LUFS: make(runreport.Series, len(acc.Loudness.LUFS))},
		DeliveryIDs: []string{}, EmailIDs: []string{},
	}
	for _, c := range acc.Timeline {
		out.Timeline = append(out.Timeline, runreport.StatusChange{Status: c.Status, At: c.At.UTC(), Reason: c.Reason})
	}
	if m := acc.Measured; m != nil {
		out.Measured = &runreport.Measured{
			Format: m.Format, Codec: m.Codec, DurationMS: m.Duration.Milliseconds(), SampleRate: m.SampleRate,
			Channels: m.Channels, BitRate: m.BitRate, IntegratedLUFS: finite(m.IntegratedLUFS),
			TruePeakDBTP: finite(m.TruePeakDB), SamplePeakDBFS: finite(m.SamplePeakDB), LoudnessRange: m.LoudnessRange,
			LeadingSilenceMS: msOf(m.LeadingSilence), TrailingSilenceMS: msOf(m.TrailingSilence),
			LongestSilenceMS: msOf(m.LongestSilence), ClippingRuns: m.ClippingRuns,
		}
		if out.Measured.LoudnessRange != nil {
			out.Measured.LoudnessRange = finite(*out.Measured.LoudnessRange)
		}
	}
	for _, c := range acc.Checks {
		out.Checks = append(out.Checks, runreport.Check{ID: c.ID, Name: c.Name, Value: c.Value, Limit: c.Limit, Severity: c.Severity, Passed: c.Passed, Why: c.Why})
	}
	for i, v := range acc.Loudness.LUFS {
		if !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) {
			x := math.Round(float64(v)*100) / 100 // the series is kept to 0.01 LU
			out.Loudness.LUFS[i] = &x
		}
	}
	for _, d := range acc.Deliveries {
		out.DeliveryIDs = append(out.DeliveryIDs, d.ID)
	}
	for _, e := range acc.Emails {
		out.EmailIDs = append(out.EmailIDs, e.ID)
	}
	return out
}

func deliveryOf(d WebhookDelivery) runreport.Delivery {
	out := runreport.Delivery{
		ID: d.ID, EndpointID: d.EndpointID, EventType: d.EventType, WebhookID: d.WebhookID, Status: d.Status,
		Attempts: d.Attempts, FailedAttempts: d.FailedAttempts, Test: d.Test, CreatedAt: d.CreatedAt.UTC(),
		AttemptLog: []runreport.Event{}, Body: d.Body,
	}
	if d.ResponseCode != nil {
		out.ResponseCode = *d.ResponseCode
	}
	if d.LastError != nil {
		out.LastError = *d.LastError
	}
	if !d.LastAttemptAt.IsZero() {
		t := d.LastAttemptAt.UTC()
		out.LastAttemptAt = &t
	}
	if !d.NextAttemptAt.IsZero() {
		t := d.NextAttemptAt.UTC()
		out.NextAttemptAt = &t
	}
	if len(out.Body) == 0 || !json.Valid(out.Body) {
		out.Body = json.RawMessage("null")
	}
	return out
}

func emailOf(e Email) runreport.Email {
	return runreport.Email{ID: e.ID, WorkspaceID: e.WorkspaceID, Kind: e.Kind, To: orEmpty(e.To), Subject: e.Subject, Text: e.Text, SentAt: e.SentAt.UTC()}
}

func journalEntryOf(e JournalEntry) runreport.JournalEntry {
	return runreport.JournalEntry{
		ID: e.ID, At: e.At.UTC(), Method: e.Method, Path: e.Path, PathTruncated: e.PathTruncated,
		Query: e.Query, QueryTruncated: e.QueryTruncated, Status: e.Status, WorkspaceID: e.WorkspaceID,
		APIKeyID: e.APIKeyID, MaskedKey: e.MaskedKey, RequestContentType: e.RequestContentType,
		RequestContentTypeTruncated: e.RequestContentTypeTruncated, RequestBody: e.RequestBody,
		RequestBodyTruncated: e.RequestBodyTruncated, ErrorCode: e.ErrorCode,
		DurationMS: float64(e.Duration.Microseconds()) / 1000,
	}
}

func msOf(d *time.Duration) *int64 {
	if d == nil {
		return nil
	}
	ms := d.Milliseconds()
	return &ms
}

// orEmpty is s, or an empty slice for nil, so that the JSON holds [] rather than null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// eventAttr is the value of an event's attribute key as text, "" when absent.
func eventAttr(e Event, key string) string {
	for _, a := range e.Attrs {
		if a.Key == key {
			return a.Value.Resolve().String()
		}
	}
	return ""
}
