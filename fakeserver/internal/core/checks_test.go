package core

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"strings"
	"testing"
	"time"
)

func durPtr(d time.Duration) *time.Duration { return &d }

// goodMeasurement passes every check of every built-in standard: stereo 48 kHz lossy at 192 kbps,
// with every optional measurement present.
func goodMeasurement(loudness float64) Measurement {
	return Measurement{
		Duration: 10 * time.Minute, Size: 1 << 20, Channels: 2, SampleRate: 48000, CodecName: "mp3", FormatName: "mp3",
		IntegratedLUFS: loudness, SamplePeakDB: -2, TruePeakDB: -1.5,
		BitRate: 192_000, Lossy: true, LoudnessRange: ptr(5.0),
		LeadingSilence: durPtr(500 * time.Millisecond), TrailingSilence: durPtr(time.Second), LongestSilence: durPtr(time.Second),
		ClippingRuns: ptr(0), NoiseFloorDB: ptr(-70.0), DCOffset: ptr(0.0),
		ChannelRMSDB: []float64{-20, -21}, Correlation: ptr(0.8),
		Tags: &Tags{Title: "Ep", Artist: "Show", Album: "Show", Cover: sizedCover(1400, 1400, "png", false)},
	}
}

// sizedCover is a small picture whose tag reader reported w×h, so that tests need not encode
// megapixel images; Facts takes the tag's size over the decoded one.
func sizedCover(w, h int, format string, gray bool) *Cover {
	return &Cover{Data: pictureBytes(8, 8, format, gray), MIME: "image/" + format, Width: w, Height: h}
}

func pictureBytes(w, h int, format string, gray bool) []byte {
	var img image.Image = image.NewRGBA(image.Rect(0, 0, w, h))
	if gray {
		img = image.NewGray(image.Rect(0, 0, w, h))
	}
	var buf bytes.Buffer
	if format == "jpeg" {
		_ = jpeg.Encode(&buf, img, nil)
	} else {
		_ = png.Encode(&buf, img)
	}
	return buf.Bytes()
}

func builtin(t *testing.T, name string) Standard {
	t.Helper()
	for _, s := range BuiltinStandards() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no built-in %q", name)
	return Standard{}
}

func rowOf(results []Result, name string) (Result, bool) {
	for _, r := range results {
		if r.Name == name {
			return r, true
		}
	}
	return Result{}, false
}

func midLoudness(s Standard) float64 { return (s.Limits.Loudness.Min + s.Limits.Loudness.Max) / 2 }

