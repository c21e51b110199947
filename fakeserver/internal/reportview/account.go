package reportview

import (
	"encoding/json"
	"math"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// Check is one check of a report's standard as a report's account shows it (fakeserver's
// CheckAccount, GET /_fake/reports/{id}): the value measured against its limit, and why it
// passed or failed.
type Check struct {
	// ID is the check's name in the report's results; Name its human name.
	ID   string
	Name string
	// Value is the measured value with its unit; Limit the standard's limit ("" when none).
	Value, Limit string
	// Severity is required or info.
	Severity string
	Passed   bool
	// Why says, as a person would, why the check passed or failed.
	Why string
}

// CheckOf is res as an account shows it.
func CheckOf(res core.Result) Check {
	out := Check{ID: res.Name, Name: res.VerboseName, Severity: res.Severity, Passed: res.Status == core.Pass}
	var v any
	if json.Unmarshal(res.Value, &v) == nil {
		if str, ok := v.(string); ok {
			out.Value = str
		} else {
			out.Value = string(res.Value)
		}
	} else {
		out.Value = string(res.Value)
	}
	if res.MeasurementUnit != nil && *res.MeasurementUnit != "" {
		out.Value += " " + *res.MeasurementUnit
	}
	if res.Limit != nil {
		out.Limit = *res.Limit
	}
	// Why reads as a person would say it: rounded, and digital silence rather than null.
	unit, warning := "", ""
	if res.MeasurementUnit != nil {
		unit = *res.MeasurementUnit
	}
	if res.WarningMessage != nil {
		warning = *res.WarningMessage
	}
	out.Why = Why(FormatValue(res.Value, unit), out.Limit, out.Passed, warning, res.Description)
	return out
}

// The short-term loudness series of an account: a LoudnessWindow-long window every
// LoudnessStep (BS.1770 / EBU R128 short term).
const (
	LoudnessStep   = time.Second
	LoudnessWindow = 3 * time.Second
)

// Loudness expands the core's short-term loudness (hundredths of a LU) to LUFS, NaN where the
// window is gated; never nil.
func Loudness(series []int16) []float32 {
	out := make([]float32, len(series))
	for i, v := range series {
		if v == core.GatedLoudness {
			out[i] = float32(math.NaN())
		} else {
			out[i] = float32(v) / 100
		}
	}
	return out
}
