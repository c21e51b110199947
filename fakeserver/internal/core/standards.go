package core

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/google/uuid"
)

// Standard is a named set of checks with their limits.
type Standard struct {
	ID      uuid.UUID
	Name    string
	Builtin bool
	// Loudness targets (LUFS) and tolerance (LU), for stereo and for mono files.
	LoudnessTarget, MonoLoudnessTarget, LoudnessTolerance float64
	// MaxTruePeak is the highest allowed true peak in dBTP.
	MaxTruePeak float64
}

// standardNamespace makes the built-in standards' ids the same in every fake.
var standardNamespace = uuid.MustParse("5b0f3d62-1f8e-4c55-9c1b-6a2d1c9e7f10")

func builtinStandard(name string, target, monoTarget, tolerance float64) Standard {
	return Standard{
		ID: uuid.NewSHA1(standardNamespace, []byte(name)), Name: name, Builtin: true,
		LoudnessTarget: target, MonoLoudnessTarget: monoTarget, LoudnessTolerance: tolerance, MaxTruePeak: -1,
	}
}

// BuiltinStandards returns the three built-in standards; Podcast is every workspace's default.
func BuiltinStandards() []Standard {
	return []Standard{
		builtinStandard("Podcast", -16, -19, 1),
		builtinStandard("AES speech", -18, -21, 2),
		builtinStandard("EBU R128", -23, -23, 0.5),
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

// words writes a number for a limit in words: U+2212 for negatives.
func words(v float64) string {
	s := strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", v), "0"), ".")
	return strings.Replace(s, "-", "\u2212", 1)
}

func ptr[T any](v T) *T { return &v }

func number(v float64) json.RawMessage {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return json.RawMessage("null")
	}
	b, _ := json.Marshal(v)
	return b
}

// judge runs a standard's checks on a measurement. explicit is the feed's flag for a feed report
// (nil for uploads and unknown flags, which get no explicit_flag row).
func judge(std Standard, m Measurement, explicit *bool) []Result {
	target := std.LoudnessTarget
	if m.Channels == 1 {
		target = std.MonoLoudnessTarget
	}
	lo, hi := target-std.LoudnessTolerance, target+std.LoudnessTolerance
	loud := Result{
		Name: "loudness_lufs", VerboseName: "Integrated loudness", Value: number(m.IntegratedLUFS),
		MeasurementUnit: ptr("LUFS"), Severity: Required,
		Description: "Integrated loudness of the whole episode per ITU-R BS.1770-4, gated.\n\n" +
			"Listeners move between shows; episodes near the target need no volume change.",
		Link:  "https://tech.ebu.ch/publications/r128",
		Limit: ptr(fmt.Sprintf("between %s and %s LUFS", words(lo), words(hi))),
	}
	loud.Status = Pass
	if !(m.IntegratedLUFS >= lo && m.IntegratedLUFS <= hi) {
		loud.Status = Fail
		loud.WarningMessage = ptr(fmt.Sprintf("The episode measures %s LUFS; aim for %s LUFS.", words(m.IntegratedLUFS), words(target)))
	}
	peak := Result{
		Name: "peak", VerboseName: "True peak", Value: number(m.TruePeakDB),
		MeasurementUnit: ptr("dBTP"), Severity: Required,
		Description: "Highest inter-sample peak, measured with 4× oversampling.\n\n" +
			"Peaks above the limit distort after lossy encoding.",
		Link:  "https://www.itu.int/rec/R-REC-BS.1770",
		Limit: ptr(fmt.Sprintf("at most %s dBTP", words(std.MaxTruePeak))),
	}
	peak.Status = Pass
	if m.TruePeakDB > std.MaxTruePeak {
		peak.Status = Fail
		peak.WarningMessage = ptr(fmt.Sprintf("The true peak reaches %s dBTP; keep it at or below %s dBTP.", words(m.TruePeakDB), words(std.MaxTruePeak)))
	}
	results := []Result{loud, peak}
	if explicit != nil {
		value, _ := json.Marshal(map[string]any{"marked_explicit": *explicit, "profanities": []any{}})
		results = append(results, Result{
			Name: "explicit_flag", VerboseName: "Explicit flag", Status: Pass, Value: value, Severity: Required,
			Description: "Whether profanity was heard in an episode whose feed does not mark it explicit.",
		})
	}
	return results
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
