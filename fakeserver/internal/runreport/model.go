// Package runreport is the report of a fake's run for CI: what the fake saw and did (reports
// with their accounts, webhook deliveries, emails, the request journal, faults that fired, the
// clock's moves) as one JSON document and one self-contained HTML page with the same content,
// written atomically into a directory. The fakeserver package gathers a Run from its state; this
// package sums it up, renders and writes it.
package runreport

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Format names the JSON document's shape; it changes only when a field changes meaning or goes.
const Format = "podqa-fake-run-report/1"

// Why a report was written.
const (
	ReasonStop    = "stop"    // the fake stopped (Close, SIGTERM, SIGINT)
	ReasonRequest = "request" // POST /_fake/report or WriteRunReport
)

// Run is everything one run report holds. Times are on the fake's clock, in UTC.
type Run struct {
	Format string `json:"format"`
	RunID  string `json:"run_id"`
	// Reason is ReasonStop or ReasonRequest.
	Reason    string    `json:"reason"`
	WrittenAt time.Time `json:"written_at"`
	BaseURL   string    `json:"base_url"`
	Clock     Clock     `json:"clock"`
	// Summary is computed from the rest by Summarize.
	Summary    Summary     `json:"summary"`
	Workspaces []Workspace `json:"workspaces"`
	// Reports are every report of every workspace, oldest first, each with its account.
	Reports   []Report   `json:"reports"`
	Endpoints []Endpoint `json:"webhook_endpoints"`
	Emails    []Email    `json:"emails"`
	Journal   Journal    `json:"journal"`
	Faults    Faults     `json:"faults"`
	// Bounds says what the JSON document left out to stay under MaxJSON; WriteJSON fills it.
	Bounds Bounds `json:"bounds"`
}

// Clock is the fake's clock and how it moved.
type Clock struct {
	// Mode is "manual" or "real".
	Mode string    `json:"mode"`
	Now  time.Time `json:"now"`
	// Moves are the clock's advances, oldest first, from the fake's event record.
	Moves []Event `json:"moves"`
}

// Event is one entry of the fake's event record: what happened, when on the fake clock, with
// its attributes as text.
type Event struct {
	At          time.Time `json:"at"`
	Level       string    `json:"level"`
	Kind        string    `json:"kind"`
	Message     string    `json:"message"`
	WorkspaceID string    `json:"workspace_id"`
	ReportID    string    `json:"report_id"`
	Attrs       []Attr    `json:"attrs"`
}

// Attr is one attribute of an Event.
type Attr struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Workspace is a workspace of the fake.
type Workspace struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Name string `json:"name"`
}

