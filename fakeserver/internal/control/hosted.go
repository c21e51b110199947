package control

import (
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/hosted"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/internal/apitime"
)

// HostedFeedJSON is a hosted feed as the control API and fixtures spell it.
type HostedFeedJSON struct {
	Title    string              `json:"title"`
	Explicit bool                `json:"explicit,omitempty"`
	Episodes []HostedEpisodeJSON `json:"episodes"`
}

// HostedEpisodeJSON is a hosted episode as the control API spells it: the day as YYYY-MM-DD,
// the duration in seconds, chapters and transcript lines in milliseconds, the cover in base64.
type HostedEpisodeJSON struct {
	Title        string               `json:"title"`
	GUID         string               `json:"guid,omitempty"`
	PublishedOn  string               `json:"published_on,omitempty"`
	DurationS    float64              `json:"duration_s"`
	LoudnessLUFS *float64             `json:"loudness_lufs,omitempty"`
	TruePeakDB   *float64             `json:"true_peak_db,omitempty"`
	Channels     int                  `json:"channels,omitempty"`
	SampleRate   int                  `json:"sample_rate,omitempty"`
	Transcript   []TranscriptLineJSON `json:"transcript,omitempty"`
	FailAnalysis bool                 `json:"fail_analysis,omitempty"`
	Tags         *HostedTagsJSON      `json:"tags,omitempty"`
	Cover        []byte               `json:"cover,omitempty"`
	BareAudio    bool                 `json:"bare_audio,omitempty"`
	Format       string               `json:"format,omitempty"`
	BitRate      int                  `json:"bit_rate,omitempty"`
}

// HostedTagsJSON is a hosted episode's tags as the control API spells them.
type HostedTagsJSON struct {
	Title    string              `json:"title,omitempty"`
	Artist   string              `json:"artist,omitempty"`
	Album    string              `json:"album,omitempty"`
	Year     int                 `json:"year,omitempty"`
	Comment  string              `json:"comment,omitempty"`
	Chapters []HostedChapterJSON `json:"chapters,omitempty"`
}

// HostedChapterJSON is a chapter in milliseconds from the start.
type HostedChapterJSON struct {
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	Title string `json:"title,omitempty"`
}

// WireSeconds is s seconds as a duration, to the nearest nanosecond, pinned to the largest or
// smallest duration where it overflows, so that validation refuses it rather than a wrapped
// value.
func WireSeconds(s float64) time.Duration {
	ns := math.Round(s * float64(time.Second))
	switch {
	case ns >= math.MaxInt64:
		return math.MaxInt64
	case ns <= math.MinInt64:
		return math.MinInt64
	}
	return time.Duration(ns)
}

// PublishedDay is published_on read: zero when it is absent, a validation error when it is not
// a date.
func (j HostedEpisodeJSON) PublishedDay() (time.Time, error) {
	if j.PublishedOn == "" {
		return time.Time{}, nil
	}
	day, err := time.Parse(apitime.DateLayout, j.PublishedOn)
	if err != nil {
		return time.Time{}, core.ErrValidation("published_on must be a date, YYYY-MM-DD.")
	}
	return day, nil
}

// offset is n milliseconds as the host keeps an offset, read through the Go API's Duration (and
// its range) so that both APIs host the same.
func offset(n int64) int { return int(httpmw.Scaled(n, time.Millisecond).Milliseconds()) }

// episode is j as the host takes it; a published_on that is not a date is a validation error.
func (j HostedEpisodeJSON) episode() (hosted.Episode, error) {
	day, err := j.PublishedDay()
	if err != nil {
		return hosted.Episode{}, err
	}
	e := hosted.Episode{
		Title: j.Title, GUID: j.GUID, Published: day, DurationS: WireSeconds(j.DurationS).Seconds(),
		LoudnessLUFS: j.LoudnessLUFS, TruePeakDB: j.TruePeakDB, Channels: j.Channels, SampleRate: j.SampleRate,
		FailAnalysis: j.FailAnalysis, Cover: j.Cover, BareAudio: j.BareAudio, Format: j.Format, BitRate: j.BitRate,
	}
	if len(j.Transcript) > 0 { // else no transcript of its own
		e.Transcript = core.ScriptedLines(ScriptOf(j.Transcript))
	}
	if t := j.Tags; t != nil {
		e.Tags = &hosted.Tags{Title: t.Title, Artist: t.Artist, Album: t.Album, Year: t.Year, Comment: t.Comment}
		for _, c := range t.Chapters {
			e.Tags.Chapters = append(e.Tags.Chapters, hosted.Chapter{Start: offset(c.Start), End: offset(c.End), Title: c.Title})
		}
	}
	return e, nil
}

// ServeHostFeed is POST /_fake/feeds: Server.HostFeed over HTTP (hosted.Minter.HostFeed),
// answering the feed's id and URL.
func (a *API) ServeHostFeed(w http.ResponseWriter, r *http.Request) {
	var body HostedFeedJSON
	if !httpmw.DecodeBody(w, r, &body) {
		return
	}
	episodes := make([]hosted.Episode, 0, len(body.Episodes))
	for _, je := range body.Episodes {
		e, err := je.episode()
		if err != nil {
			if strings.TrimSpace(body.Title) != "" { // a missing title is named first
				httpmw.WriteError(w, err)
				return
			}
			episodes = nil
			break
		}
		episodes = append(episodes, e)
	}
	id, url, err := a.mint.HostFeed(a.host, body.Title, body.Explicit, episodes)
	httpmw.Respond(w, http.StatusCreated, struct {
		ID      string `json:"id"`
		FeedURL string `json:"feed_url"`
	}{ID: id.String(), FeedURL: url}, err)
}

// ServeAddHostedEpisode is POST /_fake/feeds/{id}/episodes: Server.AddHostedEpisode over HTTP
// (hosted.Minter.AddEpisode), answering the episode's guid and audio URL.
func (a *API) ServeAddHostedEpisode(w http.ResponseWriter, r *http.Request) {
	var body HostedEpisodeJSON
	if !httpmw.DecodeBody(w, r, &body) {
		return
	}
	e, err := body.episode()
	if err != nil {
		if _, idErr := hosted.FeedID(httpmw.PathID(r, "id")); idErr != nil { // a malformed feed id is named first
			err = idErr
		}
		httpmw.WriteError(w, err)
		return
	}
	guid, url, err := a.mint.AddEpisode(a.host, httpmw.PathID(r, "id"), e)
	httpmw.Respond(w, http.StatusCreated, struct {
		GUID     string `json:"guid"`
		AudioURL string `json:"audio_url"`
	}{GUID: guid, AudioURL: url}, err)
}

// ServeChangeFeed is PATCH /_fake/feeds/{id}: Server.ChangeFeed over HTTP (hosted.ChangeFeed),
// answering the change as sent.
func (a *API) ServeChangeFeed(w http.ResponseWriter, r *http.Request) {
	var change struct {
		Explicit *bool `json:"explicit,omitempty"`
		Broken   *bool `json:"broken,omitempty"`
	}
	if !httpmw.DecodeBody(w, r, &change) {
		return
	}
	err := a.host.ChangeFeed(httpmw.PathID(r, "id"), change.Explicit, change.Broken)
	httpmw.Respond(w, http.StatusOK, change, err)
}
