// Package hosted is the fake's podcast host: feeds whose episodes' audio is synthesised on
// download to measure at the loudness and true peak asked for, served keyless under /_feeds/
// like any podcast host, with a cache of rendered audio. It holds its own state and serves its
// own routes; package fakeserver wraps it in its Go API and control routes.
package hosted

import (
	"bytes"
	"cmp"
	"errors"
	"image"
	"image/png"
	"io"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
	"github.com/podqa/podqa-go/fakeserver/internal/audio/calibrate"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/mp3enc"
)

// MaxDuration is the longest episode, in seconds.
const MaxDuration = 3 * 3600.0

// Episode is an episode to host, its defaults applied by the caller (guid, publication day).
type Episode struct {
	Title        string
	GUID         string
	Published    time.Time
	DurationS    float64
	LoudnessLUFS *float64
	TruePeakDB   *float64
	Channels     int
	SampleRate   int
	Transcript   []core.TranscriptLine
	FailAnalysis bool
	Tags         *Tags
	Cover        []byte
	BareAudio    bool
	// Format is "mp3" or "wav"; empty chooses mp3 at the sample rates MPEG layer III has (8 to
	// 48 kHz: MPEG-1, 2 and 2.5; the default 44.1 included), wav at the others.
	Format string
	// BitRate is the MP3's bit rate in kbit/s (default 128); wav takes none.
	BitRate int
	// synthPeak, when set, is the true peak asked of the synthesiser instead of TruePeakDB:
	// an MP3's coding moves a transient's peak, so the host aims the synthesis where the
	// encoded file measures as asked (calibrateEpisode).
	synthPeak *float64
}

// Tags are the tags written into an episode's audio.
type Tags struct {
	Title, Artist, Album, Comment string
	Year                          int
	Chapters                      []Chapter
}

// Chapter is one chapter; times are milliseconds from the start.
type Chapter struct {
	Start, End int
	Title      string
}

type episode struct {
	Episode
	audioURL string
	length   int64 // the audio file's size in bytes, for the enclosure
}

type feed struct {
	id       uuid.UUID
	title    string
	explicit bool
	broken   bool
	episodes []*episode // newest first
	pos      int        // the feed's place in its host's order (FeedPage)
}

// Host is the podcast host. It is safe for concurrent use.
type Host struct {
	base string // the fake's URL, which the feeds and audio URLs begin with
	log  *slog.Logger

	mu      sync.RWMutex
	feeds   map[uuid.UUID]*feed
	byAudio map[string]*episode // by audio URL, for the download and for transcription
	order   []*feed             // the feeds in the order they were added, for FeedPage

	cache      *audioCache // nil when off
	synthesize func(io.Writer, Episode) error
	prepared   preparedMemo

	slots     chan struct{} // a token per rendering running
	encodes   atomic.Int64  // renderings running
	queued    atomic.Int64  // downloads waiting for a slot
	renderMu  sync.Mutex
	renders   map[audioKey]*render       // shared renderings in flight
	streaming map[audioKey]chan struct{} // renderings of uncacheable audio in flight, closed when done
}

// New returns a host of no feeds serving under base, keeping up to cacheBytes of rendered
// audio (0: no cache) and logging failures to log (nil: nowhere).
func New(base string, cacheBytes int64, log *slog.Logger) *Host {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// The maps of feeds and renderings are made by their first entry: most fakes host nothing.
	h := &Host{base: base, log: log, synthesize: synthesize, slots: make(chan struct{}, MaxConcurrentEncodes)}
	if cacheBytes > 0 {
		h.cache = newAudioCache(cacheBytes)
	}
	return h
}

// Reset forgets every feed. The cache stays: its keys are the audio's content.
func (h *Host) Reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.feeds, h.byAudio, h.order = nil, nil, nil
}

// check validates e, gives it the tags and cover a published episode usually has (unless it
// brings its own or asks for bare audio) and calibrates an MP3's synthesis.
func check(e *Episode, feedTitle string) error {
	if err := checkValues(e, feedTitle); err != nil {
		return err
	}
	return checkAudio(e)
}

