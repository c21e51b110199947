package core

import (
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"
)

// standardState holds the custom standards and which standard each workspace and show uses.
type standardState struct {
	custom map[uuid.UUID]*Standard
	// order lists each workspace's custom standards in the order they were made.
	order map[uuid.UUID][]uuid.UUID
	// workspaceDefault and seriesStandard hold assignments; absent means the fallback (the
	// workspace default for a show, Podcast for a workspace).
	workspaceDefault map[uuid.UUID]uuid.UUID
	seriesStandard   map[uuid.UUID]uuid.UUID
	// names holds each workspace's custom standards' names by foldName, so that a new name is
	// checked in one lookup rather than against every standard (50,000 fixtures standards
	// took 53 s).
	names map[uuid.UUID]map[string]bool
}

func newStandardState() standardState {
	return standardState{
		custom: map[uuid.UUID]*Standard{}, order: map[uuid.UUID][]uuid.UUID{},
		workspaceDefault: map[uuid.UUID]uuid.UUID{}, seriesStandard: map[uuid.UUID]uuid.UUID{},
		names: map[uuid.UUID]map[string]bool{},
	}
}

// foldName maps every rune to the smallest of its simple case-folding orbit, so that two names
// have one foldName exactly when strings.EqualFold holds between them.
func foldName(name string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, name)
}

// Bounds of a custom standard's word lists.
const (
	maxWordsPerList = 200
	maxPhraseLength = 100
	maxStandardName = 100
)

// StandardSpec describes a custom standard to create.
type StandardSpec struct {
	Name string
	// BasedOn names the built-in standard whose limits it uses; "" means Podcast.
	BasedOn string
	// UnwantedWords and ExpectedWords are words or phrases; each must hold at least one word.
	UnwantedWords, ExpectedWords []string
	// TranscriptIncluded keeps the transcript with each report; nil means true.
	TranscriptIncluded *bool
	// Limits replace some of the base's limits.
	Limits LimitOverrides
}

func (c *Core) builtinByName(name string) (Standard, bool) {
	for _, s := range c.standards {
		if s.Name == name {
			return s, true
		}
	}
	return Standard{}, false
}

func cleanWords(field string, list []string) ([]string, error) {
	if len(list) > maxWordsPerList {
		return nil, ErrValidation("%s may list at most %d words or phrases.", field, maxWordsPerList)
	}
	out := make([]string, 0, len(list))
	seen := map[string]bool{}
	for _, w := range list {
		w = strings.Join(strings.Fields(w), " ")
		words := phraseWords(w)
		switch {
		case len(words) == 0:
			return nil, ErrValidation("%s holds %q, which has no word in it.", field, w)
		case len(w) > maxPhraseLength:
			return nil, ErrValidation("%s holds a phrase longer than %d bytes.", field, maxPhraseLength)
		}
		key := strings.Join(words, " ")
		if seen[key] {
			return nil, ErrValidation("%s lists %q twice.", field, w)
		}
		seen[key] = true
		out = append(out, w)
	}
	return out, nil
}

