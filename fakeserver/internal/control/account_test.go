package control

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// TestReportAccountJSON: an account shows what was not measured, silence's loudness and gated
// windows as null, the loudness series in two decimals, and a failure only when there is one.
func TestReportAccountJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	report := core.Report{ID: uuid.MustParse("9b2c1f0e-3d4a-4b5c-8d6e-7f8091a2b3c4"), Workspace: uuid.MustParse("0b0e3c4e-0000-4000-8000-000000000000"),
		Source: core.SourceSeeded, Status: core.StatusInProgress, CreatedAt: at, UpdatedAt: at}
	measured := report
	measured.Status = core.StatusFailed
	measured.Measurement = &core.Measurement{FormatName: "wav", Duration: 2 * time.Second, IntegratedLUFS: math.Inf(-1), TruePeakDB: -1.5,
		ShortTermLoudness: []int16{core.GatedLoudness, -2345}}
	tests := []struct {
		name string
		acc  core.ReportAccount
		want []string // parts of the JSON
	}{
		{"not measured", core.ReportAccount{Report: report},
			[]string{`"failure":null`, `"measured":null`, `"loudness":{"step_s":1,"window_s":3,"lufs":[]}`, `"series_id":null`, `"checks":[]`, `"deliveries":[]`, `"emails":[]`}},
		{"measured silence, failed", core.ReportAccount{Report: measured, Failure: "too quiet"},
			[]string{`"failure":"too quiet"`, `"integrated_lufs":null`, `"true_peak_db":-1.5`, `"duration_s":2`, `"lufs":[null,-23.45]`, `"loudness_range_lu":null`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			raw, err := json.Marshal(reportAccountJSONOf(tt.acc))
			if err != nil {
				t.Fatal(err)
			}
			for _, part := range tt.want {
				if !strings.Contains(string(raw), part) {
					t.Errorf("%s lacks %s", raw, part)
				}
			}
		})
	}
}