// Report is a report with its account.
type Report struct {
	ID          string `json:"id"`
	WorkspaceID string `json:"workspace_id"`
	SeriesID    string `json:"series_id"`
	Source      string `json:"source"`
	Status      string `json:"status"`
	// Name is what lists call the report: its title tag, its episode's title or its file
	// name (core.Core.ShownName).
	Name string `json:"name"`
	// Verdict is the judgement of a COMPLETE report against its standard; nil before.
	Verdict   *Verdict  `json:"verdict"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Failure is why a FAILED or OUT_OF_QUOTA report ended so; empty otherwise.
	Failure  string         `json:"failure"`
	Timeline []StatusChange `json:"timeline"`
	// Measured is what the analysis measured; nil unless the report was analysed.
	Measured *Measured `json:"measured"`
	Checks   []Check   `json:"checks"`
	Loudness Loudness  `json:"loudness"`
	// DeliveryIDs and EmailIDs name the webhook deliveries and emails the report caused.
	DeliveryIDs []string `json:"delivery_ids"`
	EmailIDs    []string `json:"email_ids"`
}

// Verdict is whether a judged report passed its standard: it passes when no required check
// failed (an info check that fails does not fail it).
type Verdict struct {
	Passed           bool `json:"passed"`
	RequiredFailures int  `json:"required_failures"`
	RequiredTotal    int  `json:"required_total"`
	// Standard is the name of the standard the report was judged by.
	Standard string `json:"standard"`
}

// StatusChange is one step of a report's status timeline.
type StatusChange struct {
	Status string    `json:"status"`
	At     time.Time `json:"at"`
	Reason string    `json:"reason"`
}

// Measured is what the analysis of a report's audio measured. Loudness and peaks are nil
// where they have no finite value (the integrated loudness of silence); the silences and the
// clipping runs are nil when the analysis did not measure them.
type Measured struct {
	Format         string   `json:"format"`
	Codec          string   `json:"codec"`
	DurationMS     int64    `json:"duration_ms"`
	SampleRate     int      `json:"sample_rate"`
	Channels       int      `json:"channels"`
	BitRate        int64    `json:"bit_rate"`
	IntegratedLUFS *float64 `json:"integrated_lufs"`
	TruePeakDBTP   *float64 `json:"true_peak_dbtp"`
	SamplePeakDBFS *float64 `json:"sample_peak_dbfs"`
	LoudnessRange  *float64 `json:"loudness_range_lu"`
	// The silences under -60 dBFS, in milliseconds.
	LeadingSilenceMS  *int64 `json:"leading_silence_ms"`
	TrailingSilenceMS *int64 `json:"trailing_silence_ms"`
	LongestSilenceMS  *int64 `json:"longest_silence_ms"`
	ClippingRuns      *int   `json:"clipping_runs"`
}

// Check is one check of the report's standard: the value against its limit and why it passed or
// failed.
type Check struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Value string `json:"value"`
	Limit string `json:"limit"`
	// Severity is required or info: an info check that fails does not fail the report.
	Severity string `json:"severity"`
	Passed   bool   `json:"passed"`
	Why      string `json:"why"`
}

// Loudness is a report's short-term loudness series.
type Loudness struct {
	StepMS   int64 `json:"step_ms"`
	WindowMS int64 `json:"window_ms"`
	// LUFS holds one value per step; nil (JSON null) where the audio was silent or gated.
	LUFS Series `json:"lufs"`
}

// Series is a loudness series; its JSON is written by hand, an array of numbers and nulls, as
// it is most of a report's bytes (3,600 values an hour of audio).
type Series []*float64

// MarshalJSON writes s as a JSON array, each value in its shortest form.
func (s Series) MarshalJSON() ([]byte, error) {
	if s == nil {
		return []byte("[]"), nil
	}
	b := make([]byte, 0, 2+len(s)*7)
	b = append(b, '[')
	for i, v := range s {
		if i > 0 {
			b = append(b, ',')
		}
		if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
			b = append(b, "null"...)
			continue
		}
		b = strconv.AppendFloat(b, *v, 'f', -1, 64)
	}
	return append(b, ']'), nil
}

// Endpoint is a webhook endpoint with its deliveries.
type Endpoint struct {
	ID          string     `json:"id"`
	WorkspaceID string     `json:"workspace_id"`
	URL         string     `json:"url"`
	Events      []string   `json:"events"`
	SeriesID    string     `json:"series_id"`
	Enabled     bool       `json:"enabled"`
	Source      string     `json:"source"`
	CreatedAt   time.Time  `json:"created_at"`
	Deliveries  []Delivery `json:"deliveries"`
}

// Delivery is one webhook delivery with its attempts.
type Delivery struct {
	ID         string `json:"id"`
	EndpointID string `json:"endpoint_id"`
	EventType  string `json:"event_type"`
	WebhookID  string `json:"webhook_id"`
	// Status is pending, retrying, succeeded or abandoned.
	Status         string `json:"status"`
	Attempts       int    `json:"attempts"`
	FailedAttempts int    `json:"failed_attempts"`
	// ResponseCode is the last attempt's HTTP status; 0 when no attempt got an answer.
	ResponseCode int       `json:"response_code"`
	LastError    string    `json:"last_error"`
	Test         bool      `json:"test"`
	CreatedAt    time.Time `json:"created_at"`
	// LastAttemptAt and NextAttemptAt are absent (JSON null) when there is none.
	LastAttemptAt *time.Time `json:"last_attempt_at"`
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	// AttemptLog is each attempt the event record kept, oldest first.
	AttemptLog []Event `json:"attempt_log"`
	// Body is the event body as signed and sent.
	Body json.RawMessage `json:"body"`
}

// Email is an email the service would have sent.
type Email struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspace_id"`
	Kind        string    `json:"kind"`
	To          []string  `json:"to"`
	Subject     string    `json:"subject"`
	Text        string    `json:"text"`
	SentAt      time.Time `json:"sent_at"`
}

