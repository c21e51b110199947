package fakeserver

import (
	"encoding/json"
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/reportview"
)

// ReportAccount is everything the fake knows about one report, for a test author who wants to
// know why it ended as it did: what (*Server).ReportAccount and GET /_fake/reports/{id} give.
type ReportAccount struct {
	Report ReportSummary
	// Timeline is every status the report took, oldest first, on the fake's clock.
	Timeline []StatusChange
	// Failure says why a FAILED report failed (the analysis error) or why an OUT_OF_QUOTA one
	// was not analysed (the balance and the cost); "" for other statuses.
	Failure string
	// Measured is what analysis found; nil until the audio was measured.
	Measured *Measurement
	// Checks are the checks of the report's standard, as judged at completion; empty before.
	Checks []CheckAccount
	// Loudness is the short-term loudness of the audio, one value per second; empty until
	// measured, and for reports whose audio was never analysed (SeedReports).
	Loudness LoudnessSeries
	// Deliveries are the webhook deliveries of this report's events that the endpoints' logs
	// still hold (each endpoint keeps its most recent ones), oldest first.
	Deliveries []WebhookDelivery
	// Emails are the emails sent about this report, oldest first.
	Emails []Email
}

// StatusChange is one step of a report's timeline.
type StatusChange struct {
	Status string
	// At is the fake clock's time of the change.
	At time.Time
	// Reason is set on FAILED and OUT_OF_QUOTA: why.
	Reason string
}

// Measurement is what analysis found in a report's audio.
type Measurement struct {
	// Format and Codec are the container and codec names (for example "mp3", "wav"/"pcm_s16le").
	Format, Codec string
	Duration      time.Duration
	SampleRate    int
	Channels      int
	// BitRate is in bits per second; 0 when unknown.
	BitRate int64
	// IntegratedLUFS is the integrated loudness (−Inf for silence); TruePeakDB and SamplePeakDB
	// are in dBTP and dBFS.
	IntegratedLUFS, TruePeakDB, SamplePeakDB float64
	// LoudnessRange is in LU; nil when not measured.
	LoudnessRange *float64
	// LeadingSilence, TrailingSilence and LongestSilence are silences under −60 dBFS; nil when
	// not measured.
	LeadingSilence, TrailingSilence, LongestSilence *time.Duration
	// ClippingRuns counts runs of clipped samples; nil when not measured.
	ClippingRuns *int
}

// CheckAccount is one check of the report's standard: the value measured against its limit,
// and why it passed or failed.
type CheckAccount struct {
	// ID is the check's name in the report's results (for example "integrated_loudness").
	ID string
	// Name is its human name.
	Name string
	// Value is the measured value with its unit; Limit the standard's limit ("" when the check
	// has none).
	Value, Limit string
	// Severity is required or info: an info check that fails does not fail the report.
	Severity string
	Passed   bool
	// Why says why the check passed or failed.
	Why string
}

// LoudnessSeries is a report's short-term loudness over time (BS.1770 / EBU R128 short term:
// a Window-long window every Step). The fake keeps it at 2 bytes a second of audio (hundredths
// of a LU): 7,200 bytes an hour.
type LoudnessSeries struct {
	Step, Window time.Duration
	// LUFS holds one value per Step: value i is the window ending at Window + i×Step (so audio
	// shorter than Window has none); NaN where the window is at or under the absolute gate
	// (−70 LUFS).
	LUFS []float32
}

