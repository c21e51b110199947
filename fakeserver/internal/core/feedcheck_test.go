package core

import (
	"encoding/json"
	"testing"
)

// TestRejudgeExplicit: the explicit_flag row follows the feed's flag with the hits heard; a hit
// counts at 75% shown or without a confidence, and the verdict and stats follow.
func TestRejudgeExplicit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		hits     string
		explicit bool
		want     string
		passed   bool
	}{
		{"no hits, not explicit", `[]`, false, Pass, true},
		{"confident hit, not explicit", `[{"start":1,"finish":2,"description":"80%","confidence":0.8}]`, false, Fail, false},
		{"confident hit, explicit", `[{"start":1,"finish":2,"description":"80%","confidence":0.8}]`, true, Pass, true},
		{"hit without confidence", `[{"start":1,"finish":2,"description":"heard"}]`, false, Fail, false},
		{"unsure hit", `[{"start":1,"finish":2,"description":"60%","confidence":0.6}]`, false, Pass, true},
		{"hit at 75%", `[{"start":1,"finish":2,"description":"75%","confidence":0.75}]`, false, Fail, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := !tt.explicit
			value, _ := json.Marshal(map[string]any{"marked_explicit": before, "profanities": json.RawMessage(tt.hits)})
			results := []Result{
				{Name: "loudness_lufs", Status: Pass, Severity: Required, Value: json.RawMessage("-16")},
				{Name: "explicit_flag", Status: Pass, Severity: Required, Value: value},
			}
			st := summarise(results)
			r := &Report{Status: StatusComplete, Results: results, Stats: &st}
			held := r.Results
			rejudgeExplicit(r, tt.explicit)
			row := r.Results[1]
			var v struct {
				MarkedExplicit bool              `json:"marked_explicit"`
				Profanities    []json.RawMessage `json:"profanities"`
			}
			if err := json.Unmarshal(row.Value, &v); err != nil || v.MarkedExplicit != tt.explicit {
				t.Fatalf("value %s", row.Value)
			}
			var hits []json.RawMessage
			_ = json.Unmarshal([]byte(tt.hits), &hits)
			if len(v.Profanities) != len(hits) {
				t.Fatalf("hits lost: %s", row.Value)
			}
			if row.Status != tt.want || r.Stats.Passed != tt.passed || (row.WarningMessage != nil) != (tt.want == Fail) || r.Version != 1 {
				t.Fatalf("status %s passed %v warning %v version %d", row.Status, r.Stats.Passed, row.WarningMessage, r.Version)
			}
			if string(held[1].Value) != string(value) {
				t.Fatal("a reader's copy of the results changed")
			}
		})
	}
}