// checkValues is check's part that costs nothing: the values and their defaults.
func checkValues(e *Episode, feedTitle string) error {
	if !e.BareAudio {
		if e.Tags == nil {
			e.Tags = &Tags{Title: e.Title, Artist: feedTitle, Album: feedTitle}
		}
		if e.Cover == nil {
			e.Cover = DefaultCover()
		}
	}
	switch {
	case strings.TrimSpace(e.Title) == "":
		return core.ErrValidation("An episode needs a title.")
	case !(e.DurationS >= 0.5 && e.DurationS <= MaxDuration):
		return core.ErrValidation("duration_s must be from 0.5 to %d.", int(MaxDuration))
	case e.Channels != 0 && e.Channels != 1 && e.Channels != 2:
		return core.ErrValidation("channels must be 1 or 2.")
	case e.SampleRate != 0 && (e.SampleRate < 8000 || e.SampleRate > 192000):
		return core.ErrValidation("sample_rate must be from 8000 to 192000.")
	case e.LoudnessLUFS != nil && (*e.LoudnessLUFS < -40 || *e.LoudnessLUFS > -6 || math.IsNaN(*e.LoudnessLUFS)):
		return core.ErrValidation("loudness_lufs must be from -40 to -6.")
	case e.TruePeakDB != nil && (*e.TruePeakDB < -20 || *e.TruePeakDB > 0 || math.IsNaN(*e.TruePeakDB)):
		return core.ErrValidation("true_peak_db must be from -20 to 0.")
	}
	for _, line := range e.Transcript {
		if line.Start < 0 || line.End < line.Start || (line.Confidence != nil && (*line.Confidence < 0 || *line.Confidence > 1)) {
			return core.ErrValidation("transcript lines need 0 <= start <= end and confidence from 0 to 1.")
		}
	}
	return checkFormat(e)
}

// checkAudio is check's part that plans and codes audio: whether the synthesiser can make it,
// and an MP3's calibration.
func checkAudio(e *Episode) error {
	plan, err := audio.PlanSynthesis(synthSpec(*e))
	if err != nil {
		return core.ErrValidation("This episode's audio cannot be synthesised: %v.", err)
	}
	if err := calibrateEpisode(e, plan); err != nil {
		if u := (*calibrate.Unmet)(nil); errors.As(err, &u) {
			return core.ErrValidation("This episode's audio cannot be made: %v.", u)
		}
		return err
	}
	return nil
}

// calibrateEpisode aims an MP3 episode's synthesis so that the whole encoded file measures at
// or under the true peak asked, or at most -1 dBTP when none was (calibrate.MP3, which says
// how). plan is e's synthesis as checked (before calibration), which the search reuses. What no
// trial meets is a *calibrate.Unmet; a synthesis that fails is refused as such.
func calibrateEpisode(e *Episode, plan *audio.SynthPlan) error {
	if e.Format != "mp3" || e.FailAnalysis {
		return nil
	}
	peak, err := calibrate.MP3(synthSpec(*e), plan, e.TruePeakDB, e.BitRate)
	e.synthPeak = peak
	if u := (*calibrate.Unmet)(nil); err != nil && !errors.As(err, &u) {
		return core.ErrValidation("This episode's audio cannot be synthesised: %v.", err)
	}
	return err
}

// checkFormat gives e its format and bit rate and checks them against its sample rate.
func checkFormat(e *Episode) error {
	rate := cmp.Or(e.SampleRate, 44100)
	bitRates := mp3enc.BitRates(rate)
	if e.Format == "" {
		e.Format = "wav"
		if bitRates != nil {
			e.Format = "mp3"
		}
	}
	switch e.Format {
	case "wav":
		if e.BitRate != 0 {
			return core.ErrValidation("bit_rate is for mp3 episodes only.")
		}
	case "mp3":
		if bitRates == nil {
			return core.ErrValidation("An mp3 episode's sample_rate must be 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100 or 48000.")
		}
		e.BitRate = cmp.Or(e.BitRate, DefaultBitRate)
		if !slices.Contains(bitRates, e.BitRate) {
			return core.ErrValidation("bit_rate must be one of %v kbit/s at %d Hz.", bitRates, rate)
		}
	default:
		return core.ErrValidation("format must be \"mp3\" or \"wav\".")
	}
	return nil
}

// DefaultBitRate is the bit rate of an mp3 episode that names none, in kbit/s.
const DefaultBitRate = 128

// audioLength returns the size of e's audio file in bytes.
func audioLength(e Episode) (int64, error) {
	if e.FailAnalysis {
		return int64(len(failAnalysisBody)), nil
	}
	spec := synthSpec(e)
	if e.Format == "wav" {
		return audio.SynthesizedSize(spec)
	}
	// The layout alone sets the size: no need to solve the synthesis again.
	frames, channels, rate, err := audio.SynthesizedFrames(spec)
	if err != nil {
		return 0, err
	}
	size, err := mp3enc.StreamSize(mp3enc.Options{SampleRate: rate, Channels: channels, BitRate: e.BitRate}, frames)
	if err != nil {
		return 0, err
	}
	return int64(len(audio.ID3Tag(spec))) + size, nil
}

