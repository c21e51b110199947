package fakeserver

import (
	"context"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// analysisLimits are the ceilings of what the fake decodes, so that a file's cost is bounded by
// what it is charged whatever its size (a 54 KB FLAC bomb declared 8 channels and decoded to
// 50 minutes of them; a 61 KB one of 10 minutes at 384 kHz, charged the 10-minute minimum).
// Podcast audio is mono or stereo, and the checks judge nothing a third channel would add; no
// episode is longer than 12 hours; no service would take more than 192 kHz. A report is
// charged by its duration, at least ten minutes, so a file may decode at most the samples of
// 48 kHz stereo over its duration, and ten minutes' worth whatever its duration: ten minutes of
// any upload cost at most what ten minutes of 48 kHz stereo cost, and higher rates are measured
// while they fit (96 kHz stereo up to 5 minutes, 192 kHz stereo up to 2.5). Crossing one fails
// the report with the ceiling named. An M4A's copy to temporary files (its media data before
// its moov box, its long sample tables) is capped at the upload limit, for uploads and feed
// enclosures alike.
var analysisLimits = audio.Limits{
	MaxDuration: 12 * time.Hour, MaxChannels: 2, MaxSpill: core.MaxUploadBytes,
	MaxSampleRate: maxAnalysedRate, SamplesPerSecond: analysedSamplesPerSecond,
	MinSamples: analysedSamplesPerSecond * 10 * 60,
}

const (
	// maxAnalysedRate is the highest sample rate the fake measures.
	maxAnalysedRate = 192_000
	// analysedSamplesPerSecond is 48 kHz stereo: what a second of charged audio pays for.
	analysedSamplesPerSecond = 48_000 * 2
)

// analyze measures audio with the analysis engine; the file name breaks ties when the leading
// bytes do not identify the format. What it cannot measure (HE-AAC, say) fails the report with
// the decoder's reason. Decoding stops when ctx ends (the 10-minute limit of
// an analysis, or Close), for uploads as for downloads.
func analyze(ctx context.Context, r io.Reader, name string) (core.Measurement, error) {
	m, err := audio.MeasureContext(ctx, r, audio.WithNameHint(name), audio.WithLimits(analysisLimits))
	if err != nil {
		return core.Measurement{}, err
	}
	lra := m.LoudnessRange
	out := core.Measurement{
		Duration: m.Duration, Size: m.Size, Channels: m.Channels, SampleRate: m.SampleRate,
		CodecName: m.CodecName, FormatName: m.FormatName, IntegratedLUFS: m.IntegratedLUFS,
		SamplePeakDB: m.SamplePeakDB, TruePeakDB: m.TruePeakDB, Title: m.Title,
		BitRate: m.BitRate, Lossy: lossyCodecs[m.CodecName], LoudnessRange: &lra,
		Tags: mapTags(m.Tags, m.Cover),
		// Kept with the report for its account: clipped, so it holds 2 bytes a second and no more.
		ShortTermLoudness: slices.Clip([]int16(m.ShortTerm)),
	}
	mapSignalStats(m.SignalStats, &out)
	return out, nil
}

// lossyCodecs are the codecs (ffprobe's names) whose bit rate the bitrate check judges.
var lossyCodecs = map[string]bool{"mp3": true, "vorbis": true, "opus": true, "aac": true}

// mapTags copies the tags the engine read (every decoded file's tags are read, so the result
// is never nil: a file without tags has empty ones, and the metadata check fails as info).
func mapTags(t audio.Tags, cover *audio.Cover) *core.Tags {
	out := &core.Tags{
		Title: t.Title, Artist: t.Artist, Album: t.Album, Year: t.Year, Copyright: t.Copyright,
		Comments: strings.Join(t.Comments, "\n"),
	}
	if t.Track > 0 {
		out.Track = strconv.Itoa(t.Track)
	}
	for _, ch := range t.Chapters {
		out.Chapters = append(out.Chapters, core.Chapter{Start: ch.Start, End: ch.End, Title: ch.Title})
	}
	if cover != nil {
		out.Cover = &core.Cover{Data: cover.Data, MIME: cover.MIMEType, Width: cover.Width, Height: cover.Height}
	}
	return out
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