// Journal is the request journal as the fake kept it.
type Journal struct {
	// Size is how many entries the journal keeps at most (0: it was off); BodyLimit how many
	// bytes of a body an entry keeps.
	Size      int `json:"size"`
	BodyLimit int `json:"body_limit"`
	// Entries are oldest first.
	Entries []JournalEntry `json:"entries"`
}

// JournalEntry is one request of the journal, cut as the journal cut it (the *_truncated flags
// say where).
type JournalEntry struct {
	ID                          string    `json:"id"`
	At                          time.Time `json:"at"`
	Method                      string    `json:"method"`
	Path                        string    `json:"path"`
	PathTruncated               bool      `json:"path_truncated"`
	Query                       string    `json:"query"`
	QueryTruncated              bool      `json:"query_truncated"`
	Status                      int       `json:"status"`
	WorkspaceID                 string    `json:"workspace_id"`
	APIKeyID                    string    `json:"api_key_id"`
	MaskedKey                   string    `json:"masked_key"`
	RequestContentType          string    `json:"request_content_type"`
	RequestContentTypeTruncated bool      `json:"request_content_type_truncated"`
	RequestBody                 string    `json:"request_body"`
	RequestBodyTruncated        bool      `json:"request_body_truncated"`
	ErrorCode                   string    `json:"error_code"`
	DurationMS                  float64   `json:"duration_ms"`
}

// Faults are the faults armed when the report was written and those that fired during the run.
type Faults struct {
	Armed []ArmedFault `json:"armed"`
	// Fired are the fault firings the event record kept, oldest first.
	Fired []Event `json:"fired"`
}

// ArmedFault is an armed fault in the control API's shape, with its counts.
type ArmedFault struct {
	ID string `json:"id"`
	// Spec is the fault as POST /_fake/faults takes it.
	Spec    json.RawMessage `json:"spec"`
	Matches int             `json:"matches"`
	Fired   int             `json:"fired"`
}

// Summary sums a run up: counts by status, and its failures first.
type Summary struct {
	// Failures are the failing reports (FAILED, OUT_OF_QUOTA, then COMPLETE reports that did
	// not pass), then the endpoints with deliveries not delivered (one row per endpoint), then
	// requests answered 5xx.
	Failures []Failure `json:"failures"`
	// Endpoints sum each webhook endpoint's deliveries up, in the order of the run's endpoints.
	Endpoints          []EndpointSummary `json:"webhook_endpoints"`
	Reports            int               `json:"reports"`
	ReportsByStatus    map[string]int    `json:"reports_by_status"`
	Deliveries         int               `json:"deliveries"`
	DeliveriesByStatus map[string]int    `json:"deliveries_by_status"`
	Requests           int               `json:"requests"`
	// RequestsByStatus is keyed by the HTTP status as text ("200").
	RequestsByStatus map[string]int `json:"requests_by_status"`
	Emails           int            `json:"emails"`
	FaultsFired      int            `json:"faults_fired"`
	ClockMoves       int            `json:"clock_moves"`
}

// Failure is one failure of the run.
type Failure struct {
	// Kind is report, endpoint or request.
	Kind string `json:"kind"`
	ID   string `json:"id"`
	// Name is a report's name, an endpoint's URL or a request's method and path.
	Name string `json:"name"`
	// Status is a report's status, an endpoint's failing deliveries by status ("17 retrying,
	// 2 abandoned") or a request's HTTP status.
	Status string    `json:"status"`
	At     time.Time `json:"at"`
	Reason string    `json:"reason"`
}