// TestEveryCheckAtItsLimits judges hand-built measurements on both sides of every limit of every
// built-in standard.
func TestEveryCheckAtItsLimits(t *testing.T) {
	t.Parallel()
	type tc struct {
		name   string
		mutate func(*Measurement)
		check  string
		want   string // PASS, FAIL, or "" for no row
		limit  string // "" skips the limit comparison; "null" wants a null limit
	}
	const eps = 0.01
	var cases []struct {
		std string
		tc
	}
	add := func(std string, c tc) {
		cases = append(cases, struct {
			std string
			tc
		}{std, c})
	}
	type spec struct {
		std                      string
		lo, hi, monoLo, monoHi   float64
		loudLimit, monoLimit     string
		lra                      float64
		rates                    []int // passing rates
		badRates                 []int
		rateLimit                string
		kbps, monoKbps           float64
		channels, badChannels    []int
		channelLimit             string
		lead, trail, long, noise float64
	}
	specs := []spec{
		{StandardPodcast, -17, -15, -20, -18, "between \u221217 and \u221215 LUFS", "between \u221220 and \u221218 LUFS", 8,
			[]int{44100, 48000}, []int{32000, 96000, 22050}, "44100 or 48000 Hz", 128, 64, []int{1, 2}, []int{6}, "1 or 2", 2, 3, 5, -60},
		{StandardAESSpeech, -20, -16, -23, -19, "between \u221220 and \u221216 LUFS", "between \u221223 and \u221219 LUFS", 10,
			[]int{44100, 48000, 96000}, []int{32000, 22050}, "at least 44100 Hz", 96, 96, []int{1, 2}, []int{6}, "1 or 2", 2, 5, 10, -60},
		{StandardEBUR128, -23.5, -22.5, -23.5, -22.5, "between \u221223.5 and \u221222.5 LUFS", "between \u221223.5 and \u221222.5 LUFS", 20,
			[]int{48000}, []int{44100, 96000}, "48000 Hz", 0, 0, []int{2}, []int{1, 6}, "2", 1, 2, 10, -65},
	}
	for _, sp := range specs {
		loud := func(v float64, ch int) func(*Measurement) {
			return func(m *Measurement) {
				m.IntegratedLUFS, m.Channels = v, ch
				if ch == 1 {
					m.ChannelRMSDB, m.Correlation = []float64{-20}, nil
				}
			}
		}
		add(sp.std, tc{"loudness at min", loud(sp.lo, 2), "loudness_lufs", Pass, sp.loudLimit})
		add(sp.std, tc{"loudness at max", loud(sp.hi, 2), "loudness_lufs", Pass, sp.loudLimit})
		add(sp.std, tc{"loudness under min", loud(sp.lo-eps, 2), "loudness_lufs", Fail, sp.loudLimit})
		add(sp.std, tc{"loudness over max", loud(sp.hi+eps, 2), "loudness_lufs", Fail, sp.loudLimit})
		add(sp.std, tc{"silence has no loudness", loud(math.Inf(-1), 2), "loudness_lufs", Fail, sp.loudLimit})
		add(sp.std, tc{"mono loudness at min", loud(sp.monoLo, 1), "loudness_lufs", Pass, sp.monoLimit})
		add(sp.std, tc{"mono loudness at max", loud(sp.monoHi, 1), "loudness_lufs", Pass, sp.monoLimit})
		add(sp.std, tc{"mono loudness under min", loud(sp.monoLo-eps, 1), "loudness_lufs", Fail, sp.monoLimit})
		add(sp.std, tc{"mono loudness over max", loud(sp.monoHi+eps, 1), "loudness_lufs", Fail, sp.monoLimit})
		add(sp.std, tc{"true peak at limit", func(m *Measurement) { m.TruePeakDB = -1 }, "peak", Pass, "at most \u22121 dBTP"})
		add(sp.std, tc{"true peak over", func(m *Measurement) { m.TruePeakDB = -1 + eps }, "peak", Fail, "at most \u22121 dBTP"})
		lraLimit := "at most " + words(sp.lra) + " LU"
		add(sp.std, tc{"loudness range at limit", func(m *Measurement) { m.LoudnessRange = ptr(sp.lra) }, "loudness_range", Pass, lraLimit})
		add(sp.std, tc{"loudness range over", func(m *Measurement) { m.LoudnessRange = ptr(sp.lra + eps) }, "loudness_range", Fail, lraLimit})
		add(sp.std, tc{"loudness range not measured", func(m *Measurement) { m.LoudnessRange = nil }, "loudness_range", "", ""})
		add(sp.std, tc{"no clipping", func(m *Measurement) { m.ClippingRuns = ptr(0) }, "clipping", Pass, "at most 0 runs"})
		add(sp.std, tc{"one clipping run", func(m *Measurement) { m.ClippingRuns = ptr(1) }, "clipping", Fail, "at most 0 runs"})
		add(sp.std, tc{"clipping not measured", func(m *Measurement) { m.ClippingRuns = nil }, "clipping", "", ""})
		for _, rate := range sp.rates {
			add(sp.std, tc{"sample rate allowed", func(m *Measurement) { m.SampleRate = rate }, "sample_rate", Pass, sp.rateLimit})
		}
		for _, rate := range sp.badRates {
			add(sp.std, tc{"sample rate refused", func(m *Measurement) { m.SampleRate = rate }, "sample_rate", Fail, sp.rateLimit})
		}
		if sp.kbps > 0 {
			lim := "at least " + words(sp.kbps) + " kbps"
			monoLim := "at least " + words(sp.monoKbps) + " kbps"
			br := func(bps int64, ch int) func(*Measurement) {
				return func(m *Measurement) {
					m.BitRate, m.Channels = bps, ch
					if ch == 1 {
						m.ChannelRMSDB, m.Correlation, m.IntegratedLUFS = []float64{-20}, nil, sp.monoLo
					}
				}
			}
			add(sp.std, tc{"bitrate at limit", br(int64(sp.kbps*1000), 2), "bitrate", Pass, lim})
			add(sp.std, tc{"bitrate under", br(int64(sp.kbps*1000)-1, 2), "bitrate", Fail, lim})
			add(sp.std, tc{"mono bitrate at limit", br(int64(sp.monoKbps*1000), 1), "bitrate", Pass, monoLim})
			add(sp.std, tc{"mono bitrate under", br(int64(sp.monoKbps*1000)-1, 1), "bitrate", Fail, monoLim})
		} else {
			add(sp.std, tc{"no bitrate limit", func(m *Measurement) { m.BitRate = 8000 }, "bitrate", "", ""})
		}
		add(sp.std, tc{"lossless has no bitrate row", func(m *Measurement) { m.Lossy, m.BitRate = false, 32000 }, "bitrate", "", ""})
		for _, ch := range sp.channels {
			add(sp.std, tc{"channels allowed", func(m *Measurement) {
				m.Channels = ch
				if ch == 1 {
					m.ChannelRMSDB, m.Correlation = []float64{-20}, nil
				}
			}, "channels", Pass, sp.channelLimit})
		}
		for _, ch := range sp.badChannels {
			add(sp.std, tc{"channels refused", func(m *Measurement) { m.Channels = ch; m.ChannelRMSDB, m.Correlation = nil, nil }, "channels", Fail, sp.channelLimit})
		}
		for _, s := range []struct {
			check string
			limit float64
			set   func(*Measurement, *time.Duration)
		}{
			{"leading_silence", sp.lead, func(m *Measurement, d *time.Duration) { m.LeadingSilence = d }},
			{"trailing_silence", sp.trail, func(m *Measurement, d *time.Duration) { m.TrailingSilence = d }},
			{"long_silence", sp.long, func(m *Measurement, d *time.Duration) { m.LongestSilence = d }},
		} {
			lim := "at most " + words(s.limit) + " s"
			at := time.Duration(s.limit * float64(time.Second))
			add(sp.std, tc{s.check + " at limit", func(m *Measurement) { s.set(m, durPtr(at)) }, s.check, Pass, lim})
			add(sp.std, tc{s.check + " over", func(m *Measurement) { s.set(m, durPtr(at+time.Millisecond)) }, s.check, Fail, lim})
			add(sp.std, tc{s.check + " not measured", func(m *Measurement) { s.set(m, nil) }, s.check, "", ""})
		}
		noiseLimit := "at most " + words(sp.noise) + " dBFS"
		add(sp.std, tc{"noise floor at limit", func(m *Measurement) { m.NoiseFloorDB = ptr(sp.noise) }, "noise_floor", Pass, noiseLimit})
		add(sp.std, tc{"noise floor over", func(m *Measurement) { m.NoiseFloorDB = ptr(sp.noise + eps) }, "noise_floor", Fail, noiseLimit})
		add(sp.std, tc{"digital silence floor", func(m *Measurement) { m.NoiseFloorDB = ptr(math.Inf(-1)) }, "noise_floor", Pass, noiseLimit})

		// Fixed rules, the same in every standard.
		rms := func(l, r float64, corr *float64) func(*Measurement) {
			return func(m *Measurement) { m.ChannelRMSDB, m.Correlation = []float64{l, r}, corr }
		}
		add(sp.std, tc{"channels 20 dB apart", rms(-20, -40, ptr(0.5)), "quiet_channel", Pass, "null"})
		add(sp.std, tc{"channels over 20 dB apart", rms(-20, -40.01, ptr(0.5)), "quiet_channel", Fail, "null"})
		add(sp.std, tc{"right channel over 20 dB louder", rms(-45, -24.9, ptr(0.5)), "quiet_channel", Fail, "null"})
		add(sp.std, tc{"channel at -70", rms(-70, -60, ptr(0.5)), "quiet_channel", Pass, "null"})
		add(sp.std, tc{"channel under -70", rms(-70.01, -60, ptr(0.5)), "quiet_channel", Fail, "null"})
		add(sp.std, tc{"silent channel", rms(math.Inf(-1), -20, nil), "quiet_channel", Fail, "null"})
		add(sp.std, tc{"correlation at -0.5", rms(-20, -20, ptr(-0.5)), "quiet_channel", Pass, "null"})
		add(sp.std, tc{"phase inverted", rms(-20, -20, ptr(-0.51)), "quiet_channel", Fail, "null"})
		add(sp.std, tc{"mono has no quiet_channel row", func(m *Measurement) { m.Channels, m.ChannelRMSDB, m.Correlation = 1, []float64{-20}, nil }, "quiet_channel", "", ""})
		add(sp.std, tc{"equal channels without a correlation", rms(0, 0, nil), "quiet_channel", Pass, "null"})
		add(sp.std, tc{"channel levels missing", func(m *Measurement) { m.ChannelRMSDB = nil }, "quiet_channel", "", ""})

		cover := func(cv *Cover) func(*Measurement) { return func(m *Measurement) { m.Tags.Cover = cv } }
		add(sp.std, tc{"cover 1400 png", cover(sizedCover(1400, 1400, "png", false)), "cover_image", Pass, "null"})
		add(sp.std, tc{"cover 3000 jpeg", cover(sizedCover(3000, 3000, "jpeg", false)), "cover_image", Pass, "null"})
		add(sp.std, tc{"cover 1399", cover(sizedCover(1399, 1399, "png", false)), "cover_image", Fail, "null"})
		add(sp.std, tc{"cover 3001 by tag", cover(&Cover{Data: pictureBytes(8, 8, "png", false), Width: 3001, Height: 3001}), "cover_image", Fail, "null"})
		add(sp.std, tc{"cover not square", cover(sizedCover(1400, 1500, "png", false)), "cover_image", Fail, "null"})
		add(sp.std, tc{"cover gray", cover(sizedCover(1400, 1400, "png", true)), "cover_image", Fail, "null"})
		add(sp.std, tc{"cover not a picture", cover(&Cover{Data: []byte("GIF89a not really"), Width: 1400, Height: 1400}), "cover_image", Fail, "null"})
		add(sp.std, tc{"cover absent", cover(nil), "cover_image", Fail, "null"})
		add(sp.std, tc{"tags not read", func(m *Measurement) { m.Tags = nil }, "cover_image", "", ""})
		add(sp.std, tc{"tags complete", func(*Measurement) {}, "metadata", Pass, "null"})
		add(sp.std, tc{"no album", func(m *Measurement) { m.Tags.Album = " " }, "metadata", Fail, "null"})
		add(sp.std, tc{"no artist", func(m *Measurement) { m.Tags.Artist = "" }, "metadata", Fail, "null"})
		add(sp.std, tc{"no tags at all", func(m *Measurement) { m.Tags = &Tags{} }, "metadata", Fail, "null"})
		add(sp.std, tc{"tags not read: no metadata row", func(m *Measurement) { m.Tags = nil }, "metadata", "", ""})
	}
	for _, c := range cases {
		t.Run(c.std+"/"+c.name, func(t *testing.T) {
			t.Parallel()
			std := builtin(t, c.std)
			m := goodMeasurement(midLoudness(std))
			c.mutate(&m)
			results := judge(judgeInput{std: std, m: m})
			row, ok := rowOf(results, c.check)
			if c.want == "" {
				if ok {
					t.Fatalf("%s has a row: %+v", c.check, row)
				}
				return
			}
			if !ok {
				t.Fatalf("no %s row in %v", c.check, names(results))
			}
			if row.Status != c.want {
				t.Fatalf("%s %s (value %s), want %s", c.check, row.Status, row.Value, c.want)
			}
			if (row.Status == Fail) != (row.WarningMessage != nil) {
				t.Fatalf("warning_message %v on %s", row.WarningMessage, row.Status)
			}
			switch {
			case c.limit == "null" && row.Limit != nil:
				t.Fatalf("limit %q, want null for a fixed rule", *row.Limit)
			case c.limit != "" && c.limit != "null" && (row.Limit == nil || *row.Limit != c.limit):
				t.Fatalf("limit %v, want %q", row.Limit, c.limit)
			}
			if row.Limit != nil && strings.Contains(*row.Limit, "-") {
				t.Fatalf("limit %q uses an ASCII hyphen for a minus", *row.Limit)
			}
			if !json.Valid(row.Value) || row.Description == "" || row.VerboseName == "" {
				t.Fatalf("row %+v", row)
			}
		})
	}
}

