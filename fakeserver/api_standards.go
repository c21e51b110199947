package fakeserver

import (
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
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
	Name string
	// BasedOn names the built-in standard whose limits it takes (default "Podcast").
	BasedOn string
	// UnwantedWords and ExpectedWords are words or phrases for the two word checks, which run
	// only when their list is not empty. At most 200 each.
	UnwantedWords []string
	ExpectedWords []string
	// TranscriptIncluded keeps the transcript with each report (default true); when false the
	// transcript is used for the checks only and GET /reports/{id}/transcript gives null.
	TranscriptIncluded *bool
	// Limits replace some of the base's limits; fields left out keep the base's.
	Limits *Limits
}

// LoudnessRange is an integrated loudness range in LUFS, ends included.
type LoudnessRange struct {
	Min float64
	Max float64
}

// Limits are a standard's limits (see CHECKS.md). In a StandardSpec every field is optional; in
// a Standard every field is set except one of SampleRatesHz and MinSampleRateHz.
type Limits struct {
	LoudnessLUFS     *LoudnessRange
	MonoLoudnessLUFS *LoudnessRange
	TruePeakDBTP     *float64
	LoudnessRangeLU  *float64
	ClippingRuns     *int
	// SampleRatesHz lists the allowed rates; MinSampleRateHz sets a minimum instead.
	SampleRatesHz   []int
	MinSampleRateHz *int
	// BitrateKbps and MonoBitrateKbps are the least bit rates of lossy files; 0 means no check.
	BitrateKbps     *float64
	MonoBitrateKbps *float64
	Channels        []int
	// LeadingSilence, TrailingSilence and LongSilence are the longest silences allowed at the
	// start, at the end and anywhere.
	LeadingSilence  *time.Duration
	TrailingSilence *time.Duration
	LongSilence     *time.Duration
	NoiseFloorDBFS  *float64
}

// core is spec as the core takes it.
func (spec StandardSpec) core() core.StandardSpec {
	return core.StandardSpec{
		Name: spec.Name, BasedOn: spec.BasedOn, UnwantedWords: spec.UnwantedWords,
		ExpectedWords: spec.ExpectedWords, TranscriptIncluded: spec.TranscriptIncluded, Limits: spec.Limits.overrides(),
	}
}

// standardSpecOf is a spec the core takes as a StandardSpec (a fixture's, read in the control
// API's shape), with Limits when limitsGiven.
func standardSpecOf(in core.StandardSpec, limitsGiven bool) StandardSpec {
	out := StandardSpec{
		Name: in.Name, BasedOn: in.BasedOn, UnwantedWords: in.UnwantedWords,
		ExpectedWords: in.ExpectedWords, TranscriptIncluded: in.TranscriptIncluded,
	}
	if o := in.Limits; limitsGiven {
		out.Limits = &Limits{
			TruePeakDBTP: o.MaxTruePeak, LoudnessRangeLU: o.MaxLoudnessRange, ClippingRuns: o.MaxClippingRuns,
			SampleRatesHz: o.SampleRates, MinSampleRateHz: o.MinSampleRate, BitrateKbps: o.MinBitrateKbps,
			MonoBitrateKbps: o.MinMonoBitrateKbps, Channels: o.Channels, NoiseFloorDBFS: o.MaxNoiseFloor,
			LeadingSilence: o.MaxLeadingSilence, TrailingSilence: o.MaxTrailingSilence, LongSilence: o.MaxLongSilence,
		}
		if r := o.Loudness; r != nil {
			out.Limits.LoudnessLUFS = &LoudnessRange{Min: r.Min, Max: r.Max}
		}
		if r := o.MonoLoudness; r != nil {
			out.Limits.MonoLoudnessLUFS = &LoudnessRange{Min: r.Min, Max: r.Max}
		}
	}
	return out
}

