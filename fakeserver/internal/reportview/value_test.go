package reportview

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFormatValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, raw, unit string
		text, full      string
		fields          int
	}{
		{"a loudness rounds to two decimals", `-12.005573259780554`, "LUFS", "\u221212.01 LUFS", "-12.005573259780554 LUFS", 0},
		{"a whole number has no decimals", `44100`, "Hz", "44100 Hz", "44100 Hz", 0},
		{"a null level is digital silence, not null", `null`, "dBFS", "\u2212\u221e dBFS (digital silence)", "\u2212\u221e dBFS (digital silence)", 0},
		{"a null count is not measured", `null`, "runs", "not measured", "not measured", 0},
		{"a string stays", `"mp3"`, "", "mp3", "mp3", 0},
		{"an object is labelled values in its order", `{"left_rms_db":-20.123,"right_rms_db":null,"correlation":0.98765}`, "",
			"left RMS \u221220.12 dBFS, right RMS \u2212\u221e dBFS, correlation 0.99", `{"left_rms_db":-20.123,"right_rms_db":null,"correlation":0.98765}`, 3},
		{"booleans read yes and no", `{"title":true,"artist":false,"album":true}`, "", "title yes, artist no, album yes", `{"title":true,"artist":false,"album":true}`, 3},
		{"an empty list is none", `[]`, "", "none", `[]`, 0},
		{"hits show description and time", `[{"start":61500,"finish":62000,"description":"\"damn\" (90%)","confidence":0.95}]`, "",
			"\"damn\" (90%) at 1:01.5", `[{"start":61500,"finish":62000,"description":"\"damn\" (90%)","confidence":0.95}]`, 1},
		{"expected phrases count their hits", `[{"phrase":"welcome","hits":[{"start":0,"finish":1,"description":"x"}]},{"phrase":"bye","hits":[]}]`, "",
			"welcome 1 hit, bye 0 hits", `[{"phrase":"welcome","hits":[{"start":0,"finish":1,"description":"x"}]},{"phrase":"bye","hits":[]}]`, 2},
		{"malformed JSON shows as it came", `{"a":`, "dB", `{"a": dB`, `{"a": dB`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := FormatValue(json.RawMessage(tt.raw), tt.unit)
			if got.Text != tt.text || got.Full != tt.full || len(got.Fields) != tt.fields {
				t.Errorf("FormatValue(%s, %q) = %+v; want text %q, full %q, %d fields", tt.raw, tt.unit, got, tt.text, tt.full, tt.fields)
			}
		})
	}
}

func TestWhyNeverShowsNull(t *testing.T) {
	t.Parallel()
	v := FormatValue(json.RawMessage(`null`), "dBFS")
	got := Why(v, "at most \u221260 dBFS", true, "", "desc")
	if strings.Contains(got, "null") || !strings.Contains(got, "digital silence") {
		t.Errorf("Why = %q", got)
	}
	if got := Why(v, "", true, "", "the description"); got != "the description" {
		t.Errorf("Why without a limit = %q", got)
	}
	if got := Why(v, "x", false, "the warning", ""); got != "the warning" {
		t.Errorf("Why of a failure = %q", got)
	}
}

func FuzzFormatValue(f *testing.F) {
	for _, s := range []string{`1.5`, `null`, `{"a":[1,{"b":null}]}`, `[{"phrase":"x","hits":[]}]`, `"s"`, `{`, `[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]`} {
		f.Add(s, "dB")
	}
	f.Fuzz(func(t *testing.T, raw, unit string) {
		v := FormatValue(json.RawMessage(raw), unit)
		if json.Valid([]byte(raw)) && strings.TrimSpace(raw) != `""` && v.Text == "" && v.Full == "" {
			t.Errorf("FormatValue(%q) shows nothing", raw)
		}
	})
}
