package fakeserver

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/hosted"
	"github.com/podqa/podqa-go/internal/apitime"
)

// HostedEpisode describes an episode of a hosted feed; the fake synthesises its audio so that a
// real measurement gives the loudness and true peak asked for.
type HostedEpisode struct {
	Title string `json:"title"`
	// GUID defaults to a fresh uuid.
	GUID string `json:"guid,omitempty"`
	// PublishedOn is a date (YYYY-MM-DD); it defaults to the fake clock's date.
	PublishedOn string `json:"published_on,omitempty"`
	// DurationS is the audio's length in seconds, more than 0 and at most 3 hours.
	DurationS float64 `json:"duration_s"`
	// LoudnessLUFS is the integrated loudness to synthesise (default −16).
	LoudnessLUFS *float64 `json:"loudness_lufs,omitempty"`
	// TruePeakDB is the true peak to synthesise; by default whatever the signal gives, at most
	// −1 dBTP.
	TruePeakDB *float64 `json:"true_peak_db,omitempty"`
	// Channels is 1 or 2 (default 2: stereo, so the default loudness passes the Podcast standard).
	Channels int `json:"channels,omitempty"`
	// SampleRate defaults to 44100.
	SampleRate int `json:"sample_rate,omitempty"`
	// Transcript is what the fake's transcription returns for this audio.
	Transcript []TranscriptLine `json:"transcript,omitempty"`
	// FailAnalysis serves audio that cannot be decoded, so the report FAILs.
	FailAnalysis bool `json:"fail_analysis,omitempty"`
	// Tags are written into the audio (ID3v2.4 in the WAV, and LIST/INFO), so that reports read
	// them as metadata. By default: the episode's title, and the feed's title as artist and
	// album.
	Tags *HostedTags `json:"tags,omitempty"`
	// Cover is a PNG or JPEG image embedded in the audio as its front cover (base64 in JSON),
	// at most 10 MiB; reports show it as cover_image. By default a plain 1400×1400 RGB PNG,
	// which passes the cover_image check.
	Cover []byte `json:"cover,omitempty"`
	// BareAudio leaves out the default tags and cover: the audio carries only its title, so the
	// metadata and cover_image checks fail (as info).
	BareAudio bool `json:"bare_audio,omitempty"`
	// Format is "mp3" (MPEG layer III at a constant bit rate, audio/mpeg: MPEG-1 at 32000,
	// 44100 and 48000 Hz, MPEG-2 at 16000, 22050 and 24000, MPEG-2.5 at 8000, 11025 and 12000)
	// or "wav" (16-bit PCM, audio/wav). By default mp3 at those sample rates (the default 44100
	// included), else wav. An mp3 episode measures at the loudness and true peak
	// asked, like a wav one; a true peak its coding cannot meet is refused when it is hosted.
	Format string `json:"format,omitempty"`
	// BitRate is an mp3 episode's bit rate in kbit/s (default 128): 32 to 320 for MPEG-1, 8 to
	// 160 at the lower rates.
	BitRate int `json:"bit_rate,omitempty"`
}

// HostedTags are the tags written into a hosted episode's audio.
type HostedTags struct {
	Title   string `json:"title,omitempty"`
	Artist  string `json:"artist,omitempty"`
	Album   string `json:"album,omitempty"`
	Year    int    `json:"year,omitempty"`
	Comment string `json:"comment,omitempty"`
	// Chapters are in milliseconds from the start.
	Chapters []HostedChapter `json:"chapters,omitempty"`
}

// HostedChapter is one chapter of a hosted episode; times are milliseconds from the start.
type HostedChapter struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Title string `json:"title,omitempty"`
}

// TranscriptLine is one line of a scripted transcript; times are milliseconds from the start.
type TranscriptLine struct {
	Start      int      `json:"start"`
	End        int      `json:"end"`
	Text       string   `json:"text"`
	Speaker    *string  `json:"speaker,omitempty"`
	Confidence *float64 `json:"confidence,omitempty"`
}