func (l *Limits) overrides() core.LimitOverrides {
	if l == nil {
		return core.LimitOverrides{}
	}
	o := core.LimitOverrides{
		MaxTruePeak: l.TruePeakDBTP, MaxLoudnessRange: l.LoudnessRangeLU, MaxClippingRuns: l.ClippingRuns,
		SampleRates: l.SampleRatesHz, MinSampleRate: l.MinSampleRateHz, MinBitrateKbps: l.BitrateKbps,
		MinMonoBitrateKbps: l.MonoBitrateKbps, Channels: l.Channels, MaxNoiseFloor: l.NoiseFloorDBFS,
		MaxLeadingSilence: l.LeadingSilence, MaxTrailingSilence: l.TrailingSilence, MaxLongSilence: l.LongSilence,
	}
	if l.LoudnessLUFS != nil {
		o.Loudness = &core.Range{Min: l.LoudnessLUFS.Min, Max: l.LoudnessLUFS.Max}
	}
	if l.MonoLoudnessLUFS != nil {
		o.MonoLoudness = &core.Range{Min: l.MonoLoudnessLUFS.Min, Max: l.MonoLoudnessLUFS.Max}
	}
	return o
}

func limitsOf(l core.Limits) *Limits {
	f := func(v float64) *float64 { return &v }
	out := &Limits{
		LoudnessLUFS:     &LoudnessRange{l.Loudness.Min, l.Loudness.Max},
		MonoLoudnessLUFS: &LoudnessRange{l.MonoLoudness.Min, l.MonoLoudness.Max},
		TruePeakDBTP:     f(l.MaxTruePeak), LoudnessRangeLU: f(l.MaxLoudnessRange), ClippingRuns: &l.MaxClippingRuns,
		BitrateKbps: f(l.MinBitrateKbps), MonoBitrateKbps: f(l.MinMonoBitrateKbps), Channels: l.Channels,
		LeadingSilence: &l.MaxLeadingSilence, TrailingSilence: &l.MaxTrailingSilence,
		LongSilence: &l.MaxLongSilence, NoiseFloorDBFS: f(l.MaxNoiseFloor),
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
	ID                 string
	Name               string
	Builtin            bool
	BasedOn            string
	UnwantedWords      []string
	ExpectedWords      []string
	TranscriptIncluded bool
	Limits             *Limits
	// CreatedAt is zero for a built-in.
	CreatedAt time.Time
}

func standardOf(s core.Standard) Standard {
	return Standard{
		ID: s.ID.String(), Name: s.Name, Builtin: s.Builtin, BasedOn: s.BasedOn,
		UnwantedWords: nonNil(s.UnwantedWords), ExpectedWords: nonNil(s.ExpectedWords),
		TranscriptIncluded: s.TranscriptIncluded, Limits: limitsOf(s.Limits), CreatedAt: s.CreatedAt,
	}
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
	std, err := s.core.CreateStandardIn(workspaceID, spec.core())
	if err != nil {
		return Standard{}, err
	}
	return standardOf(std), nil
}

// Standards lists the standards a workspace can use: the three built-ins, then its own in the
// order they were made.
func (s *Server) Standards(workspaceID string) (_ []Standard, err error) {
	defer apiError(&err)
	list, err := s.core.StandardsOf(workspaceID)
	if err != nil {
		return nil, err
	}
	out := make([]Standard, len(list))
	for i, std := range list {
		out[i] = standardOf(std)
	}
	return out, nil
}

// SetDefaultStandard makes a built-in or one of the workspace's own standards its default:
// uploads, and shows without a standard of their own, are judged by it from the next report on.
func (s *Server) SetDefaultStandard(workspaceID, standardID string) (_ Standard, err error) {
	defer apiError(&err)
	out, err := s.core.ChooseDefaultStandard(workspaceID, standardID)
	if err != nil {
		return Standard{}, err
	}
	return standardOf(out), nil
}

// SetSeriesStandard assigns a standard to a show (a series id from the REST API); standardID ""
// removes the show's own standard so that the workspace default applies again. It returns the
// standard the show's next reports will use.
func (s *Server) SetSeriesStandard(seriesID, standardID string) (_ Standard, err error) {
	defer apiError(&err)
	out, err := s.core.ChooseSeriesStandard(seriesID, standardID)
	if err != nil {
		return Standard{}, err
	}
	return standardOf(out), nil
}
