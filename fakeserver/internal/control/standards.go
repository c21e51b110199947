package control

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/internal/apitime"
)

// StandardSpecJSON is a custom standard as the control API and fixtures spell it.
type StandardSpecJSON struct {
	Name               string      `json:"name"`
	BasedOn            string      `json:"based_on,omitempty"`
	UnwantedWords      []string    `json:"unwanted_words,omitempty"`
	ExpectedWords      []string    `json:"expected_words,omitempty"`
	TranscriptIncluded *bool       `json:"transcript_included,omitempty"`
	Limits             *LimitsJSON `json:"limits,omitempty"`
}

// LoudnessRangeJSON is a loudness range as the control API spells it.
type LoudnessRangeJSON struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// LimitsJSON is a standard's limits as the control API spells them: silences in seconds.
type LimitsJSON struct {
	LoudnessLUFS     *LoudnessRangeJSON `json:"loudness_lufs,omitempty"`
	MonoLoudnessLUFS *LoudnessRangeJSON `json:"mono_loudness_lufs,omitempty"`
	TruePeakDBTP     *float64           `json:"true_peak_dbtp,omitempty"`
	LoudnessRangeLU  *float64           `json:"loudness_range_lu,omitempty"`
	ClippingRuns     *int               `json:"clipping_runs,omitempty"`
	SampleRatesHz    []int              `json:"sample_rates_hz,omitempty"`
	MinSampleRateHz  *int               `json:"min_sample_rate_hz,omitempty"`
	BitrateKbps      *float64           `json:"bitrate_kbps,omitempty"`
	MonoBitrateKbps  *float64           `json:"mono_bitrate_kbps,omitempty"`
	Channels         []int              `json:"channels,omitempty"`
	LeadingSilenceS  *float64           `json:"leading_silence_s,omitempty"`
	TrailingSilenceS *float64           `json:"trailing_silence_s,omitempty"`
	LongSilenceS     *float64           `json:"long_silence_s,omitempty"`
	NoiseFloorDBFS   *float64           `json:"noise_floor_dbfs,omitempty"`
}

// StandardJSON is a standard as the control API shows it.
type StandardJSON struct {
	ID                 string      `json:"id"`
	Name               string      `json:"name"`
	Builtin            bool        `json:"builtin"`
	BasedOn            string      `json:"based_on"`
	UnwantedWords      []string    `json:"unwanted_words"`
	ExpectedWords      []string    `json:"expected_words"`
	TranscriptIncluded bool        `json:"transcript_included"`
	Limits             *LimitsJSON `json:"limits"`
	// CreatedAt is null for a built-in.
	CreatedAt *string `json:"created_at"`
}

// Spec is j as the core takes it.
func (j StandardSpecJSON) Spec() core.StandardSpec {
	return core.StandardSpec{
		Name: j.Name, BasedOn: j.BasedOn, UnwantedWords: j.UnwantedWords, ExpectedWords: j.ExpectedWords,
		TranscriptIncluded: j.TranscriptIncluded, Limits: j.Limits.overrides(),
	}
}

func (j *LimitsJSON) overrides() core.LimitOverrides {
	if j == nil {
		return core.LimitOverrides{}
	}
	out := core.LimitOverrides{
		MaxTruePeak: j.TruePeakDBTP, MaxLoudnessRange: j.LoudnessRangeLU, MaxClippingRuns: j.ClippingRuns,
		SampleRates: j.SampleRatesHz, MinSampleRate: j.MinSampleRateHz, MinBitrateKbps: j.BitrateKbps,
		MinMonoBitrateKbps: j.MonoBitrateKbps, Channels: j.Channels, MaxNoiseFloor: j.NoiseFloorDBFS,
		MaxLeadingSilence: secondsDuration(j.LeadingSilenceS), MaxTrailingSilence: secondsDuration(j.TrailingSilenceS),
		MaxLongSilence: secondsDuration(j.LongSilenceS),
	}
	if r := j.LoudnessLUFS; r != nil {
		out.Loudness = &core.Range{Min: r.Min, Max: r.Max}
	}
	if r := j.MonoLoudnessLUFS; r != nil {
		out.MonoLoudness = &core.Range{Min: r.Min, Max: r.Max}
	}
	return out
}

// secondsDuration converts seconds; a value out of any sane range becomes one the core refuses.
func secondsDuration(s *float64) *time.Duration {
	if s == nil {
		return nil
	}
	if !(*s >= -1 && *s <= 1e6) {
		d := time.Duration(-1)
		return &d
	}
	d := time.Duration(*s * float64(time.Second))
	return &d
}

