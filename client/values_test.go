package client

import (
	"encoding/json"
	"errors"
	"math/big"
	"testing"
	"time"
)

func TestFormatTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 3, 4, 5, 6, 7, 891234567, time.UTC), "2026-03-04T05:06:07.891234+00:00"},
		{time.Date(2026, 3, 4, 7, 6, 7, 0, time.FixedZone("CEST", 2*3600)), "2026-03-04T05:06:07.000000+00:00"},
	}
	for _, tt := range tests {
		if got := FormatTime(tt.in); got != tt.want {
			t.Errorf("FormatTime(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestTimestampsDecode checks that the fixed form decodes to the same instant, in UTC.
func TestTimestampsDecode(t *testing.T) {
	t.Parallel()
	var k APIKey
	if err := json.Unmarshal([]byte(`{"created_at":"2025-01-02T09:30:00.123456+00:00","last_used_at":null}`), &k); err != nil {
		t.Fatal(err)
	}
	want := time.Date(2025, 1, 2, 9, 30, 0, 123456000, time.UTC)
	if !k.CreatedAt.Equal(want) || !k.LastUsedAt.IsZero() {
		t.Fatalf("got %v, %v", k.CreatedAt, k.LastUsedAt)
	}
	if FormatTime(k.CreatedAt) != "2025-01-02T09:30:00.123456+00:00" {
		t.Fatalf("round trip: %s", FormatTime(k.CreatedAt))
	}
}

func TestEstimateCredits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    time.Duration
		want int
	}{
		{0, 100},
		{-time.Minute, 100},
		{time.Second, 100},
		{10 * time.Minute, 100},
		{10*time.Minute + time.Millisecond, 110},
		{37 * time.Minute, 370},
		{2220000 * time.Millisecond, 370},
		{36*time.Minute + time.Second, 370},
		{time.Hour, 600},
	}
	for _, tt := range tests {
		if got := EstimateCredits(tt.d); got != tt.want {
			t.Errorf("EstimateCredits(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s            Status
		final, known bool
	}{
		{StatusPending, false, true},
		{StatusScheduled, false, true},
		{StatusInProgress, false, true},
		{StatusComplete, true, true},
		{StatusFailed, true, true},
		{StatusOutOfQuota, true, true},
		{StatusAwaitingReview, false, true},
		{"REVIEWING", false, false},
		{"complete", false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		if tt.s.IsFinal() != tt.final || tt.s.IsKnown() != tt.known {
			t.Errorf("%q: IsFinal %v IsKnown %v, want %v %v", tt.s, tt.s.IsFinal(), tt.s.IsKnown(), tt.final, tt.known)
		}
	}
}

func TestDate(t *testing.T) {
	t.Parallel()
	var e Episode
	if err := json.Unmarshal([]byte(`{"published_on":"2025-03-01"}`), &e); err != nil {
		t.Fatal(err)
	}
	if e.PublishedOn != (Date{2025, time.March, 1}) || e.PublishedOn.String() != "2025-03-01" {
		t.Fatalf("PublishedOn = %+v", e.PublishedOn)
	}
	if err := json.Unmarshal([]byte(`{"published_on":null}`), &e); err != nil || !e.PublishedOn.IsZero() {
		t.Fatalf("null: %+v, %v", e.PublishedOn, err)
	}
	for _, bad := range []string{`"2025-13-01"`, `20250301`, `"yesterday"`} {
		var d Date
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("Date %s accepted", bad)
		}
	}
	b, _ := json.Marshal(struct{ A, B Date }{A: Date{2025, 3, 1}})
	if string(b) != `{"A":"2025-03-01","B":null}` {
		t.Fatalf("marshal: %s", b)
	}
}

func TestDecimal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		json    string
		want    Decimal
		rat     string // "" for no value
		integer int64
		isInt   bool
	}{
		{`"370.00"`, "370.00", "370", 370, true},
		{`"0.1"`, "0.1", "1/10", 0, false},
		{`12.50`, "12.50", "25/2", 0, false},
		{`null`, "", "", 0, false},
	}
	for _, tt := range tests {
		var r Report
		if err := json.Unmarshal([]byte(`{"credits_charged":`+tt.json+`}`), &r); err != nil {
			t.Fatalf("%s: %v", tt.json, err)
		}
		if r.CreditsCharged != tt.want {
			t.Errorf("%s: CreditsCharged = %q, want %q", tt.json, r.CreditsCharged, tt.want)
		}
		rat, err := r.CreditsCharged.Rat()
		switch {
		case tt.rat == "" && err == nil:
			t.Errorf("%s: Rat() = %v, want an error", tt.json, rat)
		case tt.rat != "" && (err != nil || rat.Cmp(mustRat(tt.rat)) != 0):
			t.Errorf("%s: Rat() = %v, %v; want %s", tt.json, rat, err, tt.rat)
		}
		if n, ok := r.CreditsCharged.Int64(); ok != tt.isInt || n != tt.integer {
			t.Errorf("%s: Int64() = %d, %v", tt.json, n, ok)
		}
	}
	if f, ok := Decimal("0.1").Float64(); !ok || f != 0.1 {
		t.Errorf("Float64 = %v, %v", f, ok)
	}
	if _, err := Decimal("12,5").Rat(); err == nil {
		t.Error("12,5 accepted")
	}
	if b, _ := json.Marshal(Decimal("370.00")); string(b) != `"370.00"` {
		t.Errorf("marshal = %s", b)
	}
}

func mustRat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	return r
}