func names(results []Result) []string {
	out := make([]string, len(results))
	for i, r := range results {
		out[i] = r.Name
	}
	return out
}

// TestGoodMeasurementPassesEveryStandard checks the baseline of the limit table and the row
// order: required rows first, each in table order.
func TestGoodMeasurementPassesEveryStandard(t *testing.T) {
	t.Parallel()
	wantRows := map[string][]string{
		StandardPodcast:   {"loudness_lufs", "peak", "clipping", "sample_rate", "bitrate", "channels", "quiet_channel", "explicit_flag", "loudness_range", "leading_silence", "trailing_silence", "long_silence", "noise_floor", "cover_image", "metadata"},
		StandardAESSpeech: {"loudness_lufs", "peak", "clipping", "sample_rate", "bitrate", "channels", "quiet_channel", "explicit_flag", "loudness_range", "leading_silence", "trailing_silence", "long_silence", "noise_floor", "cover_image", "metadata"},
		StandardEBUR128:   {"loudness_lufs", "peak", "clipping", "sample_rate", "channels", "quiet_channel", "explicit_flag", "loudness_range", "leading_silence", "trailing_silence", "long_silence", "noise_floor", "cover_image", "metadata"},
	}
	for _, std := range BuiltinStandards() {
		notExplicit := false
		results := judge(judgeInput{std: std, m: goodMeasurement(midLoudness(std)), explicit: &notExplicit})
		if got := strings.Join(names(results), " "); got != strings.Join(wantRows[std.Name], " ") {
			t.Fatalf("%s rows %s", std.Name, got)
		}
		for _, r := range results {
			if r.Status != Pass {
				t.Fatalf("%s: %s fails: %s", std.Name, r.Name, *r.WarningMessage)
			}
		}
		st := summarise(results)
		if !st.Passed || st.Total != len(results) || st.Percent != 100 || st.InfoTotal != 7 {
			t.Fatalf("%s stats %+v", std.Name, st)
		}
	}
}