// EndpointSummary sums one webhook endpoint's deliveries up: how many of each status, and the
// error most of its failing deliveries share.
type EndpointSummary struct {
	ID          string         `json:"id"`
	WorkspaceID string         `json:"workspace_id"`
	URL         string         `json:"url"`
	Enabled     bool           `json:"enabled"`
	Deliveries  int            `json:"deliveries"`
	ByStatus    map[string]int `json:"by_status"`
	// Failing counts the deliveries retrying or abandoned.
	Failing int `json:"failing"`
	// CommonError is the last error most failing deliveries share, CommonErrorCount how many
	// share it; "" and 0 when none fails.
	CommonError      string `json:"common_error"`
	CommonErrorCount int    `json:"common_error_count"`
	// LastAttemptAt is the latest attempt of any of its deliveries; null when none was made.
	LastAttemptAt *time.Time `json:"last_attempt_at"`
}

// Bounds says what the JSON document left out to stay under its size: MaxBytes (MaxJSON), the
// rows of each section left out (the newest rows, and the failing reports, are kept first),
// and how many texts were cut with a marker.
type Bounds struct {
	MaxBytes int     `json:"max_bytes"`
	Omitted  Omitted `json:"omitted"`
	// TextsCut counts the texts (request bodies, paths, reasons…) cut to their share, each
	// ending in a marker that says how many bytes it lost.
	TextsCut int `json:"texts_cut"`
}

// Omitted counts the rows of each section the JSON document left out.
type Omitted struct {
	Failures int `json:"failures"`
	// EndpointSums are rows of summary.webhook_endpoints left out.
	EndpointSums int `json:"summary_webhook_endpoints"`
	Endpoints    int `json:"webhook_endpoints"`
	Workspaces   int `json:"workspaces"`
	Reports      int `json:"reports"`
	// Deliveries are webhook deliveries left out of their endpoints.
	Deliveries  int `json:"deliveries"`
	Emails      int `json:"emails"`
	Journal     int `json:"journal"`
	FaultsArmed int `json:"faults_armed"`
	FaultsFired int `json:"faults_fired"`
	ClockMoves  int `json:"clock_moves"`
}

// The statuses that count as failures.
var (
	failedReport   = map[string]bool{"FAILED": true, "OUT_OF_QUOTA": true}
	failedDelivery = map[string]bool{"retrying": true, "abandoned": true}
)

// failingStatuses are the delivery statuses an endpoint's failure row counts, in its order.
var failingStatuses = []string{"retrying", "abandoned"}

// NotPassed says whether rep completed but did not pass its standard.
func NotPassed(rep *Report) bool {
	return rep.Status == "COMPLETE" && rep.Verdict != nil && !rep.Verdict.Passed
}

// failing says whether rep is among the run's failures: FAILED, OUT_OF_QUOTA, or COMPLETE and
// not passed.
func failing(rep *Report) bool { return failedReport[rep.Status] || NotPassed(rep) }

// notPassedReason says which required checks a report that did not pass failed.
func notPassedReason(rep *Report) string {
	var ids []string
	for _, c := range rep.Checks {
		if c.Severity != "info" && !c.Passed {
			ids = append(ids, c.ID)
		}
	}
	v := rep.Verdict
	reason := fmt.Sprintf("did not pass %s: %d of %d required checks failed", v.Standard, v.RequiredFailures, v.RequiredTotal)
	if len(ids) > 0 {
		reason += " (" + strings.Join(ids, ", ") + ")"
	}
	return reason
}

