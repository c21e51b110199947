package core

import (
	"os"
	"strings"
	"testing"
)

// TestChecksDocMatchesTheCode reads the check table of fakeserver/CHECKS.md and compares it with
// what judge writes: every check has a row, with its severity, unit, and each built-in's limit
// in the words the report gives (null for fixed rules).
func TestChecksDocMatchesTheCode(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../CHECKS.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	var order []string
	for l := range strings.Lines(string(doc)) {
		if !strings.HasPrefix(l, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(l), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		name := strings.Trim(cells[0], "`")
		rows[name] = cells
		order = append(order, name)
	}
	var want []string
	for _, c := range checkTable {
		want = append(want, c.name)
	}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Fatalf("CHECKS.md lists %v, the code %v", order, want)
	}
	for col, std := range BuiltinStandards() {
		std.UnwantedWords, std.ExpectedWords = []string{"um"}, []string{"hello"}
		no := false
		for _, channels := range []int{2, 1} {
			m := goodMeasurement(midLoudness(std))
			if channels == 1 {
				m.Channels, m.IntegratedLUFS = 1, (std.Limits.MonoLoudness.Min+std.Limits.MonoLoudness.Max)/2
			}
			for _, r := range judge(judgeInput{std: std, m: m, explicit: &no, hasTranscript: true}) {
				cells := rows[r.Name]
				unit := "—"
				if r.MeasurementUnit != nil {
					unit = *r.MeasurementUnit
				}
				if cells[1] != r.Severity || cells[2] != unit {
					t.Errorf("%s: CHECKS.md says %s %s, the code %s %s", r.Name, cells[1], cells[2], r.Severity, unit)
				}
				limit, cell := "null", cells[3+col]
				if r.Limit != nil {
					limit = *r.Limit
				}
				if channels == 1 && strings.Contains(cell, "mono: ") {
					cell = cell[strings.Index(cell, "mono: "):]
				}
				if !strings.Contains(cell, limit) {
					t.Errorf("%s under %s (%d channels): limit %q, CHECKS.md says %q", r.Name, std.Name, channels, limit, cells[3+col])
				}
			}
		}
	}
	if !strings.Contains(rows["bitrate"][5], "no check") {
		t.Error("CHECKS.md must say EBU R128 has no bitrate check")
	}
}