func TestUnitsAndValuesAreUnrounded(t *testing.T) {
	t.Parallel()
	m := goodMeasurement(-16.234567)
	m.BitRate = 127_999
	m.LeadingSilence = durPtr(1234567 * time.Microsecond)
	results := judge(judgeInput{std: builtin(t, StandardPodcast), m: m})
	want := map[string]struct{ unit, value string }{
		"loudness_lufs":   {"LUFS", "-16.234567"},
		"bitrate":         {"kbps", "127.999"},
		"leading_silence": {"s", "1.234567"},
		"sample_rate":     {"Hz", "48000"},
		"clipping":        {"runs", "0"},
	}
	for name, w := range want {
		r, ok := rowOf(results, name)
		if !ok || r.MeasurementUnit == nil || *r.MeasurementUnit != w.unit || string(r.Value) != w.value {
			t.Fatalf("%s: %+v value %s", name, r, r.Value)
		}
	}
	if r, _ := rowOf(results, "bitrate"); r.Status != Fail || !strings.Contains(*r.WarningMessage, "128 kbps") {
		t.Fatalf("bitrate %+v", r)
	}
	if r, _ := rowOf(results, "cover_image"); r.MeasurementUnit != nil {
		t.Fatalf("cover_image unit %v", *r.MeasurementUnit)
	}
	silent := goodMeasurement(math.Inf(-1))
	if r, _ := rowOf(judge(judgeInput{std: builtin(t, StandardPodcast), m: silent}), "loudness_lufs"); string(r.Value) != "null" {
		t.Fatalf("silence loudness value %s", r.Value)
	}
}