// Summarize fills r.Summary from the rest of r.
func Summarize(r *Run) {
	s := Summary{
		Failures:           []Failure{},
		Endpoints:          []EndpointSummary{},
		ReportsByStatus:    map[string]int{},
		DeliveriesByStatus: map[string]int{},
		RequestsByStatus:   map[string]int{},
		Reports:            len(r.Reports),
		Requests:           len(r.Journal.Entries),
		Emails:             len(r.Emails),
		FaultsFired:        len(r.Faults.Fired),
		ClockMoves:         len(r.Clock.Moves),
	}
	var notPassed []Failure
	for i := range r.Reports {
		rep := &r.Reports[i]
		s.ReportsByStatus[rep.Status]++
		switch {
		case failedReport[rep.Status]:
			s.Failures = append(s.Failures, Failure{Kind: "report", ID: rep.ID, Name: rep.Name, Status: rep.Status, At: rep.UpdatedAt, Reason: rep.Failure})
		case NotPassed(rep):
			notPassed = append(notPassed, Failure{Kind: "report", ID: rep.ID, Name: rep.Name, Status: rep.Status, At: rep.UpdatedAt, Reason: notPassedReason(rep)})
		}
	}
	s.Failures = append(s.Failures, notPassed...)
	var endpoints []Failure
	for _, ep := range r.Endpoints {
		sum := summarizeEndpoint(ep)
		s.Endpoints = append(s.Endpoints, sum)
		s.Deliveries += sum.Deliveries
		for st, n := range sum.ByStatus {
			s.DeliveriesByStatus[st] += n
		}
		if f, ok := endpointFailure(ep, sum); ok {
			endpoints = append(endpoints, f)
		}
	}
	slices.SortStableFunc(endpoints, func(a, b Failure) int { return a.At.Compare(b.At) })
	s.Failures = append(s.Failures, endpoints...)
	for _, e := range r.Journal.Entries {
		s.RequestsByStatus[strconv.Itoa(e.Status)]++
		if e.Status >= 500 {
			s.Failures = append(s.Failures, Failure{Kind: "request", ID: e.ID, Name: e.Method + " " + e.Path, Status: strconv.Itoa(e.Status), At: e.At, Reason: cmp.Or(e.ErrorCode, e.Method+" "+e.Path)})
		}
	}
	r.Summary = s
}

// summarizeEndpoint counts ep's deliveries by status and finds the error most of its failing
// ones share (the earliest such error on a tie, for a stable answer).
func summarizeEndpoint(ep Endpoint) EndpointSummary {
	sum := EndpointSummary{ID: ep.ID, WorkspaceID: ep.WorkspaceID, URL: ep.URL, Enabled: ep.Enabled, Deliveries: len(ep.Deliveries), ByStatus: map[string]int{}}
	errs := map[string]int{}
	var order []string
	for _, d := range ep.Deliveries {
		sum.ByStatus[d.Status]++
		if d.LastAttemptAt != nil && (sum.LastAttemptAt == nil || d.LastAttemptAt.After(*sum.LastAttemptAt)) {
			t := *d.LastAttemptAt
			sum.LastAttemptAt = &t
		}
		if !failedDelivery[d.Status] {
			continue
		}
		sum.Failing++
		if errs[d.LastError] == 0 {
			order = append(order, d.LastError)
		}
		errs[d.LastError]++
	}
	for _, e := range order {
		if errs[e] > sum.CommonErrorCount {
			sum.CommonError, sum.CommonErrorCount = e, errs[e]
		}
	}
	return sum
}

// endpointFailure is the failure row of an endpoint with failing deliveries: their counts by
// status and the error they share, at the latest attempt.
func endpointFailure(ep Endpoint, sum EndpointSummary) (Failure, bool) {
	if sum.Failing == 0 {
		return Failure{}, false
	}
	var parts []string
	for _, st := range failingStatuses {
		if n := sum.ByStatus[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	at := ep.CreatedAt
	if sum.LastAttemptAt != nil {
		at = *sum.LastAttemptAt
	}
	reason := fmt.Sprintf("%d of %d failing deliveries: %s", sum.CommonErrorCount, sum.Failing, cmp.Or(sum.CommonError, "no error recorded"))
	if sum.CommonErrorCount == sum.Failing {
		reason = fmt.Sprintf("all %d failing deliveries: %s", sum.Failing, cmp.Or(sum.CommonError, "no error recorded"))
	}
	return Failure{Kind: "endpoint", ID: ep.ID, Name: ep.URL, Status: strings.Join(parts, ", "), At: at, Reason: reason}, true
}