// HostedFeedSpec describes a hosted feed; Episodes are newest first.
type HostedFeedSpec struct {
	Title    string          `json:"title"`
	Explicit bool            `json:"explicit,omitempty"`
	Episodes []HostedEpisode `json:"episodes"`
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

// hostedEpisode is e as the host takes it: its guid and publication day given their defaults.
func (s *Server) hostedEpisode(e HostedEpisode) (hosted.Episode, error) {
	out := hosted.Episode{
		Title: e.Title, GUID: e.GUID, DurationS: e.DurationS, LoudnessLUFS: e.LoudnessLUFS,
		TruePeakDB: e.TruePeakDB, Channels: e.Channels, SampleRate: e.SampleRate,
		FailAnalysis: e.FailAnalysis, Cover: e.Cover, BareAudio: e.BareAudio,
		Format: e.Format, BitRate: e.BitRate,
	}
	for _, l := range e.Transcript {
		out.Transcript = append(out.Transcript, core.TranscriptLine{Start: l.Start, End: l.End, Text: l.Text, Speaker: l.Speaker, Confidence: l.Confidence})
	}
	if t := e.Tags; t != nil {
		out.Tags = &hosted.Tags{Title: t.Title, Artist: t.Artist, Album: t.Album, Year: t.Year, Comment: t.Comment}
		for _, c := range t.Chapters {
			out.Tags.Chapters = append(out.Tags.Chapters, hosted.Chapter{Start: c.Start, End: c.End, Title: c.Title})
		}
	}
	if out.GUID == "" {
		out.GUID = s.rand.UUID().String()
	}
	if e.PublishedOn == "" {
		out.Published = s.clock.Now().Truncate(24 * time.Hour)
		return out, nil
	}
	day, err := time.Parse(apitime.DateLayout, e.PublishedOn)
	if err != nil {
		return hosted.Episode{}, core.ErrValidation("published_on must be a date, YYYY-MM-DD.")
	}
	out.Published = day
	return out, nil
}

// HostFeed starts serving a feed whose episodes the fake synthesises.
func (s *Server) HostFeed(spec HostedFeedSpec) (_ HostedFeed, err error) {
	defer apiError(&err)
	return s.hostFeed(spec)
}

// hostFeed is HostFeed with the host's errors as they are: a refused episode is a
// *hosted.EpisodeError, which the fixtures loader names by its path (hostedEpisodePath).
func (s *Server) hostFeed(spec HostedFeedSpec) (HostedFeed, error) {
	if strings.TrimSpace(spec.Title) == "" {
		return HostedFeed{}, core.ErrValidation("A feed needs a title.")
	}
	id := s.rand.UUID()
	episodes := make([]hosted.Episode, 0, len(spec.Episodes))
	for _, e := range spec.Episodes {
		he, err := s.hostedEpisode(e)
		if err != nil {
			return HostedFeed{}, err
		}
		episodes = append(episodes, he)
	}
	url, err := s.host.AddFeed(id, spec.Title, spec.Explicit, episodes)
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
	id, err := parseID(feedID, "Feed")
	if err != nil {
		return HostedAudio{}, err
	}
	he, err := s.hostedEpisode(e)
	if err != nil {
		return HostedAudio{}, err
	}
	url, err := s.host.AddEpisode(id, he)
	if err != nil {
		return HostedAudio{}, err
	}
	return HostedAudio{GUID: he.GUID, AudioURL: url}, nil
}

// ChangeFeed flips a hosted feed's explicit flag or breaks and mends it.
func (s *Server) ChangeFeed(feedID string, change FeedChange) (err error) {
	defer apiError(&err)
	id, err := parseID(feedID, "Feed")
	if err != nil {
		return err
	}
	return s.host.Change(id, change.Explicit, change.Broken)
}
