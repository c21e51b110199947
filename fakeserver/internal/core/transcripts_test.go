package core

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func line(start, end int, text string, speaker string, conf *float64) TranscriptLine {
	l := TranscriptLine{Start: start, End: end, Text: text, Confidence: conf}
	if speaker != "" {
		l.Speaker = &speaker
	}
	return l
}

func explicitRow(t *testing.T, marked *bool, lines []TranscriptLine) (Result, bool) {
	t.Helper()
	return rowOf(judge(judgeInput{std: builtin(t, StandardPodcast), m: goodMeasurement(-16), explicit: marked, transcript: lines, hasTranscript: lines != nil}), "explicit_flag")
}

func TestExplicitFlagRule(t *testing.T) {
	t.Parallel()
	no, yes := false, true
	tests := []struct {
		name   string
		marked *bool
		lines  []TranscriptLine
		want   string // "" for no row
		hits   []Hit
	}{
		{"upload or flag unknown: no row", nil, []TranscriptLine{line(0, 1000, "damn", "", nil)}, "", nil},
		{"clean episode", &no, []TranscriptLine{line(0, 1000, "hello there", "", ptr(0.99))}, Pass, []Hit{}},
		{"no transcript at all", &no, nil, Pass, []Hit{}},
		{"confident hit fails, shown capped at 90%", &no, []TranscriptLine{line(0, 1000, "Damn!", "", ptr(0.97))}, Fail,
			[]Hit{{Start: 0, Finish: 800, Description: `"damn" (90%)`, Confidence: ptr(0.97)}}},
		{"hit without confidence counts", &no, []TranscriptLine{line(2000, 2400, "oh hell", "", nil)}, Fail,
			[]Hit{{Start: 2171, Finish: 2400, Description: `"hell"`}}},
		{"shows 75%: counts", &no, []TranscriptLine{line(0, 100, "shit", "", ptr(0.749))}, Fail,
			[]Hit{{Start: 0, Finish: 100, Description: `"shit" (75%)`, Confidence: ptr(0.749)}}},
		{"shows 74%: listed but does not count", &no, []TranscriptLine{line(0, 100, "shit", "", ptr(0.744))}, Pass,
			[]Hit{{Start: 0, Finish: 100, Description: `"shit" (74%)`, Confidence: ptr(0.744)}}},
		{"marked explicit never fails", &yes, []TranscriptLine{line(0, 100, "fuck", "", nil)}, Pass,
			[]Hit{{Start: 0, Finish: 100, Description: `"fuck"`}}},
		{"words containing a profanity are not hits", &no, []TranscriptLine{line(0, 100, "hello, shell, Dickens, scrap", "", nil)}, Pass, []Hit{}},
	}
	for _, tt := range tests {
		r, ok := explicitRow(t, tt.marked, tt.lines)
		if tt.want == "" {
			if ok {
				t.Errorf("%s: row %+v", tt.name, r)
			}
			continue
		}
		var v struct {
			MarkedExplicit bool  `json:"marked_explicit"`
			Profanities    []Hit `json:"profanities"`
		}
		if !ok || json.Unmarshal(r.Value, &v) != nil {
			t.Fatalf("%s: no row or bad value %s", tt.name, r.Value)
		}
		if r.Status != tt.want || v.MarkedExplicit != *tt.marked || !hitsEqual(v.Profanities, tt.hits) || r.Limit != nil || r.Severity != Required {
			t.Errorf("%s: %s %s, want %s %+v", tt.name, r.Status, r.Value, tt.want, tt.hits)
		}
		if (r.Status == Fail) != (r.WarningMessage != nil) {
			t.Errorf("%s: warning %v", tt.name, r.WarningMessage)
		}
	}
	// The raw value keeps confidence absent (not null) when there is none.
	r, _ := explicitRow(t, &no, []TranscriptLine{line(0, 100, "crap", "", nil)})
	if !strings.Contains(string(r.Value), `{"start":0,"finish":100,"description":"\"crap\""}`) {
		t.Fatalf("hit without confidence %s", r.Value)
	}
}

func hitsEqual(a, b []Hit) bool {
	return slices.EqualFunc(a, b, func(x, y Hit) bool {
		return x.Start == y.Start && x.Finish == y.Finish && x.Description == y.Description &&
			(x.Confidence == nil) == (y.Confidence == nil) && (x.Confidence == nil || *x.Confidence == *y.Confidence)
	})
}