func TestCoverAndMetadataValues(t *testing.T) {
	t.Parallel()
	m := goodMeasurement(-16)
	m.Tags.Cover = &Cover{Data: pictureBytes(1500, 1500, "jpeg", false), MIME: "image/jpeg"} // decoded size
	m.Tags.Album = ""
	results := judge(judgeInput{std: builtin(t, StandardPodcast), m: m})
	cover, _ := rowOf(results, "cover_image")
	var cv map[string]any
	if err := json.Unmarshal(cover.Value, &cv); err != nil || cv["present"] != true || cv["width"] != 1500.0 || cv["format"] != "jpeg" || cv["color_model"] != "rgb" || cv["file_size"] != float64(len(m.Tags.Cover.Data)) {
		t.Fatalf("cover value %s", cover.Value)
	}
	meta, _ := rowOf(results, "metadata")
	if string(meta.Value) != `{"album":false,"artist":true,"title":true}` || meta.Status != Fail || meta.Severity != Info || !strings.Contains(*meta.WarningMessage, "album") {
		t.Fatalf("metadata row %+v %s", meta, meta.Value)
	}
	m.Tags.Cover = nil
	cover, _ = rowOf(judge(judgeInput{std: builtin(t, StandardPodcast), m: m}), "cover_image")
	if string(cover.Value) != `{"present":false}` || cover.Status != Fail || cover.Severity != Info {
		t.Fatalf("absent cover %+v %s", cover, cover.Value)
	}
}