// failAnalysisBody is the audio of an episode hosted with fail_analysis.
const failAnalysisBody = "this is not audio: the episode was hosted with fail_analysis"

// AddFeed starts serving a feed with id and returns its URL. Episodes are newest first.
func (h *Host) AddFeed(id uuid.UUID, title string, explicit bool, episodes []Episode) (string, error) {
	f, err := h.newFeed(id, title, explicit, episodes)
	if err != nil {
		return "", err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.feeds == nil {
		h.feeds, h.byAudio = map[uuid.UUID]*feed{}, map[string]*episode{}
	}
	addFeed(h.feeds, h.byAudio, &h.order, f)
	return h.feedURL(id), nil
}

// Staging is a set of feeds built aside, while the host goes on serving its own, for Swap to
// put in place of them at once (a reset of the fake).
type Staging struct {
	h       *Host
	feeds   map[uuid.UUID]*feed
	byAudio map[string]*episode
	order   []*feed
}

// Stage returns an empty set of feeds to build the host's next ones in.
func (h *Host) Stage() *Staging {
	return &Staging{h: h, feeds: map[uuid.UUID]*feed{}, byAudio: map[string]*episode{}}
}

// AddFeed is Host.AddFeed into the staged set; the host serves nothing of it until Swap.
func (st *Staging) AddFeed(id uuid.UUID, title string, explicit bool, episodes []Episode) (string, error) {
	f, err := st.h.newFeed(id, title, explicit, episodes)
	if err != nil {
		return "", err
	}
	addFeed(st.feeds, st.byAudio, &st.order, f)
	return st.h.feedURL(id), nil
}

// Swap makes the staged feeds the host's, forgetting every other. The cache stays: its keys are
// the audio's content. Downloads under way keep reading the episodes they found.
func (h *Host) Swap(st *Staging) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.feeds, h.byAudio, h.order = st.feeds, st.byAudio, st.order
}

// addFeed adds f to feeds, byAudio and the order (a feed of an id already there takes its
// place).
func addFeed(feeds map[uuid.UUID]*feed, byAudio map[string]*episode, order *[]*feed, f *feed) {
	if old := feeds[f.id]; old != nil {
		f.pos = old.pos
		(*order)[f.pos] = f
	} else {
		f.pos = len(*order)
		*order = append(*order, f)
	}
	feeds[f.id] = f
	for _, e := range f.episodes {
		byAudio[e.audioURL] = e
	}
}

// newFeed checks and prepares a feed's episodes.
func (h *Host) newFeed(id uuid.UUID, title string, explicit bool, episodes []Episode) (*feed, error) {
	if strings.TrimSpace(title) == "" {
		return nil, core.ErrValidation("A feed needs a title.")
	}
	f := &feed{id: id, title: title, explicit: explicit}
	guids := map[string]bool{}
	for i, e := range episodes {
		if guids[e.GUID] {
			return nil, core.ErrValidation("Two episodes have the guid %q.", e.GUID)
		}
		guids[e.GUID] = true
		length, err := h.prepare(&e, title)
		if err != nil {
			return nil, episodeErr(i, e.Title, err)
		}
		f.episodes = append(f.episodes, &episode{Episode: e, audioURL: h.audioURL(id, e), length: length})
	}
	return f, nil
}

// AddEpisode publishes e as the feed's newest episode and returns its audio URL.
func (h *Host) AddEpisode(feedID uuid.UUID, e Episode) (string, error) {
	h.mu.RLock()
	f, ok := h.feeds[feedID]
	var title string
	if ok {
		title = f.title
	}
	h.mu.RUnlock()
	if !ok {
		return "", core.ErrNotFound("Feed")
	}
	length, err := h.prepare(&e, title)
	if err != nil {
		return "", episodeErr(-1, e.Title, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if f, ok = h.feeds[feedID]; !ok {
		return "", core.ErrNotFound("Feed")
	}
	if slices.ContainsFunc(f.episodes, func(x *episode) bool { return x.GUID == e.GUID }) {
		return "", core.ErrValidation("The feed already has an episode with guid %q.", e.GUID)
	}
	ep := &episode{Episode: e, audioURL: h.audioURL(feedID, e), length: length}
	f.episodes = slices.Insert(f.episodes, 0, ep)
	h.byAudio[ep.audioURL] = ep // made with feeds, which holds f
	return ep.audioURL, nil
}

// Change sets a feed's explicit flag or breaks and mends it; nil leaves a value as it is.
func (h *Host) Change(feedID uuid.UUID, explicit, broken *bool) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	f, ok := h.feeds[feedID]
	if !ok {
		return core.ErrNotFound("Feed")
	}
	if explicit != nil {
		f.explicit = *explicit
	}
	if broken != nil {
		f.broken = *broken
	}
	return nil
}

// AudioURLs lists the audio URLs of a feed's episodes, newest first.
func (h *Host) AudioURLs(feedID uuid.UUID) []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []string
	if f, ok := h.feeds[feedID]; ok {
		for _, e := range f.episodes {
			out = append(out, e.audioURL)
		}
	}
	return out
}

