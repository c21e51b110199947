package core

import (
	"context"
	"io"
	"math"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/seeded"
)

// Deps are the core's connections to the world: how feeds and audio are fetched and how audio
// is measured. The fakeserver package wires the real ones; tests may wire their own.
type Deps struct {
	// FetchFeed reads and parses the feed at url. Its error message says why in words fit for a
	// client.
	FetchFeed func(ctx context.Context, url string) (*FeedDoc, error)
	// OpenAudio opens the audio at url for reading.
	OpenAudio func(ctx context.Context, url string) (io.ReadCloser, error)
	// Analyze measures audio read from r; name is the file name (its extension hints the format).
	Analyze func(ctx context.Context, r io.Reader, name string) (Measurement, error)
	// Transcribe returns the transcript of the audio at audioURL (empty for an upload); ok is
	// false when there is none. The fake's "transcription" returns what a test scripted.
	Transcribe func(audioURL string) (lines []TranscriptLine, ok bool)
	// TranscribeContent returns the transcript scripted for audio by its content: sha256 is the
	// SHA-256 of the audio's bytes, computed while they stream to analysis. It is asked when
	// Transcribe has none (and always for uploads); ok is false when there is none.
	TranscribeContent func(sha256 [32]byte) (lines []TranscriptLine, ok bool)
	// Rand mints every id, key, token and secret; nil means a source seeded from crypto/rand.
	Rand *seeded.Source
	// AnalysisPace is the clock time one hour of audio takes to analyse; 0 finishes at once.
	AnalysisPace time.Duration
	// Observe hears what happens in the core (see Notice), in order, never under the core's
	// lock; nil hears nothing. It must not call the core.
	Observe func(Notice)
}

// FeedDoc is a parsed feed.
type FeedDoc struct {
	Title    string
	Explicit *bool
	// ImageURL is the channel's artwork (itunes:image href, else the RSS image url); "" when
	// the feed names none.
	ImageURL string
	// Episodes are newest first.
	Episodes []FeedEpisode
}

// FeedEpisode is one item of a feed with an audio enclosure.
type FeedEpisode struct {
	Title       string
	GUID        string
	AudioURL    string
	PublishedOn *time.Time
}

// GatedLoudness marks a window of Measurement.ShortTermLoudness at or under the absolute gate.
const GatedLoudness = math.MinInt16

// Measurement is what analysis found in a file.
type Measurement struct {
	Duration   time.Duration
	Size       int64
	Channels   int
	SampleRate int
	CodecName  string
	FormatName string
	// IntegratedLUFS is -Inf for silence.
	IntegratedLUFS float64
	SamplePeakDB   float64
	TruePeakDB     float64
	// Title is the title tag read from the file, if any.
	Title string

	// The fields below are optional measurements: nil (or zero, where said) means "not measured",
	// and a check whose input was not measured has no row in the report (see checks.go).

	// BitRate is the audio stream's bit rate in bits per second; 0 when unknown.
	BitRate int64
	// Lossy is true for lossy codecs (MP3, AAC, Vorbis, Opus); the bitrate check runs only then.
	Lossy bool
	// LoudnessRange is the EBU Tech 3342 loudness range in LU.
	LoudnessRange *float64
	// ShortTermLoudness is the short-term loudness once a second: value i is the 3 s window
	// ending at 3+i seconds, in hundredths of a LU, GatedLoudness where under the absolute gate.
	// It costs 2 bytes a second of audio (7,200 bytes an hour); nil when not measured.
	ShortTermLoudness []int16
	// LeadingSilence and TrailingSilence are the silence (under −60 dBFS) before the first and
	// after the last sound; LongestSilence is the longest silence between them.
	LeadingSilence, TrailingSilence, LongestSilence *time.Duration
	// ClippingRuns is the number of runs of consecutive clipped samples (at full scale).
	ClippingRuns *int
	// NoiseFloorDB is the 10th percentile of 100 ms RMS windows, in dBFS (−Inf for digital
	// silence).
	NoiseFloorDB *float64
	// DCOffset is the mean sample value as a fraction of full scale (−1 to 1), worst channel.
	DCOffset *float64
	// ChannelRMSDB is each channel's RMS level in dBFS (−Inf for a silent channel), in channel
	// order; nil when not measured.
	ChannelRMSDB []float64
	// Correlation is the left/right correlation coefficient (−1 to 1) of a stereo file; nil for
	// other files and when not measured.
	Correlation *float64
	// Tags are the file's tags; nil when the file's tags were not read at all (which is not the
	// same as a file read and found to carry none: that is a non-nil empty Tags).
	Tags *Tags
}

// Tags are the tags read from an audio file; "" is an absent tag.
type Tags struct {
	Title, Artist, Album string
	// Track is the track number as written in the file (such as "42" or "42/50").
	Track     string
	Year      string
	Copyright string
	Comments  string
	Chapters  []Chapter
	// Cover is the embedded cover picture; nil when the file carries none.
	Cover *Cover
}

// Chapter is a chapter marker; times are from the start of the audio.
type Chapter struct {
	Start, End time.Duration
	Title      string
}

// Cover is an embedded cover picture.
type Cover struct {
	// Data are the picture's bytes as stored in the file.
	Data []byte
	// MIME is the type the file declares for the picture, such as "image/jpeg".
	MIME string
	// Width and Height are in pixels; 0 when the reader did not decode them (the cover_image
	// check then reads them from Data).
	Width, Height int
}

// TranscriptLine is one line of a transcript; times are milliseconds from the start.
type TranscriptLine struct {
	Start, End int
	Text       string
	// Speaker is as scripted; the core relabels speakers "Speaker 1", "Speaker 2"... in order of
	// first appearance.
	Speaker    *string
	Confidence *float64
}
