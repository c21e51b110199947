package core

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Standard is a named set of checks with their limits: one of the three built-ins, or a custom
// standard a workspace made from one of them.
type Standard struct {
	ID      uuid.UUID
	Name    string
	Builtin bool
	// Workspace owns a custom standard; uuid.Nil for a built-in.
	Workspace uuid.UUID
	// BasedOn names the built-in standard whose limits this one uses (a built-in names itself).
	BasedOn string
	// Limits are the limits the checks judge by.
	Limits Limits
	// UnwantedWords and ExpectedWords are the words and phrases of the two word checks, which run
	// only when their list is not empty.
	UnwantedWords, ExpectedWords []string
	// TranscriptIncluded keeps the transcript with the report (GET /reports/{id}/transcript);
	// without it the transcript is only used for the checks and the report's is null.
	TranscriptIncluded bool
	// CreatedAt is when a custom standard was made; zero for a built-in.
	CreatedAt time.Time
}

// Range is a closed interval.
type Range struct{ Min, Max float64 }

// Limits are a standard's limits. A zero limit where a zero makes no sense (a minimum bitrate,
// an empty list of sample rates) means the check does not run under this standard.
type Limits struct {
	// Loudness and MonoLoudness are the integrated loudness ranges in LUFS for a file of two or
	// more channels and for a mono file.
	Loudness, MonoLoudness Range
	// MaxTruePeak is in dBTP.
	MaxTruePeak float64
	// MaxLoudnessRange is in LU.
	MaxLoudnessRange float64
	// MaxClippingRuns is the most runs of clipped samples allowed.
	MaxClippingRuns int
	// SampleRates lists the allowed sample rates in Hz; when empty, MinSampleRate applies.
	SampleRates   []int
	MinSampleRate int
	// MinBitrateKbps and MinMonoBitrateKbps are the least bit rates of a lossy file (stereo and
	// mono); 0 means no bitrate check.
	MinBitrateKbps, MinMonoBitrateKbps float64
	// Channels lists the allowed channel counts.
	Channels []int
	// Silences allowed at the start, at the end, and anywhere between.
	MaxLeadingSilence, MaxTrailingSilence, MaxLongSilence time.Duration
	// MaxNoiseFloor is in dBFS.
	MaxNoiseFloor float64
}

func (l Limits) clone() Limits {
	l.SampleRates = slices.Clone(l.SampleRates)
	l.Channels = slices.Clone(l.Channels)
	return l
}

func (s Standard) clone() Standard {
	s.Limits = s.Limits.clone()
	s.UnwantedWords = slices.Clone(s.UnwantedWords)
	s.ExpectedWords = slices.Clone(s.ExpectedWords)
	return s
}

// standardNamespace makes the built-in standards' ids the same in every fake.
var standardNamespace = uuid.MustParse("5b0f3d62-1f8e-4c55-9c1b-6a2d1c9e7f10")

// Names of the built-in standards.
const (
	StandardPodcast    = "Podcast"
	StandardAESSpeech  = "AES speech"
	StandardEBUR128    = "EBU R128"
	defaultBuiltinName = StandardPodcast
)

// BuiltinStandards returns the three built-in standards, a copy the caller may change; Podcast is
// every workspace's default.
func BuiltinStandards() []Standard {
	shared := builtinStandards()
	out := make([]Standard, len(shared))
	for i, s := range shared {
		out[i] = s.clone()
	}
	return out
}

// builtinStandards is the process's one table of the built-in standards, which every core
// reads and none changes (a standard leaves the core as a clone): made once, on the first
// core, so that a fake's start does not hash their ids again.
var builtinStandards = sync.OnceValue(newBuiltinStandards)

