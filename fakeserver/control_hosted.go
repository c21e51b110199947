package fakeserver

import (
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/control"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/internal/apitime"
)

// hostedFeedJSON is a HostedFeedSpec as the control API and fixtures spell it.
type hostedFeedJSON struct {
	Title    string              `json:"title"`
	Explicit bool                `json:"explicit,omitempty"`
	Episodes []hostedEpisodeJSON `json:"episodes"`
}

// hostedEpisodeJSON is a HostedEpisode as the control API spells it: the day as YYYY-MM-DD,
// the duration in seconds, chapters and transcript lines in milliseconds, the cover in base64.
type hostedEpisodeJSON struct {
	Title        string               `json:"title"`
	GUID         string               `json:"guid,omitempty"`
	PublishedOn  string               `json:"published_on,omitempty"`
	DurationS    float64              `json:"duration_s"`
	LoudnessLUFS *float64             `json:"loudness_lufs,omitempty"`
	TruePeakDB   *float64             `json:"true_peak_db,omitempty"`
	Channels     int                  `json:"channels,omitempty"`
	SampleRate   int                  `json:"sample_rate,omitempty"`
	Transcript   []control.TranscriptLineJSON `json:"transcript,omitempty"`
	FailAnalysis bool                 `json:"fail_analysis,omitempty"`
	Tags         *hostedTagsJSON      `json:"tags,omitempty"`
	Cover        []byte               `json:"cover,omitempty"`
	BareAudio    bool                 `json:"bare_audio,omitempty"`
	Format       string               `json:"format,omitempty"`
	BitRate      int                  `json:"bit_rate,omitempty"`
}

// hostedTagsJSON is HostedTags as the control API spells them.
type hostedTagsJSON struct {
	Title    string              `json:"title,omitempty"`
	Artist   string              `json:"artist,omitempty"`
	Album    string              `json:"album,omitempty"`
	Year     int                 `json:"year,omitempty"`
	Comment  string              `json:"comment,omitempty"`
	Chapters []hostedChapterJSON `json:"chapters,omitempty"`
}

// hostedChapterJSON is a HostedChapter in milliseconds from the start.
type hostedChapterJSON struct {
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	Title string `json:"title,omitempty"`
}

// wireSeconds is s seconds as a duration, to the nearest nanosecond, pinned to the largest or
// smallest duration where it overflows, so that validation refuses it rather than a wrapped
// value.
func wireSeconds(s float64) time.Duration {
	ns := math.Round(s * float64(time.Second))
	switch {
	case ns >= math.MaxInt64:
		return math.MaxInt64
	case ns <= math.MinInt64:
		return math.MinInt64
	}
	return time.Duration(ns)
}

func transcriptOf(lines []control.TranscriptLineJSON) []TranscriptLine {
	script := control.ScriptOf(lines)
	if script == nil {
		return nil
	}
	out := make([]TranscriptLine, len(script))
	for i, l := range script {
		out[i] = TranscriptLine(l)
	}
	return out
}

// episode is j as a HostedEpisode; a published_on that is not a date is a validation error.
func (j hostedEpisodeJSON) episode() (HostedEpisode, error) {
	e := HostedEpisode{
		Title: j.Title, GUID: j.GUID, Duration: wireSeconds(j.DurationS), LoudnessLUFS: j.LoudnessLUFS,
		TruePeakDB: j.TruePeakDB, Channels: j.Channels, SampleRate: j.SampleRate,
		Transcript: transcriptOf(j.Transcript), FailAnalysis: j.FailAnalysis, Cover: j.Cover,
		BareAudio: j.BareAudio, Format: j.Format, BitRate: j.BitRate,
	}
	if t := j.Tags; t != nil {
		e.Tags = &HostedTags{Title: t.Title, Artist: t.Artist, Album: t.Album, Year: t.Year, Comment: t.Comment}
		for _, c := range t.Chapters {
			e.Tags.Chapters = append(e.Tags.Chapters, HostedChapter{Start: control.Scaled(c.Start, time.Millisecond), End: control.Scaled(c.End, time.Millisecond), Title: c.Title})
		}
	}
	if j.PublishedOn != "" {
		day, err := time.Parse(apitime.DateLayout, j.PublishedOn)
		if err != nil {
			return HostedEpisode{}, core.ErrValidation("published_on must be a date, YYYY-MM-DD.")
		}
		e.Published = day
	}
	return e, nil
}

// spec is j as a HostedFeedSpec, with the first episode that cannot be read as its error.
func (j hostedFeedJSON) spec() (HostedFeedSpec, error) {
	out := HostedFeedSpec{Title: j.Title, Explicit: j.Explicit, Episodes: make([]HostedEpisode, 0, len(j.Episodes))}
	for _, je := range j.Episodes {
		e, err := je.episode()
		if err != nil {
			return HostedFeedSpec{}, err
		}
		out.Episodes = append(out.Episodes, e)
	}
	return out, nil
}

func (s *Server) handleHostFeed(w http.ResponseWriter, r *http.Request) {
	var body hostedFeedJSON
	if !decodeBody(w, r, &body) {
		return
	}
	spec, err := body.spec()
	if err != nil && strings.TrimSpace(body.Title) != "" { // a missing title is named first
		writeError(w, err)
		return
	}
	f, err := s.HostFeed(spec)
	respond(w, http.StatusCreated, f, err)
}

func (s *Server) handleAddHostedEpisode(w http.ResponseWriter, r *http.Request) {
	var body hostedEpisodeJSON
	if !decodeBody(w, r, &body) {
		return
	}
	e, err := body.episode()
	if err != nil {
		if _, idErr := parseID(httpmw.PathID(r, "id"), "Feed"); idErr != nil { // a malformed feed id is named first
			err = idErr
		}
		writeError(w, err)
		return
	}
	a, err := s.AddHostedEpisode(httpmw.PathID(r, "id"), e)
	respond(w, http.StatusCreated, a, err)
}

func (s *Server) handleChangeFeed(w http.ResponseWriter, r *http.Request) {
	var change FeedChange
	if !decodeBody(w, r, &change) {
		return
	}
	err := s.ChangeFeed(httpmw.PathID(r, "id"), change)
	respond(w, http.StatusOK, change, err)
}