func TestQuietChannelValue(t *testing.T) {
	t.Parallel()
	m := goodMeasurement(-16)
	m.ChannelRMSDB, m.Correlation = []float64{-20, math.Inf(-1)}, nil
	r, _ := rowOf(judge(judgeInput{std: builtin(t, StandardPodcast), m: m}), "quiet_channel")
	if string(r.Value) != `{"correlation":null,"left_rms_db":-20,"right_rms_db":null}` || r.Status != Fail {
		t.Fatalf("%+v %s", r, r.Value)
	}
}

func TestStatsRules(t *testing.T) {
	t.Parallel()
	row := func(sev, status string) Result { return Result{Severity: sev, Status: status} }
	tests := []struct {
		name string
		rows []Result
		want Stats
	}{
		{"none", nil, Stats{Passed: true}},
		{"info failures never fail the report", []Result{row(Required, Pass), row(Info, Fail), row(Info, Fail)},
			Stats{Passes: 1, Failures: 2, Total: 3, Percent: 33, Passed: true, RequiredTotal: 1, InfoFlagged: 2, InfoTotal: 2}},
		{"one required failure fails it", []Result{row(Required, Fail), row(Required, Pass), row(Info, Pass)},
			Stats{Passes: 2, Failures: 1, Total: 3, Percent: 67, Passed: false, RequiredFailures: 1, RequiredTotal: 2, InfoTotal: 1}},
		{"percent rounds half up", []Result{row(Required, Pass), row(Info, Fail), row(Info, Pass), row(Info, Pass),
			row(Info, Pass), row(Info, Pass), row(Info, Pass), row(Info, Pass)},
			Stats{Passes: 7, Failures: 1, Total: 8, Percent: 88, Passed: true, RequiredTotal: 1, InfoFlagged: 1, InfoTotal: 7}},
	}
	for _, tt := range tests {
		if got := summarise(tt.rows); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestWordsForLimits(t *testing.T) {
	t.Parallel()
	tests := map[float64]string{-16: "\u221216", -23.5: "\u221223.5", 0: "0", 128: "128", -0.001: "0", 127.999: "128", -1.25: "\u22121.25"}
	for v, want := range tests {
		if got := words(v); got != want {
			t.Errorf("words(%v) = %q, want %q", v, got, want)
		}
	}
	if got := orList([]int{44100, 48000, 96000}); got != "44100, 48000 or 96000" {
		t.Errorf("orList %q", got)
	}
}

func TestCoverFacts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cv   Cover
		want CoverFacts
	}{
		{"png", Cover{Data: pictureBytes(20, 10, "png", false)}, CoverFacts{20, 10, "png", "rgb"}},
		{"jpeg gray", Cover{Data: pictureBytes(16, 16, "jpeg", true)}, CoverFacts{16, 16, "jpeg", "gray"}},
		{"tag size wins", Cover{Data: pictureBytes(16, 16, "png", false), Width: 3000, Height: 3000}, CoverFacts{3000, 3000, "png", "rgb"}},
		{"garbage", Cover{Data: []byte("nope")}, CoverFacts{}},
		{"paletted", Cover{Data: func() []byte {
			var buf bytes.Buffer
			_ = png.Encode(&buf, image.NewPaletted(image.Rect(0, 0, 4, 4), color.Palette{color.Black, color.White}))
			return buf.Bytes()
		}()}, CoverFacts{4, 4, "png", "rgb"}},
	}
	for _, tt := range tests {
		if got := tt.cv.Facts(); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestWarningsCountInWords(t *testing.T) {
	t.Parallel()
	no := false
	std := builtin(t, StandardPodcast)
	std.UnwantedWords = []string{"um"}
	m := goodMeasurement(-16)
	m.ClippingRuns = ptr(1)
	once := judge(judgeInput{std: std, m: m, explicit: &no, hasTranscript: true, transcript: []TranscriptLine{line(0, 10, "um damn", "", nil)}})
	m.ClippingRuns = ptr(2)
	twice := judge(judgeInput{std: std, m: m, explicit: &no, hasTranscript: true, transcript: []TranscriptLine{line(0, 10, "um damn um damn", "", nil)}})
	for _, tt := range []struct {
		results []Result
		check   string
		want    string
	}{
		{once, "explicit_flag", "heard once but"}, {twice, "explicit_flag", "heard 2 times but"},
		{once, "unwanted_words", "said once."}, {twice, "unwanted_words", "said 2 times."},
		{once, "clipping", "in 1 place;"}, {twice, "clipping", "in 2 places;"},
	} {
		if r, _ := rowOf(tt.results, tt.check); r.WarningMessage == nil || !strings.Contains(*r.WarningMessage, tt.want) {
			t.Errorf("%s warning %v, want %q", tt.check, r.WarningMessage, tt.want)
		}
	}
}

// BenchmarkJudge judges a fully measured file with a transcript of 600 lines (50 minutes), every
// one with four hits, against a standard with word lists: the work done once per completed
// report, and again per finished report of a show when its explicit flag changes.
func BenchmarkJudge(b *testing.B) {
	std := BuiltinStandards()[0]
	std.UnwantedWords, std.ExpectedWords = []string{"um", "you know", "basically"}, []string{"thanks for listening"}
	lines := make([]TranscriptLine, 600)
	for i := range lines {
		lines[i] = line(i*5000, i*5000+4900, "So, um, basically this is what you know we talked about, damn.", "host", ptr(0.9))
	}
	no := false
	in := judgeInput{std: std, m: goodMeasurement(-16), explicit: &no, transcript: lines, hasTranscript: true}
	b.ReportAllocs()
	for b.Loop() {
		if len(judge(in)) == 0 {
			b.Fatal("no rows")
		}
	}
}