func TestJSONValue(t *testing.T) {
	t.Parallel()
	var fi FileInfo
	in := `{"size":48213004,"duration":"2220.5","codec_name":"mp3","channels":2,"sample_rate":null}`
	if err := json.Unmarshal([]byte(in), &fi); err != nil {
		t.Fatal(err)
	}
	if n, ok := fi.Size.Int(); !ok || n != 48213004 {
		t.Errorf("Size.Int = %d, %v", n, ok)
	}
	if f, ok := fi.Duration.Float(); !ok || f != 2220.5 {
		t.Errorf("Duration.Float = %v, %v", f, ok)
	}
	if _, ok := fi.Duration.Int(); ok {
		t.Error("2220.5 read as an integer")
	}
	if s, ok := fi.CodecName.Text(); !ok || s != "mp3" {
		t.Errorf("CodecName = %q, %v", s, ok)
	}
	if !fi.SampleRate.IsNull() || !fi.FormatName.IsNull() || fi.FormatName.Raw() != nil {
		t.Error("null and absent values not null")
	}
	if _, ok := fi.CodecName.Float(); ok {
		t.Error("mp3 read as a number")
	}
	out, _ := json.Marshal(fi)
	if string(out) != `{"size":48213004,"duration":"2220.5","codec_name":"mp3","format_name":null,"channels":2,"sample_rate":null}` {
		t.Errorf("marshal = %s", out)
	}
}

