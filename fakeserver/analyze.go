package fakeserver

import (
	"context"
	"io"
	"math"
	"slices"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/internal/audio"
)

// analyze measures audio with the analysis engine. Only WAV is decoded so far; other formats
// fail the report with the decoder's reason.
func analyze(_ context.Context, r io.Reader, _ string) (core.Measurement, error) {
	m, err := audio.Measure(r)
	if err != nil {
		return core.Measurement{}, err
	}
	lra := m.LoudnessRange
	// Only fields the engine measures are mapped; the others stay nil ("not measured"), so
	// their checks have no row rather than a made-up verdict. WAV is PCM: never lossy.
	out := core.Measurement{
		Duration: m.Duration, Size: m.Size, Channels: m.Channels, SampleRate: m.SampleRate,
		CodecName: m.CodecName, FormatName: m.FormatName, IntegratedLUFS: m.IntegratedLUFS,
		SamplePeakDB: m.SamplePeakDB, TruePeakDB: m.TruePeakDB, Title: m.Title,
		BitRate: m.BitRate, Lossy: false, LoudnessRange: &lra,
	}
	mapSignalStats(m.SignalStats, &out)
	return out, nil
}

// mapSignalStats copies the engine's signal statistics into the core's measurement.
func mapSignalStats(st audio.SignalStats, out *core.Measurement) {
	leading, trailing, longest := st.LeadingSilence, st.TrailingSilence, st.LongestSilence
	out.LeadingSilence, out.TrailingSilence, out.LongestSilence = &leading, &trailing, &longest
	runs := int(st.ClippingRuns)
	out.ClippingRuns = &runs
	floor := st.NoiseFloorDB
	out.NoiseFloorDB = &floor
	out.ChannelRMSDB = slices.Clone(st.ChannelRMSDB)
	if len(st.DCOffset) > 0 {
		worst := st.DCOffset[0]
		for _, v := range st.DCOffset[1:] {
			if math.Abs(v) > math.Abs(worst) {
				worst = v
			}
		}
		out.DCOffset = &worst
	}
	if !math.IsNaN(st.Correlation) && out.Channels == 2 {
		corr := st.Correlation
		out.Correlation = &corr
	}
}

func synthSpec(ep HostedEpisode) audio.SynthSpec {
	channels := ep.Channels
	if channels == 0 {
		channels = 2 // stereo, as most shows publish; a mono file is judged against a lower target
	}
	spec := audio.SynthSpec{
		DurationSeconds: ep.DurationS, SampleRate: ep.SampleRate, Channels: channels,
		LoudnessLUFS: -16, TruePeakDB: ep.TruePeakDB, Title: ep.Title,
	}
	if ep.LoudnessLUFS != nil {
		spec.LoudnessLUFS = *ep.LoudnessLUFS
	}
	return spec
}

// checkSynthesis refuses, when an episode is hosted, audio the synthesiser could not make.
func checkSynthesis(ep HostedEpisode) error { return audio.CheckSpec(synthSpec(ep)) }

// synthesizeEpisode streams a hosted episode's audio: a WAV that measures at the episode's
// loudness and true peak.
func synthesizeEpisode(w io.Writer, ep HostedEpisode) error {
	return audio.SynthesizeTo(w, synthSpec(ep))
}
