package core

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // cover pictures are JPEG or PNG: register both decoders for DecodeConfig
	_ "image/png"
	"slices"
	"strings"
	"time"
)

// judgeInput is everything a report is judged on.
type judgeInput struct {
	std Standard
	m   Measurement
	// explicit is the feed's flag for a feed report; nil for uploads and unknown flags, which
	// get no explicit_flag row.
	explicit *bool
	// transcript is what transcription heard (speakers as scripted); hasTranscript is false
	// when the audio has none, and then the word checks have no row.
	transcript    []TranscriptLine
	hasTranscript bool
	// heard is transcript split into words; judge fills it once for every check.
	heard []heardLine
}

// check is one row of the check table: its fixed facts and how it judges. run returns ok false
// when the check does not apply or its input was not measured: the report then has no row.
type check struct {
	name, verbose string
	unit          string // "" for none
	severity      string
	link          string
	description   string
	run           func(in judgeInput) (row verdict, ok bool)
}

// verdict is what a check found.
type verdict struct {
	value any
	// limit in words; "" for a fixed rule (null).
	limit string
	// warning is set on a failure and only then.
	warning string
}

const docBase = "https://podqa.io/docs/checks/"

// checkTable lists every check in report order within each severity. The project's
// documentation (fakeserver/CHECKS.md) lists the same table; a test keeps the two in step.
var checkTable = []check{
	{
		name: "loudness_lufs", verbose: "Integrated loudness", unit: "LUFS", severity: Required,
		link: "https://tech.ebu.ch/publications/r128",
		description: "Integrated loudness of the whole episode per ITU-R BS.1770-4, gated (absolute gate " +
			"\u221270 LUFS, relative gate \u221210 LU). A mono file is measured as one channel, so it reads " +
			"about 3 LU lower than the same signal as dual-mono stereo, and is judged against the mono range.\n\n" +
			"Listeners move between shows; an episode within the range spares them the volume control.",
		run: func(in judgeInput) (verdict, bool) {
			r := in.std.Limits.Loudness
			if in.m.Channels == 1 {
				r = in.std.Limits.MonoLoudness
			}
			v := verdict{value: number(in.m.IntegratedLUFS), limit: fmt.Sprintf("between %s and %s LUFS", words(r.Min), words(r.Max))}
			if !(in.m.IntegratedLUFS >= r.Min && in.m.IntegratedLUFS <= r.Max) {
				v.warning = fmt.Sprintf("The episode measures %s LUFS; aim for %s LUFS.", words(in.m.IntegratedLUFS), words((r.Min+r.Max)/2))
			}
			return v, true
		},
	},
	{
		name: "peak", verbose: "True peak", unit: "dBTP", severity: Required,
		link: "https://www.itu.int/rec/R-REC-BS.1770",
		description: "Highest inter-sample peak, measured with 4\u00d7 oversampling.\n\n" +
			"Peaks above the limit distort after lossy encoding.",
		run: func(in judgeInput) (verdict, bool) {
			lim := in.std.Limits.MaxTruePeak
			v := verdict{value: number(in.m.TruePeakDB), limit: fmt.Sprintf("at most %s dBTP", words(lim))}
			if in.m.TruePeakDB > lim {
				v.warning = fmt.Sprintf("The true peak reaches %s dBTP; keep it at or below %s dBTP.", words(in.m.TruePeakDB), words(lim))
			}
			return v, true
		},
	},
	{
		name: "clipping", verbose: "Clipping", unit: "runs", severity: Required, link: docBase + "clipping",
		description: "Runs of consecutive samples at digital full scale, where the waveform was cut off.\n\n" +
			"Clipping is heard as harsh distortion and cannot be undone by turning the episode down.",
		run: func(in judgeInput) (verdict, bool) {
			if in.m.ClippingRuns == nil {
				return verdict{}, false
			}
			n, lim := *in.m.ClippingRuns, in.std.Limits.MaxClippingRuns
			v := verdict{value: n, limit: fmt.Sprintf("at most %d runs", lim)}
			if n > lim {
				v.warning = fmt.Sprintf("The audio clips in %d %s; lower the gain before the limiter and export again.", n, plural(n, "place", "places"))
			}
			return v, true
		},
	},
	{
		name: "sample_rate", verbose: "Sample rate", unit: "Hz", severity: Required, link: docBase + "sample_rate",
		description: "Samples per second of the audio stream.\n\n" +
			"Apps and players expect the rates distribution uses; others are resampled, sometimes badly.",
		run: func(in judgeInput) (verdict, bool) {
			l := in.std.Limits
			if in.m.SampleRate <= 0 || (len(l.SampleRates) == 0 && l.MinSampleRate <= 0) {
				return verdict{}, false
			}
			rate := in.m.SampleRate
			var v verdict
			v.value = rate
			if len(l.SampleRates) > 0 {
				v.limit = orList(l.SampleRates) + " Hz"
				if !slices.Contains(l.SampleRates, rate) {
					v.warning = fmt.Sprintf("The audio is sampled at %d Hz; export at %s Hz.", rate, orList(l.SampleRates))
				}
			} else {
				v.limit = fmt.Sprintf("at least %d Hz", l.MinSampleRate)
				if rate < l.MinSampleRate {
					v.warning = fmt.Sprintf("The audio is sampled at %d Hz; export at %d Hz or more.", rate, l.MinSampleRate)
				}
			}
			return v, true
		},
	},
	{
		name: "bitrate", verbose: "Bitrate", unit: "kbps", severity: Required, link: docBase + "bitrate",
		description: "Bit rate of a lossy audio stream (MP3, AAC, Vorbis, Opus). Lossless files have no " +
			"such row.\n\nBelow the limit, speech picks up audible artefacts.",
		run: func(in judgeInput) (verdict, bool) {
			l := in.std.Limits
			lim := l.MinBitrateKbps
			if in.m.Channels == 1 {
				lim = l.MinMonoBitrateKbps
			}
			if !in.m.Lossy || in.m.BitRate <= 0 || lim <= 0 {
				return verdict{}, false
			}
			kbps := float64(in.m.BitRate) / 1000
			v := verdict{value: kbps, limit: "at least " + fmtKbps(lim)}
			if kbps < lim {
				v.warning = fmt.Sprintf("The audio is encoded at %s; encode at %s or more.", fmtKbps(kbps), fmtKbps(lim))
			}
			return v, true
		},
	},
	{
		name: "channels", verbose: "Channels", unit: "channels", severity: Required, link: docBase + "channels",
		description: "Number of audio channels.\n\nSpeech is published in mono or stereo; other layouts " +
			"are downmixed by players in ways nobody controls.",
		run: func(in judgeInput) (verdict, bool) {
			allowed := in.std.Limits.Channels
			if in.m.Channels <= 0 || len(allowed) == 0 {
				return verdict{}, false
			}
			v := verdict{value: in.m.Channels, limit: orList(allowed)}
			if !slices.Contains(allowed, in.m.Channels) {
				v.warning = fmt.Sprintf("The audio has %d channels; publish %s.", in.m.Channels, orList(allowed)+" channels")
			}
			return v, true
		},
	},
	{
		name: "quiet_channel", verbose: "Quiet or inverted channel", severity: Required, link: docBase + "quiet_channel",
		description: "For stereo files: whether one channel is far quieter than the other (more than " +
			"20 dB below it, or below \u221270 dBFS), or the two are out of phase (correlation under " +
			"\u22120.5).\n\nA silent or inverted channel vanishes on a mono speaker. Loudness per " +
			"BS.1770 cannot see phase inversion, so this check looks for it.",
		run: func(in judgeInput) (verdict, bool) {
			if in.m.Channels != 2 || len(in.m.ChannelRMSDB) != 2 {
				return verdict{}, false
			}
			l, r := in.m.ChannelRMSDB[0], in.m.ChannelRMSDB[1]
			value := map[string]any{"left_rms_db": number(l), "right_rms_db": number(r), "correlation": nil}
			if in.m.Correlation != nil {
				value["correlation"] = number(*in.m.Correlation)
			}
			v := verdict{value: value}
			switch {
			case !(l >= -70) || !(r >= -70):
				v.warning = fmt.Sprintf("A channel is nearly silent (left %s dBFS, right %s dBFS).", words(l), words(r))
			case l-r > 20 || r-l > 20:
				v.warning = fmt.Sprintf("One channel is more than 20 dB below the other (left %s dBFS, right %s dBFS).", words(l), words(r))
			case in.m.Correlation != nil && *in.m.Correlation < -0.5:
				v.warning = fmt.Sprintf("The channels are out of phase (correlation %s); a mono listener hears them cancel.", words(*in.m.Correlation))
			}
			return v, true
		},
	},
	{
		name: "explicit_flag", verbose: "Explicit flag", severity: Required, link: docBase + "explicit_flag",
		description: "Whether profanity was heard in an episode whose feed does not mark it explicit.\n\n" +
			"A hit counts when its description shows 75% or more, or when the transcription gave no " +
			"confidence; lower-confidence hits are listed but do not fail the check. The result " +
			"follows the feed's current flag.",
		run: func(in judgeInput) (verdict, bool) {
			if in.explicit == nil {
				return verdict{}, false
			}
			hits := findHits(in.heard, profanities)
			v := verdict{value: map[string]any{"marked_explicit": *in.explicit, "profanities": hits}}
			if !*in.explicit {
				counting := 0
				for _, h := range hits {
					if h.counts() {
						counting++
					}
				}
				if counting > 0 {
					v.warning = fmt.Sprintf("Profanity was heard %s but the feed does not mark the episode explicit.", times(counting))
				}
			}
			return v, true
		},
	},
	{
		name: "loudness_range", verbose: "Loudness range", unit: "LU", severity: Info, link: "https://tech.ebu.ch/publications/tech3342",
		description: "Loudness range per EBU Tech 3342: the spread between soft and loud passages.\n\n" +
			"A wide range makes listeners in cars and on trains ride the volume.",
		run: func(in judgeInput) (verdict, bool) {
			if in.m.LoudnessRange == nil {
				return verdict{}, false
			}
			return atMost(*in.m.LoudnessRange, in.std.Limits.MaxLoudnessRange, "LU",
				"The loudness range is %s LU; compress gently to bring it to %s LU or less."), true
		},
	},
	silenceCheck("leading_silence", "Leading silence", "Silence before the first sound.",
		func(m Measurement) *time.Duration { return m.LeadingSilence },
		func(l Limits) time.Duration { return l.MaxLeadingSilence }),
	silenceCheck("trailing_silence", "Trailing silence", "Silence after the last sound.",
		func(m Measurement) *time.Duration { return m.TrailingSilence },
		func(l Limits) time.Duration { return l.MaxTrailingSilence }),
	silenceCheck("long_silence", "Longest silence", "The longest silence between the first and the last sound.",
		func(m Measurement) *time.Duration { return m.LongestSilence },
		func(l Limits) time.Duration { return l.MaxLongSilence }),
	{
		name: "noise_floor", verbose: "Noise floor", unit: "dBFS", severity: Info, link: docBase + "noise_floor",
		description: "Level of the quietest passages: the 10th percentile of 100 ms RMS windows.\n\n" +
			"A high floor is heard as hum or hiss between words.",
		run: func(in judgeInput) (verdict, bool) {
			if in.m.NoiseFloorDB == nil {
				return verdict{}, false
			}
			return atMost(*in.m.NoiseFloorDB, in.std.Limits.MaxNoiseFloor, "dBFS",
				"The noise floor sits at %s dBFS; treat the recording for hum and hiss to bring it to %s dBFS or less."), true
		},
	},
	{
		name: "cover_image", verbose: "Cover image", severity: Info, link: docBase + "cover_image",
		description: "The picture embedded in the file: present, JPEG or PNG, square, 1400 to 3000 pixels " +
			"a side, RGB colour.\n\nApps show it when the episode plays.",
		run: func(in judgeInput) (verdict, bool) {
			if in.m.Tags == nil {
				return verdict{}, false
			}
			cv := in.m.Tags.Cover
			if cv == nil {
				return verdict{value: map[string]any{"present": false}, warning: "The file carries no cover image."}, true
			}
			f := cv.Facts()
			v := verdict{value: map[string]any{
				"present": true, "width": f.Width, "height": f.Height, "format": f.Format,
				"color_model": f.ColorModel, "file_size": len(cv.Data),
			}}
			var problems []string
			if f.Format != "jpeg" && f.Format != "png" {
				problems = append(problems, "it is not a JPEG or PNG picture")
			}
			if f.Width != f.Height {
				problems = append(problems, fmt.Sprintf("it is %d\u00d7%d, not square", f.Width, f.Height))
			}
			if f.Width < 1400 || f.Width > 3000 || f.Height < 1400 || f.Height > 3000 {
				problems = append(problems, "its sides are not from 1400 to 3000 pixels")
			}
			if f.ColorModel != "rgb" {
				problems = append(problems, "it is not in RGB colour")
			}
			if len(problems) > 0 {
				v.warning = "The cover image does not suit podcast apps: " + strings.Join(problems, "; ") + "."
			}
			return v, true
		},
	},
	{
		name: "metadata", verbose: "Metadata tags", severity: Info, link: docBase + "metadata",
		description: "Whether the file's tags name its title, artist and album.\n\n" +
			"Players show the tags when the file is shared or downloaded outside a podcast app.",
		run: func(in judgeInput) (verdict, bool) {
			t := in.m.Tags
			if t == nil {
				return verdict{}, false
			}
			present := map[string]bool{
				"title": strings.TrimSpace(t.Title) != "", "artist": strings.TrimSpace(t.Artist) != "",
				"album": strings.TrimSpace(t.Album) != "",
			}
			var missing []string
			for _, k := range []string{"title", "artist", "album"} {
				if !present[k] {
					missing = append(missing, k)
				}
			}
			v := verdict{value: present}
			if len(missing) > 0 {
				v.warning = "The file's tags lack: " + strings.Join(missing, ", ") + "."
			}
			return v, true
		},
	},
	{
		name: "unwanted_words", verbose: "Unwanted words", severity: Info, link: docBase + "unwanted_words",
		description: "Every time a word or phrase the standard lists as unwanted was said, from the " +
			"transcript.\n\nMatching ignores case and punctuation and takes whole words; a phrase " +
			"matches within one transcript line.",
		run: func(in judgeInput) (verdict, bool) {
			if len(in.std.UnwantedWords) == 0 || !in.hasTranscript {
				return verdict{}, false
			}
			hits := findHits(in.heard, in.std.UnwantedWords)
			v := verdict{value: hits}
			if len(hits) > 0 {
				v.warning = fmt.Sprintf("Unwanted words were said %s.", times(len(hits)))
			}
			return v, true
		},
	},
	{
		name: "expected_words", verbose: "Expected words", severity: Info, link: docBase + "expected_words",
		description: "Where each word or phrase the standard expects was said, from the transcript.\n\n" +
			"The check fails when any phrase was never said.",
		run: func(in judgeInput) (verdict, bool) {
			if len(in.std.ExpectedWords) == 0 || !in.hasTranscript {
				return verdict{}, false
			}
			type phraseHits struct {
				Phrase string `json:"phrase"`
				Hits   []Hit  `json:"hits"`
			}
			out := make([]phraseHits, 0, len(in.std.ExpectedWords))
			var never []string
			for _, p := range in.std.ExpectedWords {
				hits := findHits(in.heard, []string{p})
				out = append(out, phraseHits{Phrase: p, Hits: hits})
				if len(hits) == 0 {
					never = append(never, fmt.Sprintf("%q", p))
				}
			}
			v := verdict{value: out}
			if len(never) > 0 {
				v.warning = "Never said: " + strings.Join(never, ", ") + "."
			}
			return v, true
		},
	},
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

func atMost(value, limit float64, unit, warning string) verdict {
	v := verdict{value: number(value), limit: fmt.Sprintf("at most %s %s", words(limit), unit)}
	if !(value <= limit) {
		v.warning = fmt.Sprintf(warning, words(value), words(limit))
	}
	return v
}

func silenceCheck(name, verbose, what string, get func(Measurement) *time.Duration, limit func(Limits) time.Duration) check {
	return check{
		name: name, verbose: verbose, unit: "s", severity: Info, link: docBase + name,
		description: what + " Silence is audio under \u221260 dBFS.\n\nLong silences make listeners think the episode stalled.",
		run: func(in judgeInput) (verdict, bool) {
			d := get(in.m)
			if d == nil {
				return verdict{}, false
			}
			return atMost(d.Seconds(), limit(in.std.Limits).Seconds(), "s",
				"There are %s s of silence; trim it to %s s or less."), true
		},
	}
}

// judge runs a standard's checks on a measurement: required rows first, each severity in table
// order; checks that do not apply or lack their input have no row.
func judge(in judgeInput) []Result {
	in.heard = tokenizeLines(in.transcript)
	var required, info []Result
	for _, c := range checkTable {
		v, ok := c.run(in)
		if !ok {
			continue
		}
		r := Result{
			Name: c.name, VerboseName: c.verbose, Status: Pass, Value: mustJSON(v.value),
			Description: c.description, Link: c.link, Severity: c.severity,
		}
		if c.unit != "" {
			r.MeasurementUnit = ptr(c.unit)
		}
		if v.limit != "" {
			r.Limit = ptr(v.limit)
		}
		if v.warning != "" {
			r.Status, r.WarningMessage = Fail, ptr(v.warning)
		}
		if c.severity == Required {
			required = append(required, r)
		} else {
			info = append(info, r)
		}
	}
	return append(required, info...)
}

// CoverFacts are what the fake reads from a cover picture.
type CoverFacts struct {
	Width, Height int
	// Format is "jpeg", "png", another image package format name, or "" when the bytes are not
	// a picture the fake can read.
	Format string
	// ColorModel is "rgb", "gray", "cmyk" or "" when unknown.
	ColorModel string
}

// Facts reads the picture's size, format and colour model from its bytes; Width and Height
// given by the tag reader win over the decoded ones.
func (cv *Cover) Facts() CoverFacts {
	var f CoverFacts
	cfg, format, err := image.DecodeConfig(bytes.NewReader(cv.Data))
	if err == nil {
		f.Width, f.Height, f.Format = cfg.Width, cfg.Height, format
		switch cfg.ColorModel {
		case color.GrayModel, color.Gray16Model:
			f.ColorModel = "gray"
		case color.CMYKModel:
			f.ColorModel = "cmyk"
		case nil:
		default:
			f.ColorModel = "rgb" // RGB(A), YCbCr (JPEG's way of storing RGB) and paletted colour
		}
	}
	if cv.Width > 0 && cv.Height > 0 {
		f.Width, f.Height = cv.Width, cv.Height
	}
	return f
}