// newBuiltinStandards makes the built-in standards. Their limits follow Apple's podcast
// requirements, AES TD1004 and EBU R128 where those fix them, and the fake's own proposals
// elsewhere (loudness range, silences, noise floor).
func newBuiltinStandards() []Standard {
	builtin := func(name string, l Limits) Standard {
		return Standard{
			ID: uuid.NewSHA1(standardNamespace, []byte(name)), Name: name, Builtin: true,
			BasedOn: name, Limits: l, TranscriptIncluded: true,
		}
	}
	return []Standard{
		builtin(StandardPodcast, Limits{
			Loudness: Range{-17, -15}, MonoLoudness: Range{-20, -18}, MaxTruePeak: -1,
			MaxLoudnessRange: 8, SampleRates: []int{44100, 48000},
			MinBitrateKbps: 128, MinMonoBitrateKbps: 64, Channels: []int{1, 2},
			MaxLeadingSilence: 2 * time.Second, MaxTrailingSilence: 3 * time.Second, MaxLongSilence: 5 * time.Second,
			MaxNoiseFloor: -60,
		}),
		builtin(StandardAESSpeech, Limits{
			Loudness: Range{-20, -16}, MonoLoudness: Range{-23, -19}, MaxTruePeak: -1,
			MaxLoudnessRange: 10, MinSampleRate: 44100,
			MinBitrateKbps: 96, MinMonoBitrateKbps: 96, Channels: []int{1, 2},
			MaxLeadingSilence: 2 * time.Second, MaxTrailingSilence: 5 * time.Second, MaxLongSilence: 10 * time.Second,
			MaxNoiseFloor: -60,
		}),
		builtin(StandardEBUR128, Limits{
			Loudness: Range{-23.5, -22.5}, MonoLoudness: Range{-23.5, -22.5}, MaxTruePeak: -1,
			MaxLoudnessRange: 20, SampleRates: []int{48000}, Channels: []int{2},
			MaxLeadingSilence: time.Second, MaxTrailingSilence: 2 * time.Second, MaxLongSilence: 10 * time.Second,
			MaxNoiseFloor: -65,
		}),
	}
}

// Check result statuses and severities.
const (
	Pass     = "PASS"
	Fail     = "FAIL"
	Required = "required"
	Info     = "info"
)

// Result is one row of a report's results.
type Result struct {
	Name            string
	VerboseName     string
	Status          string
	Value           json.RawMessage
	MeasurementUnit *string
	Description     string
	WarningMessage  *string
	Link            string
	Severity        string
	Limit           *string
}

// Stats summarises results.
type Stats struct {
	Passes, Failures, Total, Percent int
	Passed                           bool
	RequiredFailures, RequiredTotal  int
	InfoFlagged, InfoTotal           int
	TimeRemainingMillis              int64
}

// words writes a number for a limit or a message in words: as few decimals as it needs (at
// most two), and U+2212 for negatives.
func words(v float64) string {
	if math.IsInf(v, -1) {
		return "\u2212\u221e"
	}
	s := strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	if s == "-0" {
		s = "0"
	}
	return strings.Replace(s, "-", "\u2212", 1)
}

// orList writes allowed values as "a or b", "a, b or c".
func orList[T int | float64](vs []T) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = words(float64(v))
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

func ptr[T any](v T) *T { return &v }

// number writes a measured value unrounded; -Inf and NaN (silence) become null.
func number(v float64) json.RawMessage {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return json.RawMessage("null")
	}
	b, _ := json.Marshal(v)
	return b
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		// Only the package's own value types reach here, and they always marshal.
		return json.RawMessage("null")
	}
	return b
}

// summarise computes stats from results: passed only from required rows.
func summarise(results []Result) Stats {
	st := Stats{Total: len(results)}
	for _, r := range results {
		failed := r.Status == Fail
		if failed {
			st.Failures++
		} else {
			st.Passes++
		}
		if r.Severity == Required {
			st.RequiredTotal++
			if failed {
				st.RequiredFailures++
			}
		} else {
			st.InfoTotal++
			if failed {
				st.InfoFlagged++
			}
		}
	}
	st.Passed = st.RequiredFailures == 0
	if st.Total > 0 {
		st.Percent = int(math.Round(100 * float64(st.Passes) / float64(st.Total)))
	}
	return st
}

func fmtKbps(v float64) string { return fmt.Sprintf("%s kbps", words(v)) }