func TestParseLimit(t *testing.T) {
	t.Parallel()
	f := func(v float64) float64 { return v }
	tests := []struct {
		in   string
		want Limit
	}{
		{"between \u221217 and \u221215 LUFS", Limit{Min: -17, Max: -15, HasMin: true, HasMax: true, Unit: "LUFS"}},
		{"between -17 and -15 LUFS", Limit{Min: -17, Max: -15, HasMin: true, HasMax: true, Unit: "LUFS"}},
		{"between \u221215 and \u221217 LUFS", Limit{Min: -17, Max: -15, HasMin: true, HasMax: true, Unit: "LUFS"}},
		{"Between \u221223.5 and \u221222.5 LUFS", Limit{Min: -23.5, Max: -22.5, HasMin: true, HasMax: true, Unit: "LUFS"}},
		{"from 44100 to 48000 Hz", Limit{Min: 44100, Max: 48000, HasMin: true, HasMax: true, Unit: "Hz"}},
		{"at most \u22121 dBTP", Limit{Max: f(-1), HasMax: true, Unit: "dBTP"}},
		{"up to 3", Limit{Max: 3, HasMax: true}},
		{"no more than 2 words", Limit{Max: 2, HasMax: true, Unit: "words"}},
		{"below \u221260 dBFS", Limit{Max: -60, HasMax: true, Unit: "dBFS"}},
		{"at least 64 kbps", Limit{Min: 64, HasMin: true, Unit: "kbps"}},
		{"above 0.5", Limit{Min: 0.5, HasMin: true}},
		{"no less than 1400 px", Limit{Min: 1400, HasMin: true, Unit: "px"}},
	}
	for _, tt := range tests {
		got, err := ParseLimit(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseLimit(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "square", "between \u221217 LUFS", "at most loud", "between a and b", "\u221216 LUFS"} {
		if _, err := ParseLimit(bad); !errors.Is(err, ErrLimitFormat) {
			t.Errorf("ParseLimit(%q) err = %v", bad, err)
		}
	}
	l, _ := ParseLimit("between \u221217 and \u221215 LUFS")
	if !l.Contains(-16.2) || l.Contains(-14.9) || l.Contains(-17.1) {
		t.Error("Contains")
	}
}

func TestResultValueAccessors(t *testing.T) {
	t.Parallel()
	var r Report
	if err := json.Unmarshal([]byte(completedReportJSON), &r); err != nil {
		t.Fatal(err)
	}
	loud, ok := r.Result("loudness_lufs")
	if !ok {
		t.Fatal("no loudness_lufs")
	}
	if v, ok := loud.Float(); !ok || v != -16.23418 {
		t.Errorf("loudness Float = %v, %v", v, ok)
	}
	if _, ok := loud.Hits(); ok {
		t.Error("a number read as hits")
	}
	explicit, _ := r.Result("explicit_flag")
	ef, ok := explicit.ExplicitFlag()
	if !ok || ef.MarkedExplicit || len(ef.Profanities) != 2 {
		t.Fatalf("ExplicitFlag = %+v, %v", ef, ok)
	}
	if !ef.Profanities[0].Counts() || ef.Profanities[1].Counts() {
		t.Errorf("Counts: %+v", ef.Profanities)
	}
	if _, ok := explicit.Float(); ok {
		t.Error("an object read as a number")
	}
	unwanted, _ := r.Result("unwanted_words")
	hits, ok := unwanted.Hits()
	if !ok || len(hits) != 1 || hits[0].Start != 61250 || hits[0].Confidence != nil || !hits[0].Counts() {
		t.Fatalf("Hits = %+v, %v", hits, ok)
	}
	expected, _ := r.Result("expected_words")
	ew, ok := expected.ExpectedWords()
	if !ok || len(ew) != 2 || ew[0].Phrase != "thanks for listening" || len(ew[1].Hits) != 0 {
		t.Fatalf("ExpectedWords = %+v, %v", ew, ok)
	}
	if _, ok := expected.ExplicitFlag(); ok {
		t.Error("a list read as the explicit flag")
	}
	if _, ok := r.Result("no_such_check"); ok {
		t.Error("found a check that is not there")
	}
}

func TestHitCounts(t *testing.T) {
	t.Parallel()
	c := func(v float64) *float64 { return &v }
	tests := []struct {
		hit  Hit
		want bool
	}{
		{Hit{Description: `"damn" (90%)`, Confidence: c(0.97)}, true},
		{Hit{Description: `"damn" (75%)`, Confidence: c(0.748)}, true},
		{Hit{Description: `"damn" (74%)`, Confidence: c(0.744)}, false},
		{Hit{Description: `"damn"`}, true},
		{Hit{Description: `"damn"`, Confidence: c(0.8)}, true},
		{Hit{Description: `"damn"`, Confidence: c(0.5)}, false},
	}
	for _, tt := range tests {
		if got := tt.hit.Counts(); got != tt.want {
			t.Errorf("%+v: Counts = %v", tt.hit, got)
		}
	}
}

func TestPassedIsTheVerdict(t *testing.T) {
	t.Parallel()
	var r Report
	if err := json.Unmarshal([]byte(completedReportJSON), &r); err != nil {
		t.Fatal(err)
	}
	// The fixture fails an informational check: failures > 0, yet the report passed.
	if !r.Passed() || r.Stats.Failures == 0 {
		t.Fatalf("Passed %v with %d failures", r.Passed(), r.Stats.Failures)
	}
	if (&Report{}).Passed() {
		t.Fatal("a report without stats passed")
	}
}