func TestShownPercent(t *testing.T) {
	t.Parallel()
	for conf, want := range map[float64]int{0: 0, 0.5: 50, 0.744: 74, 0.749: 75, 0.75: 75, 0.9: 90, 0.904: 90, 0.99: 90, 1: 90} {
		if got := shownPercent(conf); got != want {
			t.Errorf("shownPercent(%v) = %d, want %d", conf, got, want)
		}
	}
}

func wordRows(t *testing.T, unwanted, expected []string, lines []TranscriptLine, has bool) (Result, bool, Result, bool) {
	t.Helper()
	std := builtin(t, StandardPodcast)
	std.UnwantedWords, std.ExpectedWords = unwanted, expected
	results := judge(judgeInput{std: std, m: goodMeasurement(-16), transcript: lines, hasTranscript: has})
	u, uok := rowOf(results, "unwanted_words")
	e, eok := rowOf(results, "expected_words")
	return u, uok, e, eok
}

func TestUnwantedWords(t *testing.T) {
	t.Parallel()
	lines := []TranscriptLine{
		line(0, 2000, "So, basically, you know, BASICALLY it's fine.", "a", ptr(0.95)),
		line(2000, 4000, "You know what? I don't know.", "b", nil),
		line(4000, 5000, "you", "a", nil),
		line(5000, 6000, "know the basics", "a", nil),
	}
	tests := []struct {
		name     string
		unwanted []string
		want     []Hit
		status   string
	}{
		// Times sit inside the line in proportion to the phrase's place in its text: "basically"
		// is runes 4 to 13 of 45 in a line of 2000 ms.
		{"every time, any case, whole words", []string{"basically"}, []Hit{
			{Start: 177, Finish: 577, Description: `"basically" (90%)`, Confidence: ptr(0.95)},
			{Start: 1111, Finish: 1511, Description: `"basically" (90%)`, Confidence: ptr(0.95)},
		}, Fail},
		{"phrases match within a line, not across lines", []string{"you know"}, []Hit{
			{Start: 666, Finish: 1022, Description: `"you know" (90%)`, Confidence: ptr(0.95)},
			{Start: 2000, Finish: 2571, Description: `"you know"`},
		}, Fail},
		{"apostrophes, typographic or not", []string{"don’t"}, []Hit{{Start: 3214, Finish: 3571, Description: `"don't"`}}, Fail},
		{"two lists merge by time", []string{"know", "basically"}, []Hit{
			{Start: 177, Finish: 577, Description: `"basically" (90%)`, Confidence: ptr(0.95)},
			{Start: 844, Finish: 1022, Description: `"know" (90%)`, Confidence: ptr(0.95)},
			{Start: 1111, Finish: 1511, Description: `"basically" (90%)`, Confidence: ptr(0.95)},
			{Start: 2285, Finish: 2571, Description: `"know"`},
			{Start: 3642, Finish: 3928, Description: `"know"`},
			{Start: 5000, Finish: 5266, Description: `"know"`},
		}, Fail},
		{"never said passes with an empty list", []string{"literally"}, []Hit{}, Pass},
	}
	for _, tt := range tests {
		u, ok, _, _ := wordRows(t, tt.unwanted, nil, lines, true)
		var hits []Hit
		if !ok || json.Unmarshal(u.Value, &hits) != nil {
			t.Fatalf("%s: no row or bad value", tt.name)
		}
		if u.Status != tt.status || !hitsEqual(hits, tt.want) || u.Severity != Info || u.Limit != nil || u.MeasurementUnit != nil {
			t.Errorf("%s: %s %s\nwant %+v", tt.name, u.Status, u.Value, tt.want)
		}
		if tt.status == Pass && string(u.Value) != "[]" {
			t.Errorf("%s: value %s, want []", tt.name, u.Value)
		}
	}
	if _, ok, _, ok2 := wordRows(t, nil, nil, lines, true); ok || ok2 {
		t.Fatal("word rows without word lists")
	}
	if _, ok, _, ok2 := wordRows(t, []string{"x"}, []string{"y"}, nil, false); ok || ok2 {
		t.Fatal("word rows without a transcript")
	}
}

