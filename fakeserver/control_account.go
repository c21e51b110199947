package fakeserver

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/internal/apitime"
)

// reportAccountJSON is a ReportAccount as GET /_fake/reports/{id} shows it: times in the API's
// format, durations in seconds, -Inf and NaN as null.
type reportAccountJSON struct {
	Report     reportSummaryJSON  `json:"report"`
	Timeline   []statusChangeJSON `json:"timeline"`
	Failure    *string            `json:"failure"`
	Measured   *measurementJSON   `json:"measured"`
	Checks     []checkJSON        `json:"checks"`
	Loudness   loudnessJSON       `json:"loudness"`
	Deliveries []deliveryJSON     `json:"deliveries"`
	Emails     []emailJSON        `json:"emails"`
}

type reportSummaryJSON struct {
	ID          string  `json:"id"`
	WorkspaceID string  `json:"workspace_id"`
	SeriesID    *string `json:"series_id"`
	Source      string  `json:"source"`
	Status      string  `json:"status"`
	CreatedAt   string  `json:"created_at"`
	UpdatedAt   string  `json:"updated_at"`
}

type statusChangeJSON struct {
	Status string  `json:"status"`
	At     string  `json:"at"`
	Reason *string `json:"reason"`
}

type measurementJSON struct {
	Format           string   `json:"format"`
	Codec            string   `json:"codec"`
	DurationS        float64  `json:"duration_s"`
	SampleRate       int      `json:"sample_rate"`
	Channels         int      `json:"channels"`
	BitRate          int64    `json:"bit_rate"`
	IntegratedLUFS   *float64 `json:"integrated_lufs"`
	TruePeakDB       *float64 `json:"true_peak_db"`
	SamplePeakDB     *float64 `json:"sample_peak_db"`
	LoudnessRangeLU  *float64 `json:"loudness_range_lu"`
	LeadingSilenceS  *float64 `json:"leading_silence_s"`
	TrailingSilenceS *float64 `json:"trailing_silence_s"`
	LongestSilenceS  *float64 `json:"longest_silence_s"`
	ClippingRuns     *int     `json:"clipping_runs"`
}

type checkJSON struct {
	ID       string  `json:"id"`
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Limit    *string `json:"limit"`
	Severity string  `json:"severity"`
	Passed   bool    `json:"passed"`
	Why      string  `json:"why"`
}

type loudnessJSON struct {
	StepS   float64   `json:"step_s"`
	WindowS float64   `json:"window_s"`
	LUFS    lufsArray `json:"lufs"`
}

// lufsArray writes a loudness series compactly: two decimals, null where gated (NaN).
type lufsArray []float32

func (a lufsArray) MarshalJSON() ([]byte, error) {
	out := make([]byte, 0, 2+len(a)*7)
	out = append(out, '[')
	for i, v := range a {
		if i > 0 {
			out = append(out, ',')
		}
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			out = append(out, "null"...)
			continue
		}
		out = strconv.AppendFloat(out, float64(v), 'f', 2, 32)
	}
	return append(out, ']'), nil
}

// finite is v, or nil (null) when it is not a finite number (the loudness of silence is -Inf).
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func seconds(d *time.Duration) *float64 {
	if d == nil {
		return nil
	}
	s := d.Seconds()
	return &s
}

func reportAccountJSONOf(a ReportAccount) reportAccountJSON {
	out := reportAccountJSON{
		Report: reportSummaryJSON{
			ID: a.Report.ID, WorkspaceID: a.Report.WorkspaceID, SeriesID: nullable(a.Report.SeriesID),
			Source: a.Report.Source, Status: a.Report.Status,
			CreatedAt: apitime.Format(a.Report.CreatedAt), UpdatedAt: apitime.Format(a.Report.UpdatedAt),
		},
		Timeline:   make([]statusChangeJSON, len(a.Timeline)),
		Failure:    nullable(a.Failure),
		Checks:     make([]checkJSON, len(a.Checks)),
		Loudness:   loudnessJSON{StepS: a.Loudness.Step.Seconds(), WindowS: a.Loudness.Window.Seconds(), LUFS: lufsArray(a.Loudness.LUFS)},
		Deliveries: make([]deliveryJSON, len(a.Deliveries)),
		Emails:     make([]emailJSON, len(a.Emails)),
	}
	for i, st := range a.Timeline {
		out.Timeline[i] = statusChangeJSON{Status: st.Status, At: apitime.Format(st.At), Reason: nullable(st.Reason)}
	}
	if m := a.Measured; m != nil {
		out.Measured = &measurementJSON{
			Format: m.Format, Codec: m.Codec, DurationS: m.Duration.Seconds(), SampleRate: m.SampleRate,
			Channels: m.Channels, BitRate: m.BitRate, IntegratedLUFS: finite(m.IntegratedLUFS),
			TruePeakDB: finite(m.TruePeakDB), SamplePeakDB: finite(m.SamplePeakDB),
			LeadingSilenceS: seconds(m.LeadingSilence), TrailingSilenceS: seconds(m.TrailingSilence),
			LongestSilenceS: seconds(m.LongestSilence), ClippingRuns: m.ClippingRuns,
		}
		if m.LoudnessRange != nil {
			out.Measured.LoudnessRangeLU = finite(*m.LoudnessRange)
		}
	}
	for i, c := range a.Checks {
		out.Checks[i] = checkJSON{ID: c.ID, Name: c.Name, Value: c.Value, Limit: nullable(c.Limit), Severity: c.Severity, Passed: c.Passed, Why: c.Why}
	}
	for i, d := range a.Deliveries {
		out.Deliveries[i] = deliveryJSONOf(d)
	}
	for i, e := range a.Emails {
		out.Emails[i] = emailJSONOf(e)
	}
	return out
}

func emailJSONOf(e Email) emailJSON {
	return emailJSON{ID: e.ID, WorkspaceID: e.WorkspaceID, Kind: e.Kind, To: e.To, Subject: e.Subject, Text: e.Text, SentAt: apitime.Format(e.SentAt)}
}

// handleReportAccount answers GET /_fake/reports/{id}: the account of one report of any
// workspace.
func (s *Server) handleReportAccount(w http.ResponseWriter, r *http.Request) {
	a, err := s.ReportAccount(httpmw.PathID(r, "id"))
	respond(w, http.StatusOK, reportAccountJSONOf(a), err)
}