// ReportAccount returns the account of a report of any workspace: its timeline, the reason of
// a failure, what was measured and judged, and the deliveries and emails it caused. An id that
// is not a UUID is a 400 *Error, an unknown one a 404.
func (s *Server) ReportAccount(reportID string) (_ ReportAccount, err error) {
	defer apiError(&err)
	id, err := parseReportID(reportID)
	if err != nil {
		return ReportAccount{}, err
	}
	r, ok := s.core.ReportByID(id)
	if !ok {
		return ReportAccount{}, core.ErrNotFound("Report")
	}
	deliveries, emails := s.core.ReportTrail(id)
	acc := ReportAccount{
		Report:     reportSummary(r),
		Timeline:   make([]StatusChange, len(r.Timeline)),
		Checks:     make([]CheckAccount, 0, len(r.Results)),
		Deliveries: make([]WebhookDelivery, len(deliveries)),
		Emails:     make([]Email, len(emails)),
		Loudness:   loudnessSeries(nil),
	}
	for i, st := range r.Timeline {
		acc.Timeline[i] = StatusChange(st)
	}
	if r.Status == core.StatusFailed || r.Status == core.StatusOutOfQuota {
		acc.Failure = r.FailureReason
	}
	if m := r.Measurement; m != nil {
		acc.Loudness = loudnessSeries(m.ShortTermLoudness)
		acc.Measured = &Measurement{
			Format: m.FormatName, Codec: m.CodecName, Duration: m.Duration, SampleRate: m.SampleRate,
			Channels: m.Channels, BitRate: m.BitRate, IntegratedLUFS: m.IntegratedLUFS,
			TruePeakDB: m.TruePeakDB, SamplePeakDB: m.SamplePeakDB, LoudnessRange: m.LoudnessRange,
			LeadingSilence: m.LeadingSilence, TrailingSilence: m.TrailingSilence,
			LongestSilence: m.LongestSilence, ClippingRuns: m.ClippingRuns,
		}
	}
	for _, res := range r.Results {
		acc.Checks = append(acc.Checks, checkAccount(res))
	}
	for i, d := range deliveries {
		acc.Deliveries[i] = deliveryView(d)
	}
	for i, e := range emails {
		acc.Emails[i] = emailView(e)
	}
	return acc, nil
}

// parseReportID reads a report id: malformed is a 400 here, not a 404, since the caller named
// no report at all.
func parseReportID(s string) (uuid.UUID, error) {
	u, perr := parseID(s, "Report")
	if perr != nil {
		return uuid.Nil, core.ErrValidation("%q is not a report id (a UUID).", s)
	}
	return u, nil
}

// loudnessSeries expands the core's series (hundredths of a LU) to LUFS, NaN where gated.
func loudnessSeries(series []int16) LoudnessSeries {
	out := LoudnessSeries{Step: time.Second, Window: 3 * time.Second, LUFS: make([]float32, len(series))}
	for i, v := range series {
		if v == core.GatedLoudness {
			out.LUFS[i] = float32(math.NaN())
		} else {
			out.LUFS[i] = float32(v) / 100
		}
	}
	return out
}

func checkAccount(res core.Result) CheckAccount {
	out := CheckAccount{ID: res.Name, Name: res.VerboseName, Severity: res.Severity, Passed: res.Status == core.Pass}
	var v any
	if json.Unmarshal(res.Value, &v) == nil {
		if str, ok := v.(string); ok {
			out.Value = str
		} else {
			out.Value = string(res.Value)
		}
	} else {
		out.Value = string(res.Value)
	}
	if res.MeasurementUnit != nil && *res.MeasurementUnit != "" {
		out.Value += " " + *res.MeasurementUnit
	}
	if res.Limit != nil {
		out.Limit = *res.Limit
	}
	// Why reads as a person would say it: rounded, and digital silence rather than null.
	unit, warning := "", ""
	if res.MeasurementUnit != nil {
		unit = *res.MeasurementUnit
	}
	if res.WarningMessage != nil {
		warning = *res.WarningMessage
	}
	out.Why = reportview.Why(reportview.FormatValue(res.Value, unit), out.Limit, out.Passed, warning, res.Description)
	return out
}

func emailView(e core.Email) Email {
	return Email{ID: e.ID.String(), WorkspaceID: e.Workspace.String(), Kind: e.Kind, To: e.To, Subject: e.Subject, Text: e.Text, SentAt: e.SentAt}
}
