package fakeserver

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/podqa/podqa-go/fakeserver/internal/hosted"
)

// HostedEpisode describes an episode of a hosted feed; the fake synthesises its audio so that a
// real measurement gives the loudness and true peak asked for.
type HostedEpisode struct {
	Title string
	// GUID defaults to a fresh uuid.
	GUID string
	// Published is the episode's publication day: the date of Published in UTC; zero means the
	// fake clock's date.
	Published time.Time
	// Duration is the audio's length, more than 0 and at most 3 hours.
	Duration time.Duration
	// LoudnessLUFS is the integrated loudness to synthesise (default −16).
	LoudnessLUFS *float64
	// TruePeakDB is the true peak to synthesise; by default whatever the signal gives, at most
	// −1 dBTP.
	TruePeakDB *float64
	// Channels is 1 or 2 (default 2: stereo, so the default loudness passes the Podcast standard).
	Channels int
	// SampleRate defaults to 44100.
	SampleRate int
	// Transcript is what the fake's transcription returns for this audio.
	Transcript []TranscriptLine
	// FailAnalysis serves audio that cannot be decoded, so the report FAILs.
	FailAnalysis bool
	// Tags are written into the audio (ID3v2.4 in the WAV, and LIST/INFO), so that reports read
	// them as metadata. By default: the episode's title, and the feed's title as artist and
	// album.
	Tags *HostedTags
	// Cover is a PNG or JPEG image embedded in the audio as its front cover, at most 10 MiB; reports show it as cover_image. By default a plain 1400×1400 RGB PNG,
	// which passes the cover_image check.
	Cover []byte
	// BareAudio leaves out the default tags and cover: the audio carries only its title, so the
	// metadata and cover_image checks fail (as info).
	BareAudio bool
	// Format is "mp3" (MPEG layer III at a constant bit rate, audio/mpeg: MPEG-1 at 32000,
	// 44100 and 48000 Hz, MPEG-2 at 16000, 22050 and 24000, MPEG-2.5 at 8000, 11025 and 12000)
	// or "wav" (16-bit PCM, audio/wav). By default mp3 at those sample rates (the default 44100
	// included), else wav. An mp3 episode measures at the loudness and true peak
	// asked, like a wav one; a true peak its coding cannot meet is refused when it is hosted.
	Format string
	// BitRate is an mp3 episode's bit rate in kbit/s (default 128): 32 to 320 for MPEG-1, 8 to
	// 160 at the lower rates.
	BitRate int
}

// HostedTags are the tags written into a hosted episode's audio.
type HostedTags struct {
	Title   string
	Artist  string
	Album   string
	Year    int
	Comment string
	// Chapters are written as ID3v2 chapter frames.
	Chapters []HostedChapter
}

// HostedChapter is one chapter of a hosted episode; Start and End are offsets from the start of
// the audio, kept to the millisecond.
type HostedChapter struct {
	Start time.Duration
	End   time.Duration
	Title string
}

// TranscriptLine is one line of a scripted transcript; Start and End are offsets from the start
// of the audio, kept to the millisecond.
type TranscriptLine struct {
	Start      time.Duration
	End        time.Duration
	Text       string
	Speaker    *string
	Confidence *float64
}

// HostedFeedSpec describes a hosted feed; Episodes are newest first.
type HostedFeedSpec struct {
	Title    string
	Explicit bool
	Episodes []HostedEpisode
}

// HostedFeed identifies a hosted feed.
type HostedFeed struct {
	ID      string `json:"id"`
	FeedURL string `json:"feed_url"`
}

// HostedAudio identifies a hosted episode's audio.
type HostedAudio struct {
	GUID     string `json:"guid"`
	AudioURL string `json:"audio_url"`
}

// FeedChange changes a hosted feed; nil fields stay as they are.
type FeedChange struct {
	Explicit *bool `json:"explicit,omitempty"`
	// Broken makes the feed URL answer 500.
	Broken *bool `json:"broken,omitempty"`
}

// DefaultHostedAudioCache is the default budget, in bytes, of the cache of rendered hosted audio.
const DefaultHostedAudioCache = 64 << 20

