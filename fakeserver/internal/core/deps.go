package core

import (
	"context"
	"io"
	"time"
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
	// AnalysisPace is the clock time one hour of audio takes to analyse; 0 finishes at once.
	AnalysisPace time.Duration
}

// FeedDoc is a parsed feed.
type FeedDoc struct {
	Title    string
	Explicit *bool
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
