package fakeserver

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/feeds"
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

// withDefaultTags gives an episode the tags and cover a published episode usually has, unless
// it brings its own or asks for bare audio.
func withDefaultTags(e *HostedEpisode, feedTitle string) {
	if e.BareAudio {
		return
	}
	if e.Tags == nil {
		e.Tags = &HostedTags{Title: e.Title, Artist: feedTitle, Album: feedTitle}
	}
	if e.Cover == nil {
		e.Cover = defaultCover()
	}
}

// defaultCover is a plain square PNG of the smallest size the cover_image check accepts. It is
// made once; callers must not change it.
var defaultCover = sync.OnceValue(func() []byte {
	const side = 1400
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = 0x2b, 0x4c, 0x7e, 0xff
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img) // encoding to memory cannot fail
	return buf.Bytes()
})

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

type hostedEpisode struct {
	HostedEpisode
	published time.Time
	audioURL  string
}

type hostedFeed struct {
	id       uuid.UUID
	title    string
	explicit bool
	broken   bool
	episodes []*hostedEpisode // newest first
}

// hosting is the world's podcast host: feeds and audio the fake serves to itself and others.
type hosting struct {
	mu    sync.RWMutex
	feeds map[uuid.UUID]*hostedFeed
	// byAudio finds an episode by its audio URL, for the download and for transcription.
	byAudio map[string]*hostedEpisode
}

const maxHostedDuration = 3 * 3600.0

func (s *Server) checkEpisode(e *HostedEpisode, feedTitle string) (time.Time, error) {
	withDefaultTags(e, feedTitle)
	switch {
	case strings.TrimSpace(e.Title) == "":
		return time.Time{}, core.ErrValidation("An episode needs a title.")
	case !(e.DurationS >= 0.5 && e.DurationS <= maxHostedDuration):
		return time.Time{}, core.ErrValidation("duration_s must be from 0.5 to %d.", int(maxHostedDuration))
	case e.Channels != 0 && e.Channels != 1 && e.Channels != 2:
		return time.Time{}, core.ErrValidation("channels must be 1 or 2.")
	case e.SampleRate != 0 && (e.SampleRate < 8000 || e.SampleRate > 192000):
		return time.Time{}, core.ErrValidation("sample_rate must be from 8000 to 192000.")
	case e.LoudnessLUFS != nil && (*e.LoudnessLUFS < -40 || *e.LoudnessLUFS > -6 || math.IsNaN(*e.LoudnessLUFS)):
		return time.Time{}, core.ErrValidation("loudness_lufs must be from -40 to -6.")
	case e.TruePeakDB != nil && (*e.TruePeakDB < -20 || *e.TruePeakDB > 0 || math.IsNaN(*e.TruePeakDB)):
		return time.Time{}, core.ErrValidation("true_peak_db must be from -20 to 0.")
	}
	for _, line := range e.Transcript {
		if line.Start < 0 || line.End < line.Start || (line.Confidence != nil && (*line.Confidence < 0 || *line.Confidence > 1)) {
			return time.Time{}, core.ErrValidation("transcript lines need 0 <= start <= end and confidence from 0 to 1.")
		}
	}
	if err := checkSynthesis(*e); err != nil {
		return time.Time{}, core.ErrValidation("This episode's audio cannot be synthesised: %v.", err)
	}
	if e.GUID == "" {
		e.GUID = s.rand.UUID().String()
	}
	if e.PublishedOn == "" {
		return s.clock.Now().Truncate(24 * time.Hour), nil
	}
	day, err := time.Parse(apitime.DateLayout, e.PublishedOn)
	if err != nil {
		return time.Time{}, core.ErrValidation("published_on must be a date, YYYY-MM-DD.")
	}
	return day, nil
}

// HostFeed starts serving a feed whose episodes the fake synthesises.
func (s *Server) HostFeed(spec HostedFeedSpec) (_ HostedFeed, err error) {
	defer apiError(&err)
	if strings.TrimSpace(spec.Title) == "" {
		return HostedFeed{}, core.ErrValidation("A feed needs a title.")
	}
	f := &hostedFeed{id: s.rand.UUID(), title: spec.Title, explicit: spec.Explicit}
	guids := map[string]bool{}
	for _, e := range spec.Episodes {
		published, err := s.checkEpisode(&e, spec.Title)
		if err != nil {
			return HostedFeed{}, err
		}
		if guids[e.GUID] {
			return HostedFeed{}, core.ErrValidation("Two episodes have the guid %q.", e.GUID)
		}
		guids[e.GUID] = true
		f.episodes = append(f.episodes, &hostedEpisode{HostedEpisode: e, published: published, audioURL: s.audioURL(f.id, e.GUID)})
	}
	s.hosting.mu.Lock()
	defer s.hosting.mu.Unlock()
	s.hosting.feeds[f.id] = f
	for _, e := range f.episodes {
		s.hosting.byAudio[e.audioURL] = e
	}
	return HostedFeed{ID: f.id.String(), FeedURL: s.feedURL(f.id)}, nil
}