// WithHostedAudioCache sets how many bytes of rendered hosted-episode audio the fake keeps, so
// that a repeat download is a copy instead of a new synthesis (default
// DefaultHostedAudioCache; 0 turns the cache off; negative is an error of New). The least
// recently downloaded audio goes first; audio longer than the whole budget is never kept.
func WithHostedAudioCache(maxBytes int64) Option {
	return func(o *options) { o.audioCache = maxBytes }
}

// hostedEpisode is e as the host takes it; the host gives it its defaults (hosted.Minter).
func hostedEpisode(e HostedEpisode) hosted.Episode {
	out := hosted.Episode{
		Title: e.Title, GUID: e.GUID, Published: e.Published, DurationS: e.Duration.Seconds(), LoudnessLUFS: e.LoudnessLUFS,
		TruePeakDB: e.TruePeakDB, Channels: e.Channels, SampleRate: e.SampleRate,
		FailAnalysis: e.FailAnalysis, Cover: e.Cover, BareAudio: e.BareAudio,
		Format: e.Format, BitRate: e.BitRate, Transcript: coreLines(e.Transcript),
	}
	if len(e.Transcript) == 0 {
		out.Transcript = nil // no transcript of its own
	}
	if t := e.Tags; t != nil {
		out.Tags = &hosted.Tags{Title: t.Title, Artist: t.Artist, Album: t.Album, Year: t.Year, Comment: t.Comment}
		for _, c := range t.Chapters {
			out.Tags.Chapters = append(out.Tags.Chapters, hosted.Chapter{Start: millis(c.Start), End: millis(c.End), Title: c.Title})
		}
	}
	return out
}

// minter gives what s hosts its defaults: ids from its generator, the day from its clock.
func (s *Server) minter() hosted.Minter {
	return hosted.Minter{NewID: func() uuid.UUID { return s.rand.UUID() }, Now: func() time.Time { return s.clock.Now() }}
}

// millis is d in whole milliseconds, as the core and the host keep offsets.
func millis(d time.Duration) int { return int(d.Milliseconds()) }

// HostFeed starts serving a feed whose episodes the fake synthesises.
func (s *Server) HostFeed(spec HostedFeedSpec) (_ HostedFeed, err error) {
	defer apiError(&err)
	return s.hostFeed(spec)
}

// hostFeed is HostFeed with the host's errors as they are: a refused episode is a
// *hosted.EpisodeError, which the fixtures loader names by its path (hostedEpisodePath).
func (s *Server) hostFeed(spec HostedFeedSpec) (HostedFeed, error) {
	episodes := make([]hosted.Episode, 0, len(spec.Episodes))
	for _, e := range spec.Episodes {
		episodes = append(episodes, hostedEpisode(e))
	}
	var into hosted.FeedAdder = s.host
	if s.stagedFeeds != nil {
		into = s.stagedFeeds
	}
	id, url, err := s.minter().HostFeed(into, spec.Title, spec.Explicit, episodes)
	if err != nil {
		return HostedFeed{}, err
	}
	return HostedFeed{ID: id.String(), FeedURL: url}, nil
}

// hostedEpisodePath is ".episodes[i]" for the refusal of a feed's episode i, else "".
func hostedEpisodePath(err error) string {
	var ee *hosted.EpisodeError
	if errors.As(err, &ee) && ee.Index >= 0 {
		return fmt.Sprintf(".episodes[%d]", ee.Index)
	}
	return ""
}

// AddHostedEpisode publishes a new newest episode on a hosted feed.
func (s *Server) AddHostedEpisode(feedID string, e HostedEpisode) (_ HostedAudio, err error) {
	defer apiError(&err)
	guid, url, err := s.minter().AddEpisode(s.host, feedID, hostedEpisode(e))
	if err != nil {
		return HostedAudio{}, err
	}
	return HostedAudio{GUID: guid, AudioURL: url}, nil
}

// ChangeFeed flips a hosted feed's explicit flag or breaks and mends it.
func (s *Server) ChangeFeed(feedID string, change FeedChange) (err error) {
	defer apiError(&err)
	return s.host.ChangeFeed(feedID, change.Explicit, change.Broken)
}
