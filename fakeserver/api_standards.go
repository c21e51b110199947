package fakeserver

import (
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/internal/apitime"
)

// Names of the built-in standards, for StandardSpec.BasedOn and for finding a built-in in
// Standards. Every workspace starts with StandardPodcast as its default.
const (
	// StandardPodcast is the built-in standard after Apple's podcast requirements: −17 to −15
	// LUFS (−20 to −18 for mono), true peak at most −1 dBTP (CHECKS.md has every limit).
	StandardPodcast = "Podcast"
	// StandardAESSpeech is the built-in standard after AES TD1004 for speech: −20 to −16 LUFS.
	StandardAESSpeech = "AES speech"
	// StandardEBUR128 is the built-in standard after EBU R 128 for broadcast: −23.5 to −22.5
	// LUFS, 48 kHz stereo.
	StandardEBUR128 = "EBU R128"
)

// StandardSpec describes a custom standard, as a user would set one up in the dashboard.
type StandardSpec struct {
	// Name must be new in the workspace, built-in names included (compared ignoring case).
	Name string `json:"name"`
	// BasedOn names the built-in standard whose limits it takes (default "Podcast").
	BasedOn string `json:"based_on,omitempty"`
	// UnwantedWords and ExpectedWords are words or phrases for the two word checks, which run
	// only when their list is not empty. At most 200 each.
	UnwantedWords []string `json:"unwanted_words,omitempty"`
	ExpectedWords []string `json:"expected_words,omitempty"`
	// TranscriptIncluded keeps the transcript with each report (default true); when false the
	// transcript is used for the checks only and GET /reports/{id}/transcript gives null.
	TranscriptIncluded *bool `json:"transcript_included,omitempty"`
	// Limits replace some of the base's limits; fields left out keep the base's.
	Limits *Limits `json:"limits,omitempty"`
}

// LoudnessRange is an integrated loudness range in LUFS, ends included.
type LoudnessRange struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// Limits are a standard's limits (see CHECKS.md). In a StandardSpec every field is optional; in
// a Standard every field is set except one of SampleRatesHz and MinSampleRateHz.
type Limits struct {
	LoudnessLUFS     *LoudnessRange `json:"loudness_lufs,omitempty"`
	MonoLoudnessLUFS *LoudnessRange `json:"mono_loudness_lufs,omitempty"`
	TruePeakDBTP     *float64       `json:"true_peak_dbtp,omitempty"`
	LoudnessRangeLU  *float64       `json:"loudness_range_lu,omitempty"`
	ClippingRuns     *int           `json:"clipping_runs,omitempty"`
	// SampleRatesHz lists the allowed rates; MinSampleRateHz sets a minimum instead.
	SampleRatesHz   []int `json:"sample_rates_hz,omitempty"`
	MinSampleRateHz *int  `json:"min_sample_rate_hz,omitempty"`
	// BitrateKbps and MonoBitrateKbps are the least bit rates of lossy files; 0 means no check.
	BitrateKbps      *float64 `json:"bitrate_kbps,omitempty"`
	MonoBitrateKbps  *float64 `json:"mono_bitrate_kbps,omitempty"`
	Channels         []int    `json:"channels,omitempty"`
	LeadingSilenceS  *float64 `json:"leading_silence_s,omitempty"`
	TrailingSilenceS *float64 `json:"trailing_silence_s,omitempty"`
	LongSilenceS     *float64 `json:"long_silence_s,omitempty"`
	NoiseFloorDBFS   *float64 `json:"noise_floor_dbfs,omitempty"`
}

