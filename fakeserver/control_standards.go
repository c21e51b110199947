package fakeserver

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/internal/apitime"
)

// standardSpecJSON is a StandardSpec as the control API and fixtures spell it.
type standardSpecJSON struct {
	Name               string      `json:"name"`
	BasedOn            string      `json:"based_on,omitempty"`
	UnwantedWords      []string    `json:"unwanted_words,omitempty"`
	ExpectedWords      []string    `json:"expected_words,omitempty"`
	TranscriptIncluded *bool       `json:"transcript_included,omitempty"`
	Limits             *limitsJSON `json:"limits,omitempty"`
}

// loudnessRangeJSON is a LoudnessRange as the control API spells it.
type loudnessRangeJSON struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// limitsJSON is Limits as the control API spells them: silences in seconds.
type limitsJSON struct {
	LoudnessLUFS     *loudnessRangeJSON `json:"loudness_lufs,omitempty"`
	MonoLoudnessLUFS *loudnessRangeJSON `json:"mono_loudness_lufs,omitempty"`
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

// standardJSON is a Standard as the control API shows it.
type standardJSON struct {
	ID                 string      `json:"id"`
	Name               string      `json:"name"`
	Builtin            bool        `json:"builtin"`
	BasedOn            string      `json:"based_on"`
	UnwantedWords      []string    `json:"unwanted_words"`
	ExpectedWords      []string    `json:"expected_words"`
	TranscriptIncluded bool        `json:"transcript_included"`
	Limits             *limitsJSON `json:"limits"`
	// CreatedAt is null for a built-in.
	CreatedAt *string `json:"created_at"`
}

func (j standardSpecJSON) spec() StandardSpec {
	return StandardSpec{
		Name: j.Name, BasedOn: j.BasedOn, UnwantedWords: j.UnwantedWords, ExpectedWords: j.ExpectedWords,
		TranscriptIncluded: j.TranscriptIncluded, Limits: j.Limits.limits(),
	}
}

func (j *limitsJSON) limits() *Limits {
	if j == nil {
		return nil
	}
	out := &Limits{
		TruePeakDBTP: j.TruePeakDBTP, LoudnessRangeLU: j.LoudnessRangeLU, ClippingRuns: j.ClippingRuns,
		SampleRatesHz: j.SampleRatesHz, MinSampleRateHz: j.MinSampleRateHz, BitrateKbps: j.BitrateKbps,
		MonoBitrateKbps: j.MonoBitrateKbps, Channels: j.Channels, NoiseFloorDBFS: j.NoiseFloorDBFS,
		LeadingSilence: secondsDuration(j.LeadingSilenceS), TrailingSilence: secondsDuration(j.TrailingSilenceS),
		LongSilence: secondsDuration(j.LongSilenceS),
	}
	if r := j.LoudnessLUFS; r != nil {
		out.LoudnessLUFS = &LoudnessRange{Min: r.Min, Max: r.Max}
	}
	if r := j.MonoLoudnessLUFS; r != nil {
		out.MonoLoudnessLUFS = &LoudnessRange{Min: r.Min, Max: r.Max}
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

func limitsView(l *Limits) *limitsJSON {
	if l == nil {
		return nil
	}
	seconds := func(d *time.Duration) *float64 {
		if d == nil {
			return nil
		}
		s := d.Seconds()
		return &s
	}
	out := &limitsJSON{
		TruePeakDBTP: l.TruePeakDBTP, LoudnessRangeLU: l.LoudnessRangeLU, ClippingRuns: l.ClippingRuns,
		SampleRatesHz: l.SampleRatesHz, MinSampleRateHz: l.MinSampleRateHz, BitrateKbps: l.BitrateKbps,
		MonoBitrateKbps: l.MonoBitrateKbps, Channels: l.Channels, NoiseFloorDBFS: l.NoiseFloorDBFS,
		LeadingSilenceS: seconds(l.LeadingSilence), TrailingSilenceS: seconds(l.TrailingSilence),
		LongSilenceS: seconds(l.LongSilence),
	}
	if r := l.LoudnessLUFS; r != nil {
		out.LoudnessLUFS = &loudnessRangeJSON{Min: r.Min, Max: r.Max}
	}
	if r := l.MonoLoudnessLUFS; r != nil {
		out.MonoLoudnessLUFS = &loudnessRangeJSON{Min: r.Min, Max: r.Max}
	}
	return out
}

func standardView(s Standard) standardJSON {
	out := standardJSON{
		ID: s.ID, Name: s.Name, Builtin: s.Builtin, BasedOn: s.BasedOn, UnwantedWords: s.UnwantedWords,
		ExpectedWords: s.ExpectedWords, TranscriptIncluded: s.TranscriptIncluded, Limits: limitsView(s.Limits),
	}
	if !s.CreatedAt.IsZero() {
		at := apitime.Format(s.CreatedAt)
		out.CreatedAt = &at
	}
	return out
}

func (s *Server) handleCreateStandard(w http.ResponseWriter, r *http.Request) {
	var body standardSpecJSON
	if !decodeBody(w, r, &body) {
		return
	}
	std, err := s.CreateStandard(httpmw.PathID(r, "id"), body.spec())
	respond(w, http.StatusCreated, standardView(std), err)
}

func (s *Server) handleListStandards(w http.ResponseWriter, r *http.Request) {
	list, err := s.Standards(httpmw.PathID(r, "id"))
	respond(w, http.StatusOK, jsonList(list, standardView), err)
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
		writeError(w, core.ErrValidation("%s", msg))
		return "", false
	}
	if id == nil {
		return "", true
	}
	if *id == "" {
		writeError(w, core.ErrNotFound("Standard"))
		return "", false
	}
	return *id, true
}

func (s *Server) handleSetDefaultStandard(w http.ResponseWriter, r *http.Request) {
	var body standardChoice
	if !decodeBody(w, r, &body) {
		return
	}
	id, ok := body.id(w, false)
	if !ok {
		return
	}
	std, err := s.SetDefaultStandard(httpmw.PathID(r, "id"), id)
	respond(w, http.StatusOK, standardView(std), err)
}

func (s *Server) handleSetSeriesStandard(w http.ResponseWriter, r *http.Request) {
	var body standardChoice
	if !decodeBody(w, r, &body) {
		return
	}
	id, ok := body.id(w, true)
	if !ok {
		return
	}
	std, err := s.SetSeriesStandard(httpmw.PathID(r, "id"), id)
	respond(w, http.StatusOK, standardView(std), err)
}
