package control

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/reportview"
	"github.com/podqa/podqa-go/internal/apitime"
)

// reportAccountJSON is a report's account (core.AccountOf; fakeserver.ReportAccount) as
// GET /_fake/reports/{id} shows it: times in the API's format, durations in seconds, -Inf and
// NaN as null.
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

func reportAccountJSONOf(a core.ReportAccount) reportAccountJSON {
	r := a.Report
	out := reportAccountJSON{
		Report: reportSummaryJSON{
			ID: r.ID.String(), WorkspaceID: r.Workspace.String(), Source: r.Source, Status: r.Status,
			CreatedAt: apitime.Format(r.CreatedAt), UpdatedAt: apitime.Format(r.UpdatedAt),
		},
		Timeline:   make([]statusChangeJSON, len(r.Timeline)),
		Failure:    nullable(a.Failure),
		Checks:     make([]checkJSON, len(r.Results)),
		Loudness:   loudnessJSON{StepS: reportview.LoudnessStep.Seconds(), WindowS: reportview.LoudnessWindow.Seconds(), LUFS: lufsArray{}},
		Deliveries: make([]deliveryJSON, len(a.Deliveries)),
		Emails:     make([]emailJSON, len(a.Emails)),
	}
	if r.Series != nil {
		id := r.Series.String()
		out.Report.SeriesID = &id
	}
	for i, st := range r.Timeline {
		out.Timeline[i] = statusChangeJSON{Status: st.Status, At: apitime.Format(st.At), Reason: nullable(st.Reason)}
	}
	if m := r.Measurement; m != nil {
		out.Loudness.LUFS = reportview.Loudness(m.ShortTermLoudness)
		out.Measured = &measurementJSON{
			Format: m.FormatName, Codec: m.CodecName, DurationS: m.Duration.Seconds(), SampleRate: m.SampleRate,
			Channels: m.Channels, BitRate: m.BitRate, IntegratedLUFS: finite(m.IntegratedLUFS),
			TruePeakDB: finite(m.TruePeakDB), SamplePeakDB: finite(m.SamplePeakDB),
			LeadingSilenceS: seconds(m.LeadingSilence), TrailingSilenceS: seconds(m.TrailingSilence),
			LongestSilenceS: seconds(m.LongestSilence), ClippingRuns: m.ClippingRuns,
		}
		if m.LoudnessRange != nil {
			out.Measured.LoudnessRangeLU = finite(*m.LoudnessRange)
		}
	}
	for i, res := range r.Results {
		c := reportview.CheckOf(res)
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

// nullable is s, or nil (JSON null) when it is empty.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ServeReportAccount is GET /_fake/reports/{id}: Server.ReportAccount over HTTP, the account of
// one report of any workspace.
func (a *API) ServeReportAccount(w http.ResponseWriter, r *http.Request) {
	acc, err := a.core.AccountOf(httpmw.PathID(r, "id"))
	httpmw.Respond(w, http.StatusOK, reportAccountJSONOf(acc), err)
}