// Transcript returns the scripted transcript of a hosted episode's audio.
func (h *Host) Transcript(audioURL string) ([]core.TranscriptLine, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	e := h.byAudio[audioURL]
	if e == nil || e.Transcript == nil {
		return nil, false
	}
	return slices.Clone(e.Transcript), true
}

// CacheStats returns how many renderings and bytes the audio cache holds.
func (h *Host) CacheStats() (entries int, size int64) {
	if h.cache == nil {
		return 0, 0
	}
	return h.cache.stats()
}

// WrapSynthesis replaces the synthesiser by wrap(the current one), for tests that count
// renderings. Call it before the host serves.
func (h *Host) WrapSynthesis(wrap func(next func(io.Writer, Episode) error) func(io.Writer, Episode) error) {
	h.synthesize = wrap(h.synthesize)
}

func (h *Host) feedURL(id uuid.UUID) string { return h.base + "/_feeds/" + id.String() + "/feed.rss" }

func (h *Host) audioURL(id uuid.UUID, e Episode) string {
	return h.base + "/_feeds/" + id.String() + "/audio/" + uuid.NewSHA1(id, []byte(e.GUID)).String() + "." + e.Format
}

// contentType is the MIME type of e's audio.
func contentType(e Episode) string {
	if e.Format == "mp3" {
		return "audio/mpeg"
	}
	return "audio/wav"
}

// DefaultCover is a plain square PNG of the smallest size the cover_image check accepts. It is
// made once; callers must not change it.
var DefaultCover = sync.OnceValue(func() []byte {
	const side = 1400
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = 0x2b, 0x4c, 0x7e, 0xff
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img) // encoding to memory cannot fail
	return buf.Bytes()
})

func synthSpec(ep Episode) audio.SynthSpec {
	channels := ep.Channels
	if channels == 0 {
		channels = 2 // stereo, as most shows publish; a mono file is judged against a lower target
	}
	spec := audio.SynthSpec{
		DurationSeconds: ep.DurationS, SampleRate: ep.SampleRate, Channels: channels,
		LoudnessLUFS: -16, TruePeakDB: cmp.Or(ep.synthPeak, ep.TruePeakDB), Title: ep.Title,
	}
	if ep.LoudnessLUFS != nil {
		spec.LoudnessLUFS = *ep.LoudnessLUFS
	}
	if t := ep.Tags; t != nil {
		spec.Tags = audio.SynthTags{Title: t.Title, Artist: t.Artist, Album: t.Album, Year: t.Year, Comment: t.Comment}
		if spec.Tags.Title == "" {
			spec.Tags.Title = ep.Title
		}
		for _, ch := range t.Chapters {
			spec.Tags.Chapters = append(spec.Tags.Chapters, audio.SynthChapter{
				Start: time.Duration(ch.Start) * time.Millisecond, End: time.Duration(ch.End) * time.Millisecond, Title: ch.Title,
			})
		}
	}
	spec.Cover = ep.Cover
	if ep.Format == "mp3" {
		// The speech's period fits the frames, so every period codes alike (calibrate.MP3).
		spec.PeriodMultiple, _ = mp3enc.LayoutPeriod(mp3enc.Options{SampleRate: cmp.Or(ep.SampleRate, 44100), Channels: channels, BitRate: ep.BitRate})
	}
	return spec
}

// synthesize streams an episode's audio, measuring at its loudness and true peak: a WAV, or an
// MP3 of the same samples led by an ID3v2.4 tag of the same tags, chapters and cover.
func synthesize(w io.Writer, ep Episode) error {
	spec := synthSpec(ep)
	if ep.Format == "wav" {
		return audio.SynthesizeTo(w, spec)
	}
	if _, err := w.Write(audio.ID3Tag(spec)); err != nil {
		return err
	}
	var enc *mp3enc.Encoder
	err := audio.SynthesizeSamples(spec, func(frames int64, channels, rate int) (err error) {
		enc, err = mp3enc.New(w, mp3enc.Options{SampleRate: rate, Channels: channels, BitRate: ep.BitRate}, frames)
		return err
	}, func(samples []float64) error { return enc.Write(samples) })
	if err != nil {
		return err
	}
	return enc.Close()
}