func (l *Limits) overrides() core.LimitOverrides {
	if l == nil {
		return core.LimitOverrides{}
	}
	o := core.LimitOverrides{
		MaxTruePeak: l.TruePeakDBTP, MaxLoudnessRange: l.LoudnessRangeLU, MaxClippingRuns: l.ClippingRuns,
		SampleRates: l.SampleRatesHz, MinSampleRate: l.MinSampleRateHz, MinBitrateKbps: l.BitrateKbps,
		MinMonoBitrateKbps: l.MonoBitrateKbps, Channels: l.Channels, MaxNoiseFloor: l.NoiseFloorDBFS,
		MaxLeadingSilence: secondsDuration(l.LeadingSilenceS), MaxTrailingSilence: secondsDuration(l.TrailingSilenceS),
		MaxLongSilence: secondsDuration(l.LongSilenceS),
	}
	if l.LoudnessLUFS != nil {
		o.Loudness = &core.Range{Min: l.LoudnessLUFS.Min, Max: l.LoudnessLUFS.Max}
	}
	if l.MonoLoudnessLUFS != nil {
		o.MonoLoudness = &core.Range{Min: l.MonoLoudnessLUFS.Min, Max: l.MonoLoudnessLUFS.Max}
	}
	return o
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

func limitsJSON(l core.Limits) *Limits {
	f := func(v float64) *float64 { return &v }
	out := &Limits{
		LoudnessLUFS:     &LoudnessRange{l.Loudness.Min, l.Loudness.Max},
		MonoLoudnessLUFS: &LoudnessRange{l.MonoLoudness.Min, l.MonoLoudness.Max},
		TruePeakDBTP:     f(l.MaxTruePeak), LoudnessRangeLU: f(l.MaxLoudnessRange), ClippingRuns: &l.MaxClippingRuns,
		BitrateKbps: f(l.MinBitrateKbps), MonoBitrateKbps: f(l.MinMonoBitrateKbps), Channels: l.Channels,
		LeadingSilenceS: f(l.MaxLeadingSilence.Seconds()), TrailingSilenceS: f(l.MaxTrailingSilence.Seconds()),
		LongSilenceS: f(l.MaxLongSilence.Seconds()), NoiseFloorDBFS: f(l.MaxNoiseFloor),
	}
	if len(l.SampleRates) > 0 {
		out.SampleRatesHz = l.SampleRates
	} else {
		out.MinSampleRateHz = &l.MinSampleRate
	}
	return out
}

// Standard is a standard a workspace can use: a built-in or one of its own.
type Standard struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	Builtin            bool     `json:"builtin"`
	BasedOn            string   `json:"based_on"`
	UnwantedWords      []string `json:"unwanted_words"`
	ExpectedWords      []string `json:"expected_words"`
	TranscriptIncluded bool     `json:"transcript_included"`
	Limits             *Limits  `json:"limits"`
	// CreatedAt is null for a built-in.
	CreatedAt *string `json:"created_at"`
}

func standardJSON(s core.Standard) Standard {
	out := Standard{
		ID: s.ID.String(), Name: s.Name, Builtin: s.Builtin, BasedOn: s.BasedOn,
		UnwantedWords: nonNil(s.UnwantedWords), ExpectedWords: nonNil(s.ExpectedWords),
		TranscriptIncluded: s.TranscriptIncluded, Limits: limitsJSON(s.Limits),
	}
	if !s.CreatedAt.Equal(time.Time{}) {
		at := apitime.Format(s.CreatedAt)
		out.CreatedAt = &at
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// CreateStandard makes a custom standard in a workspace. A report uses it once it is assigned
// with SetDefaultStandard or SetSeriesStandard.
func (s *Server) CreateStandard(workspaceID string, spec StandardSpec) (_ Standard, err error) {
	defer apiError(&err)
	id, err := parseID(workspaceID, "Workspace")
	if err != nil {
		return Standard{}, err
	}
	std, err := s.core.CreateStandard(id, core.StandardSpec{
		Name: spec.Name, BasedOn: spec.BasedOn, UnwantedWords: spec.UnwantedWords,
		ExpectedWords: spec.ExpectedWords, TranscriptIncluded: spec.TranscriptIncluded, Limits: spec.Limits.overrides(),
	})
	if err != nil {
		return Standard{}, err
	}
	return standardJSON(std), nil
}

// Standards lists the standards a workspace can use: the three built-ins, then its own in the
// order they were made.
func (s *Server) Standards(workspaceID string) (_ []Standard, err error) {
	defer apiError(&err)
	id, err := parseID(workspaceID, "Workspace")
	if err != nil {
		return nil, err
	}
	list, err := s.core.Standards(id)
	if err != nil {
		return nil, err
	}
	out := make([]Standard, len(list))
	for i, std := range list {
		out[i] = standardJSON(std)
	}
	return out, nil
}

// SetDefaultStandard makes a built-in or one of the workspace's own standards its default:
// uploads, and shows without a standard of their own, are judged by it from the next report on.
func (s *Server) SetDefaultStandard(workspaceID, standardID string) (_ Standard, err error) {
	defer apiError(&err)
	ws, err := parseID(workspaceID, "Workspace")
	if err != nil {
		return Standard{}, err
	}
	std, err := parseID(standardID, "Standard")
	if err != nil {
		return Standard{}, err
	}
	out, err := s.core.SetDefaultStandard(ws, std)
	if err != nil {
		return Standard{}, err
	}
	return standardJSON(out), nil
}

// SetSeriesStandard assigns a standard to a show (a series id from the REST API); standardID ""
// removes the show's own standard so that the workspace default applies again. It returns the
// standard the show's next reports will use.
func (s *Server) SetSeriesStandard(seriesID, standardID string) (_ Standard, err error) {
	defer apiError(&err)
	series, err := parseID(seriesID, "Series")
	if err != nil {
		return Standard{}, err
	}
	var std *uuid.UUID
	if standardID != "" {
		id, err := parseID(standardID, "Standard")
		if err != nil {
			return Standard{}, err
		}
		std = &id
	}
	out, err := s.core.SetSeriesStandard(series, std)
	if err != nil {
		return Standard{}, err
	}
	return standardJSON(out), nil
}
