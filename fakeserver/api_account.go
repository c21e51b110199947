package fakeserver

import (
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
	a, err := s.core.AccountOf(reportID)
	if err != nil {
		return ReportAccount{}, err
	}
	r := a.Report
	acc := ReportAccount{
		Report:     reportSummary(r),
		Timeline:   make([]StatusChange, len(r.Timeline)),
		Failure:    a.Failure,
		Checks:     make([]CheckAccount, 0, len(r.Results)),
		Deliveries: make([]WebhookDelivery, len(a.Deliveries)),
		Emails:     make([]Email, len(a.Emails)),
		Loudness:   loudnessSeries(nil),
	}
	for i, st := range r.Timeline {
		acc.Timeline[i] = StatusChange(st)
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
		acc.Checks = append(acc.Checks, CheckAccount(reportview.CheckOf(res)))
	}
	for i, d := range a.Deliveries {
		acc.Deliveries[i] = deliveryView(d)
	}
	for i, e := range a.Emails {
		acc.Emails[i] = emailView(e)
	}
	return acc, nil
}

// parseReportID reads a report id: malformed is a 400, not a 404 (core.ParseReportID).
func parseReportID(s string) (uuid.UUID, error) { return core.ParseReportID(s) }

// loudnessSeries is the core's series as an account shows it (reportview.Loudness).
func loudnessSeries(series []int16) LoudnessSeries {
	return LoudnessSeries{Step: reportview.LoudnessStep, Window: reportview.LoudnessWindow, LUFS: reportview.Loudness(series)}
}

// CreditsChange changes a workspace's plan figures; nil fields stay as they are. PlanAllowance
// and PlanUsed are whole credits, from 0 to MaxPlanCredits.
type CreditsChange struct {
	PlanAllowance   *float64 `json:"plan_allowance,omitempty"`
	PlanUsed        *float64 `json:"plan_used,omitempty"`
	ChargingEnabled *bool    `json:"charging_enabled,omitempty"`
}

// SetCredits changes a workspace's plan allowance, credits used this period, or charging
// switch. Read the result over REST (GET /credits), as a client would.
func (s *Server) SetCredits(workspaceID string, change CreditsChange) (err error) {
	defer apiError(&err)
	_, err = s.setCredits(workspaceID, change)
	return err
}

func (s *Server) setCredits(workspaceID string, change CreditsChange) (core.Credits, error) {
	return s.core.ChangeCredits(workspaceID, change.PlanAllowance, change.PlanUsed, change.ChargingEnabled)
}

// MaxPlanCredits bounds a plan's allowance and credits used as the Go API, the control API and
// the fixtures set them: whole credits, so that no value is rounded out of sight.
const MaxPlanCredits = maxFixtureCredits

// TopupSpec describes a top-up of credits bought for a workspace.
type TopupSpec struct {
	// Amount is how many credits the top-up adds, at least 1.
	Amount int
	// ExpiresAt is when the top-up's unused credits expire; zero means twelve months after it
	// is bought, on the fake's clock.
	ExpiresAt time.Time
	// NeverExpires makes the credits last until they are used; ExpiresAt must then be zero.
	NeverExpires bool
}

// AddTopup buys a top-up for a workspace, as the dashboard's billing page does.
func (s *Server) AddTopup(workspaceID string, spec TopupSpec) (err error) {
	defer apiError(&err)
	_, err = s.addTopup(workspaceID, spec)
	return err
}

func (s *Server) addTopup(workspaceID string, spec TopupSpec) (core.Credits, error) {
	return s.core.BuyTopup(workspaceID, spec.Amount, spec.ExpiresAt, spec.NeverExpires)
}