// AddHostedEpisode publishes a new newest episode on a hosted feed.
func (s *Server) AddHostedEpisode(feedID string, e HostedEpisode) (_ HostedAudio, err error) {
	defer apiError(&err)
	id, err := parseID(feedID, "Feed")
	if err != nil {
		return HostedAudio{}, err
	}
	s.hosting.mu.RLock()
	f, ok := s.hosting.feeds[id]
	var feedTitle string
	if ok {
		feedTitle = f.title
	}
	s.hosting.mu.RUnlock()
	if !ok {
		return HostedAudio{}, core.ErrNotFound("Feed")
	}
	published, err := s.checkEpisode(&e, feedTitle)
	if err != nil {
		return HostedAudio{}, err
	}
	s.hosting.mu.Lock()
	defer s.hosting.mu.Unlock()
	f, ok = s.hosting.feeds[id]
	if !ok {
		return HostedAudio{}, core.ErrNotFound("Feed")
	}
	if slices.ContainsFunc(f.episodes, func(h *hostedEpisode) bool { return h.GUID == e.GUID }) {
		return HostedAudio{}, core.ErrValidation("The feed already has an episode with guid %q.", e.GUID)
	}
	ep := &hostedEpisode{HostedEpisode: e, published: published, audioURL: s.audioURL(id, e.GUID)}
	f.episodes = slices.Insert(f.episodes, 0, ep)
	s.hosting.byAudio[ep.audioURL] = ep
	return HostedAudio{GUID: e.GUID, AudioURL: ep.audioURL}, nil
}

// ChangeFeed flips a hosted feed's explicit flag or breaks and mends it.
func (s *Server) ChangeFeed(feedID string, change FeedChange) (err error) {
	defer apiError(&err)
	id, err := parseID(feedID, "Feed")
	if err != nil {
		return err
	}
	s.hosting.mu.Lock()
	defer s.hosting.mu.Unlock()
	f, ok := s.hosting.feeds[id]
	if !ok {
		return core.ErrNotFound("Feed")
	}
	if change.Explicit != nil {
		f.explicit = *change.Explicit
	}
	if change.Broken != nil {
		f.broken = *change.Broken
	}
	return nil
}

func (s *Server) feedURL(id uuid.UUID) string { return s.url + "/_feeds/" + id.String() + "/feed.rss" }

func (s *Server) audioURL(id uuid.UUID, guid string) string {
	return s.url + "/_feeds/" + id.String() + "/audio/" + uuid.NewSHA1(id, []byte(guid)).String() + ".wav"
}

func (s *Server) hostedFeedByPath(r *http.Request) (*hostedFeed, bool) {
	id, err := uuid.Parse(r.PathValue("feed"))
	if err != nil {
		return nil, false
	}
	s.hosting.mu.RLock()
	defer s.hosting.mu.RUnlock()
	f, ok := s.hosting.feeds[id]
	return f, ok
}

func (s *Server) handleHostedFeed(w http.ResponseWriter, r *http.Request) {
	f, ok := s.hostedFeedByPath(r)
	if !ok {
		http.NotFound(w, r)
		return
	}
	s.hosting.mu.RLock()
	if f.broken {
		s.hosting.mu.RUnlock()
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	feed := feeds.Feed{
		Title: f.title, Link: s.url, Description: "A feed hosted by the podqa fake.", Explicit: f.explicit,
		ImageURL: s.url + "/_feeds/" + f.id.String() + "/cover.png",
	}
	for _, e := range f.episodes {
		feed.Items = append(feed.Items, feeds.Item{
			Title: e.Title, GUID: e.GUID, PublishedOn: e.published, AudioURL: e.audioURL,
			AudioType: "audio/wav", Duration: time.Duration(e.DurationS * float64(time.Second)),
		})
	}
	s.hosting.mu.RUnlock()
	w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
	_, _ = w.Write(feeds.Render(feed))
}

func (s *Server) handleHostedAudio(w http.ResponseWriter, r *http.Request) {
	s.hosting.mu.RLock()
	ep := s.hosting.byAudio[s.url+r.URL.Path]
	s.hosting.mu.RUnlock()
	if ep == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "audio/wav")
	if ep.FailAnalysis {
		_, _ = w.Write([]byte("this is not audio: the episode was hosted with fail_analysis"))
		return
	}
	// Streamed as it is made, so an hour of audio never sits in memory. The episode's values were
	// checked when it was hosted; a failure here cuts the stream, and the analysis says so.
	if err := s.writeHostedAudio(w, ep.HostedEpisode); err != nil {
		s.log.Error("hosted audio synthesis failed", "audio_url", ep.audioURL, "err", err)
	}
}

// transcriptFor returns the scripted transcript of a hosted episode's audio.
func (s *Server) transcriptFor(audioURL string) ([]core.TranscriptLine, bool) {
	s.hosting.mu.RLock()
	defer s.hosting.mu.RUnlock()
	e := s.hosting.byAudio[audioURL]
	if e == nil || e.Transcript == nil {
		return nil, false
	}
	lines := make([]core.TranscriptLine, len(e.Transcript))
	for i, l := range e.Transcript {
		lines[i] = core.TranscriptLine{Start: l.Start, End: l.End, Text: l.Text, Speaker: l.Speaker, Confidence: l.Confidence}
	}
	return lines, true
}

// handleHostedFeedCover serves a hosted feed's artwork, without credentials like the feed: the
// default episode cover, a plain 1400×1400 PNG.
func (s *Server) handleHostedFeedCover(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.hostedFeedByPath(r); !ok {
		http.NotFound(w, r)
		return
	}
	cover := defaultCover()
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(len(cover)))
	_, _ = w.Write(cover)
}
