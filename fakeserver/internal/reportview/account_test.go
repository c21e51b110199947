package reportview

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// TestCheckOf: an account's check shows a string value as the string, any other as its JSON,
// with its unit; the limit when there is one; and a why a person would write.
func TestCheckOf(t *testing.T) {
	t.Parallel()
	unit, limit := "LUFS", "−16 ± 1 LUFS"
	tests := []struct {
		name string
		res  core.Result
		want Check
	}{
		{"a number with its unit and limit", core.Result{Name: "integrated_loudness", VerboseName: "Loudness", Status: core.Pass, Severity: "required",
			Value: json.RawMessage(`-16.2`), MeasurementUnit: &unit, Limit: &limit},
			Check{ID: "integrated_loudness", Name: "Loudness", Value: "-16.2 LUFS", Limit: limit, Severity: "required", Passed: true}},
		{"a string, no limit", core.Result{Name: "codec", Status: core.Fail, Severity: "info", Value: json.RawMessage(`"mp3"`)},
			Check{ID: "codec", Value: "mp3", Severity: "info"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := CheckOf(tt.res)
			if got.Why == "" {
				t.Error("no why")
			}
			got.Why = ""
			if got != tt.want {
				t.Errorf("CheckOf = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestLoudness: hundredths of a LU become LUFS, a gated window NaN, and no series an empty one.
func TestLoudness(t *testing.T) {
	t.Parallel()
	got := Loudness([]int16{-2345, core.GatedLoudness, 0})
	if len(got) != 3 || got[0] != float32(-2345)/100 || !math.IsNaN(float64(got[1])) || got[2] != 0 {
		t.Errorf("Loudness = %v", got)
	}
	if empty := Loudness(nil); empty == nil || len(empty) != 0 {
		t.Errorf("Loudness(nil) = %#v, want an empty series", empty)
	}
}