// limitsView is a standard's limits as the control API shows them: every limit, and the
// allowed sample rates or else the minimum.
func limitsView(l core.Limits) *LimitsJSON {
	f := func(v float64) *float64 { return &v }
	seconds := func(d time.Duration) *float64 { return f(d.Seconds()) }
	clipping := l.MaxClippingRuns
	out := &LimitsJSON{
		LoudnessLUFS:     &LoudnessRangeJSON{Min: l.Loudness.Min, Max: l.Loudness.Max},
		MonoLoudnessLUFS: &LoudnessRangeJSON{Min: l.MonoLoudness.Min, Max: l.MonoLoudness.Max},
		TruePeakDBTP:     f(l.MaxTruePeak), LoudnessRangeLU: f(l.MaxLoudnessRange), ClippingRuns: &clipping,
		BitrateKbps: f(l.MinBitrateKbps), MonoBitrateKbps: f(l.MinMonoBitrateKbps), Channels: l.Channels,
		NoiseFloorDBFS:  f(l.MaxNoiseFloor),
		LeadingSilenceS: seconds(l.MaxLeadingSilence), TrailingSilenceS: seconds(l.MaxTrailingSilence),
		LongSilenceS: seconds(l.MaxLongSilence),
	}
	if len(l.SampleRates) > 0 {
		out.SampleRatesHz = l.SampleRates
	} else {
		minRate := l.MinSampleRate
		out.MinSampleRateHz = &minRate
	}
	return out
}

func standardView(s core.Standard) StandardJSON {
	out := StandardJSON{
		ID: s.ID.String(), Name: s.Name, Builtin: s.Builtin, BasedOn: s.BasedOn,
		UnwantedWords: nonNil(s.UnwantedWords), ExpectedWords: nonNil(s.ExpectedWords),
		TranscriptIncluded: s.TranscriptIncluded, Limits: limitsView(s.Limits),
	}
	if !s.CreatedAt.IsZero() {
		at := apitime.Format(s.CreatedAt)
		out.CreatedAt = &at
	}
	return out
}

// nonNil is s, or an empty list for none: the control API shows [] rather than null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ServeCreateStandard is POST /_fake/workspaces/{id}/standards: Server.CreateStandard over HTTP
// (core.CreateStandardIn).
func (a *API) ServeCreateStandard(w http.ResponseWriter, r *http.Request) {
	var body StandardSpecJSON
	if !httpmw.DecodeBody(w, r, &body) {
		return
	}
	std, err := a.core.CreateStandardIn(httpmw.PathID(r, "id"), body.Spec())
	httpmw.Respond(w, http.StatusCreated, standardView(std), err)
}

// ServeListStandards is GET /_fake/workspaces/{id}/standards: Server.Standards over HTTP
// (core.StandardsOf).
func (a *API) ServeListStandards(w http.ResponseWriter, r *http.Request) {
	list, err := a.core.StandardsOf(httpmw.PathID(r, "id"))
	items := make([]StandardJSON, len(list))
	for i, std := range list {
		items[i] = standardView(std)
	}
	httpmw.Respond(w, http.StatusOK, map[string][]StandardJSON{"items": items}, err)
}

// standardChoice is the body of the two assignment calls. standard_id is required; null (for a
// show only) removes the assignment.
type standardChoice struct {
	StandardID json.RawMessage `json:"standard_id"`
}

// id reads standard_id: ok false (after answering 400) when it is missing or not a string or
// null; null gives "".
func (c standardChoice) id(w http.ResponseWriter, nullAllowed bool) (string, bool) {
	var id *string
	if len(c.StandardID) == 0 || json.Unmarshal(c.StandardID, &id) != nil || (id == nil && !nullAllowed) {
		msg := "standard_id is required: the id of a built-in standard or of one of the workspace's own."
		if nullAllowed {
			msg = "standard_id is required: a standard's id, or null to remove the show's own standard."
		}
		httpmw.WriteError(w, core.ErrValidation("%s", msg))
		return "", false
	}
	if id == nil {
		return "", true
	}
	if *id == "" {
		httpmw.WriteError(w, core.ErrNotFound("Standard"))
		return "", false
	}
	return *id, true
}

// ServeSetDefaultStandard is PUT /_fake/workspaces/{id}/default-standard:
// Server.SetDefaultStandard over HTTP (core.ChooseDefaultStandard).
func (a *API) ServeSetDefaultStandard(w http.ResponseWriter, r *http.Request) {
	var body standardChoice
	if !httpmw.DecodeBody(w, r, &body) {
		return
	}
	id, ok := body.id(w, false)
	if !ok {
		return
	}
	std, err := a.core.ChooseDefaultStandard(httpmw.PathID(r, "id"), id)
	httpmw.Respond(w, http.StatusOK, standardView(std), err)
}

// ServeSetSeriesStandard is PUT /_fake/series/{id}/standard: Server.SetSeriesStandard over HTTP
// (core.ChooseSeriesStandard).
func (a *API) ServeSetSeriesStandard(w http.ResponseWriter, r *http.Request) {
	var body standardChoice
	if !httpmw.DecodeBody(w, r, &body) {
		return
	}
	id, ok := body.id(w, true)
	if !ok {
		return
	}
	std, err := a.core.ChooseSeriesStandard(httpmw.PathID(r, "id"), id)
	httpmw.Respond(w, http.StatusOK, standardView(std), err)
}