// CreateStandard makes a custom standard in a workspace. Its name must be new in the workspace
// (built-in names included); its limits are the built-in's it is based on, with in.Limits
// replacing some of them.
func (c *Core) CreateStandard(workspace uuid.UUID, in StandardSpec) (Standard, error) {
	name := strings.TrimSpace(in.Name)
	switch {
	case name == "":
		return Standard{}, ErrValidation("name is required.")
	case len(name) > maxStandardName:
		return Standard{}, ErrValidation("name may be at most %d bytes.", maxStandardName)
	}
	basedOn := in.BasedOn
	if basedOn == "" {
		basedOn = defaultBuiltinName
	}
	base, ok := c.builtinByName(basedOn)
	if !ok {
		return Standard{}, ErrValidation("based_on must name a built-in standard: %q, %q or %q.", StandardPodcast, StandardAESSpeech, StandardEBUR128)
	}
	unwanted, err := cleanWords("unwanted_words", in.UnwantedWords)
	if err != nil {
		return Standard{}, err
	}
	expected, err := cleanWords("expected_words", in.ExpectedWords)
	if err != nil {
		return Standard{}, err
	}
	included := in.TranscriptIncluded == nil || *in.TranscriptIncluded
	limits, err := in.Limits.apply(base.Limits)
	if err != nil {
		return Standard{}, err
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.workspaces[workspace]; !ok {
		return Standard{}, ErrNotFound("Workspace")
	}
	folded := foldName(name)
	if _, ok := c.builtinByName(name); ok || c.stds.names[workspace][folded] {
		return Standard{}, errorf(CodeConflict, "This workspace already has a standard named %q.", name)
	}
	s := &Standard{
		ID: c.rand.UUID(), Name: name, Workspace: workspace, BasedOn: base.Name, Limits: limits,
		UnwantedWords: unwanted, ExpectedWords: expected, TranscriptIncluded: included, CreatedAt: c.clock.Now(),
	}
	c.stds.custom[s.ID] = s
	c.stds.order[workspace] = append(c.stds.order[workspace], s.ID)
	if c.stds.names[workspace] == nil {
		c.stds.names[workspace] = map[string]bool{}
	}
	c.stds.names[workspace][folded] = true
	return s.clone(), nil
}

// Standards lists the standards a workspace can use: the built-ins, then its own in the order
// they were made.
func (c *Core) Standards(workspace uuid.UUID) ([]Standard, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if _, ok := c.workspaces[workspace]; !ok {
		return nil, ErrNotFound("Workspace")
	}
	out := make([]Standard, 0, len(c.standards)+len(c.stds.order[workspace]))
	for _, s := range c.standards {
		out = append(out, s.clone())
	}
	for _, id := range c.stds.order[workspace] {
		out = append(out, c.stds.custom[id].clone())
	}
	return out, nil
}

// usableLocked finds a standard a workspace may use: a built-in or one of its own. Another
// workspace's standard is not found, as on the REST API.
func (c *Core) usableLocked(workspace, id uuid.UUID) (Standard, bool) {
	for _, s := range c.standards {
		if s.ID == id {
			return s, true
		}
	}
	if s, ok := c.stds.custom[id]; ok && s.Workspace == workspace {
		return *s, true
	}
	return Standard{}, false
}

// SetDefaultStandard makes a standard the workspace's default: uploads and shows without their
// own standard are judged by it from the next report on.
func (c *Core) SetDefaultStandard(workspace, standard uuid.UUID) (Standard, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.workspaces[workspace]; !ok {
		return Standard{}, ErrNotFound("Workspace")
	}
	s, ok := c.usableLocked(workspace, standard)
	if !ok {
		return Standard{}, ErrNotFound("Standard")
	}
	c.stds.workspaceDefault[workspace] = s.ID
	return s.clone(), nil
}

// SetSeriesStandard assigns a standard to a show, or with standard nil removes the show's own
// standard so that the workspace default applies again. It returns the standard the show's
// reports will now use.
func (c *Core) SetSeriesStandard(series uuid.UUID, standard *uuid.UUID) (Standard, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.series[series]
	if !ok {
		return Standard{}, ErrNotFound("Series")
	}
	if standard == nil {
		delete(c.stds.seriesStandard, series)
		return c.standardForLocked(c.workspaces[s.Workspace], s).clone(), nil
	}
	std, ok := c.usableLocked(s.Workspace, *standard)
	if !ok {
		return Standard{}, ErrNotFound("Standard")
	}
	c.stds.seriesStandard[series] = std.ID
	return std.clone(), nil
}

// standardForLocked picks the standard a new report is judged by: the show's own, else the
// workspace default, else Podcast. s is nil for an upload.
func (c *Core) standardForLocked(ws *Workspace, s *Series) Standard {
	if s != nil {
		if id, ok := c.stds.seriesStandard[s.ID]; ok {
			if std, ok := c.usableLocked(ws.ID, id); ok {
				return std
			}
		}
	}
	if id, ok := c.stds.workspaceDefault[ws.ID]; ok {
		if std, ok := c.usableLocked(ws.ID, id); ok {
			return std
		}
	}
	return c.standards[0]
}

// setSeriesExplicitLocked records a show's explicit flag as last read from its feed. When it
// changes, the show's finished reports are judged again: explicit_flag follows the feed's
// current flag, so stats.passed can change while updated_at does not move (Version does, so
// cached renderings are dropped).
func (c *Core) setSeriesExplicitLocked(s *Series, flag *bool) {
	same := (s.Explicit == nil && flag == nil) || (s.Explicit != nil && flag != nil && *s.Explicit == *flag)
	if flag != nil {
		f := *flag
		flag = &f
	}
	s.Explicit = flag
	if same {
		return
	}
	idx := c.reportIdx[s.Workspace]
	if idx == nil || idx.series[s.ID] == nil {
		return
	}
	for _, r := range idx.series[s.ID].reports {
		if r.Status != StatusComplete || r.Measurement == nil {
			continue
		}
		c.judgeLocked(r)
		r.Version++
	}
}

// judgeLocked judges a measured report against its standard and the current state of its show.
func (c *Core) judgeLocked(r *Report) {
	in := judgeInput{std: r.Standard, m: *r.Measurement, transcript: r.heard, hasTranscript: r.heardOK}
	if r.Series != nil {
		if s := c.series[*r.Series]; s != nil {
			in.explicit = s.Explicit
		}
	}
	r.Results = judge(in)
	st := summarise(r.Results)
	r.Stats = &st
}

// LimitOverrides replace some of a base standard's limits in a custom standard; nil fields keep
// the base's. Units are those of Limits.
type LimitOverrides struct {
	Loudness, MonoLoudness        *Range
	MaxTruePeak, MaxLoudnessRange *float64
	MaxClippingRuns               *int
	// SampleRates replaces the allowed rates (and drops a minimum); MinSampleRate replaces them
	// with a minimum. Giving both is refused.
	SampleRates   []int
	MinSampleRate *int
	// A minimum bitrate of 0 removes the bitrate check.
	MinBitrateKbps, MinMonoBitrateKbps                    *float64
	Channels                                              []int
	MaxLeadingSilence, MaxTrailingSilence, MaxLongSilence *time.Duration
	MaxNoiseFloor                                         *float64
}

func finiteIn(v, lo, hi float64) bool { return !math.IsNaN(v) && v >= lo && v <= hi }

// apply returns base with the overrides, or a validation error naming the first bad limit.
func (o LimitOverrides) apply(base Limits) (Limits, error) {
	l := base.clone()
	for _, r := range []struct {
		field string
		in    *Range
		out   *Range
	}{{"loudness_lufs", o.Loudness, &l.Loudness}, {"mono_loudness_lufs", o.MonoLoudness, &l.MonoLoudness}} {
		if r.in == nil {
			continue
		}
		if !finiteIn(r.in.Min, -70, 0) || !finiteIn(r.in.Max, -70, 0) || r.in.Min > r.in.Max {
			return Limits{}, ErrValidation("limits.%s needs min <= max, both from -70 to 0 LUFS.", r.field)
		}
		*r.out = *r.in
	}
	type number struct {
		field  string
		in     *float64
		out    *float64
		lo, hi float64
		unit   string
	}
	for _, n := range []number{
		{"true_peak_dbtp", o.MaxTruePeak, &l.MaxTruePeak, -20, 3, "dBTP"},
		{"loudness_range_lu", o.MaxLoudnessRange, &l.MaxLoudnessRange, 0, 40, "LU"},
		{"bitrate_kbps", o.MinBitrateKbps, &l.MinBitrateKbps, 0, 1000, "kbps"},
		{"mono_bitrate_kbps", o.MinMonoBitrateKbps, &l.MinMonoBitrateKbps, 0, 1000, "kbps"},
		{"noise_floor_dbfs", o.MaxNoiseFloor, &l.MaxNoiseFloor, -140, 0, "dBFS"},
	} {
		if n.in == nil {
			continue
		}
		if !finiteIn(*n.in, n.lo, n.hi) {
			return Limits{}, ErrValidation("limits.%s must be from %s to %s %s.", n.field, words(n.lo), words(n.hi), n.unit)
		}
		*n.out = *n.in
	}
	for _, d := range []struct {
		field string
		in    *time.Duration
		out   *time.Duration
	}{
		{"leading_silence_s", o.MaxLeadingSilence, &l.MaxLeadingSilence},
		{"trailing_silence_s", o.MaxTrailingSilence, &l.MaxTrailingSilence},
		{"long_silence_s", o.MaxLongSilence, &l.MaxLongSilence},
	} {
		if d.in == nil {
			continue
		}
		if *d.in < 0 || *d.in > time.Hour {
			return Limits{}, ErrValidation("limits.%s must be from 0 to 3600 seconds.", d.field)
		}
		*d.out = *d.in
	}
	if o.MaxClippingRuns != nil {
		if *o.MaxClippingRuns < 0 {
			return Limits{}, ErrValidation("limits.clipping_runs must not be negative.")
		}
		l.MaxClippingRuns = *o.MaxClippingRuns
	}
	switch {
	case o.SampleRates != nil && o.MinSampleRate != nil:
		return Limits{}, ErrValidation("limits may give sample_rates_hz or min_sample_rate_hz, not both.")
	case o.SampleRates != nil:
		if len(o.SampleRates) == 0 || slices.ContainsFunc(o.SampleRates, func(r int) bool { return r < 8000 || r > 384000 }) {
			return Limits{}, ErrValidation("limits.sample_rates_hz must list rates from 8000 to 384000 Hz.")
		}
		l.SampleRates, l.MinSampleRate = slices.Clone(o.SampleRates), 0
	case o.MinSampleRate != nil:
		if *o.MinSampleRate < 8000 || *o.MinSampleRate > 384000 {
			return Limits{}, ErrValidation("limits.min_sample_rate_hz must be from 8000 to 384000 Hz.")
		}
		l.SampleRates, l.MinSampleRate = nil, *o.MinSampleRate
	}
	if o.Channels != nil {
		if len(o.Channels) == 0 || slices.ContainsFunc(o.Channels, func(c int) bool { return c < 1 || c > 8 }) {
			return Limits{}, ErrValidation("limits.channels must list channel counts from 1 to 8.")
		}
		l.Channels = slices.Clone(o.Channels)
	}
	return l, nil
}
