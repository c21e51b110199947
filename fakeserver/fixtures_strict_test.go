package fakeserver

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestFixturesAsStrictAsTheControlAPI is D18 of issue 32: what the loader accepted and the
// control API would not is refused, each with the JSON path of the entry, syntax errors too.
func TestFixturesAsStrictAsTheControlAPI(t *testing.T) {
	t.Parallel()
	ws := func(extra string) string {
		return `{"workspaces":[{"ref":"a","type":"personal","name":"A"` + extra + `}]}`
	}
	manyWorkspaces := func(n int, last string) string {
		var b strings.Builder
		b.WriteString(`{"workspaces":[`)
		for i := range n {
			fmt.Fprintf(&b, `{"ref":"w%d","type":"personal","name":"W"},`, i)
		}
		b.WriteString(last + `]}`)
		return b.String()
	}
	tests := []struct {
		name, doc, want string
	}{
		{"duplicate key at the top", `{"workspaces":[],"workspaces":[]}`, "fixtures: workspaces: appears twice in one object"},
		{"duplicate key in an entry", ws(`,"name":"B"`), "fixtures: workspaces[0].name: appears twice in one object"},
		{"a document of null", `null`, "fixtures: the document is null"},
		{"null field", ws(`,"plan_allowance":null`), "fixtures: workspaces[0].plan_allowance: must not be null"},
		{"null list", `{"feeds":null}`, "fixtures: feeds: must not be null"},
		{"null in a list", `{"workspaces":[null]}`, "fixtures: workspaces[0]: must not be null"},
		{"a top-level array", `[]`, "fixtures: the document: must be an object"},
		{"fractional allowance", ws(`,"plan_allowance":1.5`), "fixtures: workspaces[0].plan_allowance: must be a whole number of credits from 0 to 1000000000"},
		{"huge allowance", ws(`,"plan_allowance":1e30`), "fixtures: workspaces[0].plan_allowance: must be a whole number"},
		{"fractional plan_used", ws(`,"plan_used":0.25`), "fixtures: workspaces[0].plan_used: must be a whole number"},
		{"integer as exponent", ws(`,"podcast_limit":1e2`), "fixtures: workspaces[0].podcast_limit: must be an integer"},
		{"1 MB key", ws(`,"api_keys":[{"ref":"k","key":"podqa_api_` + strings.Repeat("k", 1<<20) + `"}]`), "fixtures: workspaces[0].api_keys[0].key: may have at most 128 characters"},
		{"long key", ws(`,"api_keys":[{"ref":"k","key":"podqa_api_` + strings.Repeat("k", MaxFixtureKeyLength+1) + `"}]`), "fixtures: workspaces[0].api_keys[0].key: may have at most 128 characters"},
		{"long ref", `{"workspaces":[{"ref":"` + strings.Repeat("r", maxFixtureRef+1) + `","type":"personal","name":"A"}]}`, "fixtures: workspaces[0].ref: may be at most 256 bytes"},
		{"long unknown field", ws(`,"` + strings.Repeat("x", 1<<20) + `":1`), `fixtures: workspaces[0]."` + strings.Repeat("x", maxShownKey) + `"…: unknown field`},
		{"deep nesting", strings.Repeat(`{"a":`, 40) + "1" + strings.Repeat("}", 40), "nests more than 32 levels"},
		{"syntax error past 10,000 entries", manyWorkspaces(10_001, `{"ref":"x","type":"personal","name":}`), "fixtures: workspaces[10001].name: not JSON"},
		{"a document cut short", strings.TrimSuffix(manyWorkspaces(10_001, `{"ref":"x"`), `]}`), "fixtures: workspaces[10001]: not JSON: the document ends early"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := LoadFixtures(strings.NewReader(tt.doc))
			var fe *FixtureError
			if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) || len(err.Error()) > 400 {
				t.Fatalf("err = %.400v, want %q", err, tt.want)
			}
		})
	}
	for _, good := range []string{ws(`,"plan_allowance":1000000000,"plan_used":0`), ws(`,"plan_allowance":12000.0`), ws(`,"api_keys":[{"ref":"k","key":"podqa_api_` + strings.Repeat("k", MaxFixtureKeyLength) + `"}]`)} {
		if _, err := LoadFixtures(strings.NewReader(good)); err != nil {
			t.Errorf("%.200s: %v", good, err)
		}
	}
}

// BenchmarkLoadFixturesStandards loads a workspace of n custom standards into a fake: the time
// per standard stays flat as n grows (it was quadratic: 8,000 in 1.1 s, 50,000 in 53 s).
func BenchmarkLoadFixturesStandards(b *testing.B) {
	for _, n := range []int{2_000, 8_000, 32_000} {
		var doc strings.Builder
		doc.WriteString(`{"workspaces":[{"ref":"a","type":"personal","name":"A","standards":[`)
		for i := range n {
			if i > 0 {
				doc.WriteByte(',')
			}
			fmt.Fprintf(&doc, `{"ref":"s%d","name":"Standard %d"}`, i, i)
		}
		doc.WriteString(`]}]}`)
		b.Run(fmt.Sprintf("standards=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f, err := LoadFixtures(strings.NewReader(doc.String()))
				if err != nil {
					b.Fatal(err)
				}
				srv, err := New(WithFixtures(f), WithManualClock(TestStart()))
				if err != nil {
					b.Fatal(err)
				}
				_ = srv.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/standard")
		})
	}
}