func TestExpectedWords(t *testing.T) {
	t.Parallel()
	lines := []TranscriptLine{
		line(0, 1000, "Welcome to the show", "", ptr(0.6)),
		line(9000, 10000, "Thanks for listening!", "", nil),
	}
	type phrase struct {
		Phrase string `json:"phrase"`
		Hits   []Hit  `json:"hits"`
	}
	tests := []struct {
		name     string
		expected []string
		status   string
		want     []phrase
	}{
		{"all said", []string{"welcome", "thanks for listening"}, Pass, []phrase{
			{"welcome", []Hit{{Start: 0, Finish: 368, Description: `"welcome" (60%)`, Confidence: ptr(0.6)}}},
			{"thanks for listening", []Hit{{Start: 9000, Finish: 9952, Description: `"thanks for listening"`}}},
		}},
		{"one never said", []string{"Welcome", "see you next week"}, Fail, []phrase{
			{"Welcome", []Hit{{Start: 0, Finish: 368, Description: `"welcome" (60%)`, Confidence: ptr(0.6)}}},
			{"see you next week", []Hit{}},
		}},
	}
	for _, tt := range tests {
		_, _, e, ok := wordRows(t, nil, tt.expected, lines, true)
		var got []phrase
		if !ok || json.Unmarshal(e.Value, &got) != nil || len(got) != len(tt.want) {
			t.Fatalf("%s: %s", tt.name, e.Value)
		}
		for i := range got {
			if got[i].Phrase != tt.want[i].Phrase || !hitsEqual(got[i].Hits, tt.want[i].Hits) {
				t.Errorf("%s: %s", tt.name, e.Value)
			}
		}
		if e.Status != tt.status || (e.Status == Fail) != (e.WarningMessage != nil) {
			t.Errorf("%s: %s", tt.name, e.Status)
		}
	}
	_, _, e, _ := wordRows(t, nil, []string{"see you next week"}, lines, true)
	if !strings.Contains(string(e.Value), `"hits":[]`) {
		t.Fatalf("a phrase never said has an empty list, not null: %s", e.Value)
	}
}

func TestLabelSpeakers(t *testing.T) {
	t.Parallel()
	lines := []TranscriptLine{
		line(0, 1, "a", "host", nil), line(1, 2, "b", "guest", nil), line(2, 3, "c", "", nil),
		line(3, 4, "d", "host", nil), line(4, 5, "e", "caller", ptr(0.5)),
	}
	got := labelSpeakers(lines)
	want := []string{"Speaker 1", "Speaker 2", "", "Speaker 1", "Speaker 3"}
	for i, l := range got {
		name := ""
		if l.Speaker != nil {
			name = *l.Speaker
		}
		if name != want[i] || l.Text != lines[i].Text {
			t.Fatalf("line %d: %q, want %q", i, name, want[i])
		}
	}
	if *lines[0].Speaker != "host" {
		t.Fatal("labelSpeakers changed its input")
	}
}

func FuzzFindHits(f *testing.F) {
	f.Add("So, basically, you know", "you know", 0, 1000)
	f.Add("don’t 'quote' x", "don't", 5, 5)
	f.Add("\xff\xfe bad utf8 word", "word", 10, 20)
	f.Fuzz(func(t *testing.T, text, phrase string, start, length int) {
		if start < 0 || length < 0 || start > 1<<30 || length > 1<<30 {
			return
		}
		l := TranscriptLine{Start: start, End: start + length, Text: text}
		hits := findHits(tokenizeLines([]TranscriptLine{l}), []string{phrase})
		for i, h := range hits {
			if h.Start < l.Start || h.Finish > l.End || h.Finish < h.Start {
				t.Fatalf("hit %+v outside line %d..%d", h, l.Start, l.End)
			}
			if i > 0 && hits[i-1].Start > h.Start {
				t.Fatalf("hits out of order: %+v", hits)
			}
			if !utf8.ValidString(h.Description) {
				t.Fatalf("description %q", h.Description)
			}
		}
		if len(phraseWords(phrase)) == 0 && len(hits) != 0 {
			t.Fatalf("a phrase without words matched: %+v", hits)
		}
	})
}
