package fakeserver

import (
	"context"
	"io"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/internal/audio"
)

// analyze measures audio with the analysis engine; the file name breaks ties when the leading
// bytes do not identify the format. Formats it cannot measure (AAC is probed, not decoded) fail
// the report with the decoder's reason.
func analyze(_ context.Context, r io.Reader, name string) (core.Measurement, error) {
	m, err := audio.MeasureFile(r, name)
	if err != nil {
		return core.Measurement{}, err
	}
	return core.Measurement{
		Duration: m.Duration, Size: m.Size, Channels: m.Channels, SampleRate: m.SampleRate,
		CodecName: m.CodecName, FormatName: m.FormatName, IntegratedLUFS: m.IntegratedLUFS,
		SamplePeakDB: m.SamplePeakDB, TruePeakDB: m.TruePeakDB, Title: m.Title,
	}, nil
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
