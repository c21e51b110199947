package fakeserver

import (
	"fmt"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/control"
)

// fixturesJSON is a fixtures document as written: Fixtures with its standards and feeds in the
// control API's shapes.
type fixturesJSON struct {
	Workspaces []fixtureWorkspaceJSON `json:"workspaces,omitempty"`
	Feeds      []fixtureFeedJSON      `json:"feeds,omitempty"`
}

// fixtureWorkspaceJSON is a FixtureWorkspace as written.
type fixtureWorkspaceJSON struct {
	Ref              string                `json:"ref"`
	Type             string                `json:"type"`
	Name             string                `json:"name"`
	PlanAllowance    *float64              `json:"plan_allowance,omitempty"`
	PlanUsed         *float64              `json:"plan_used,omitempty"`
	PodcastLimit     *int                  `json:"podcast_limit,omitempty"`
	ChargingEnabled  *bool                 `json:"charging_enabled,omitempty"`
	APIKeys          []FixtureAPIKey       `json:"api_keys,omitempty"`
	WebhookEndpoints []FixtureEndpoint     `json:"webhook_endpoints,omitempty"`
	Standards        []fixtureStandardJSON `json:"standards,omitempty"`
	DefaultStandard  string                `json:"default_standard,omitempty"`
	Series           []fixtureSeriesJSON   `json:"series,omitempty"`
	RecordedReports  []fixtureReportJSON   `json:"recorded_reports,omitempty"`
}

// fixtureStandardJSON is a FixtureStandard as written.
type fixtureStandardJSON struct {
	Ref string `json:"ref"`
	control.StandardSpecJSON
}

// fixtureFeedJSON is a FixtureFeed as written.
type fixtureFeedJSON struct {
	Ref string `json:"ref"`
	control.HostedFeedJSON
}

// fixtures is the document as Fixtures; an episode whose day cannot be read is a *FixtureError
// naming it.
func (d fixturesJSON) fixtures() (Fixtures, error) {
	var f Fixtures
	for i, w := range d.Workspaces {
		fw := FixtureWorkspace{
			Ref: w.Ref, Type: w.Type, Name: w.Name, PlanAllowance: w.PlanAllowance, PlanUsed: w.PlanUsed,
			PodcastLimit: w.PodcastLimit, ChargingEnabled: w.ChargingEnabled, APIKeys: w.APIKeys,
			WebhookEndpoints: w.WebhookEndpoints, DefaultStandard: w.DefaultStandard,
		}
		for _, s := range w.Standards {
			fw.Standards = append(fw.Standards, FixtureStandard{Ref: s.Ref, StandardSpec: standardSpecOf(s.Spec(), s.Limits != nil)})
		}
		if err := recordedFromJSON(fmt.Sprintf("workspaces[%d]", i), w, &fw); err != nil {
			return Fixtures{}, err
		}
		f.Workspaces = append(f.Workspaces, fw)
	}
	for i, feed := range d.Feeds {
		spec := HostedFeedSpec{Title: feed.Title, Explicit: feed.Explicit}
		for j, je := range feed.Episodes {
			e, err := episodeOf(je)
			if err != nil {
				return Fixtures{}, fixtureErr(fmt.Sprintf("feeds[%d].episodes[%d].published_on", i, j), "must be a date, YYYY-MM-DD")
			}
			spec.Episodes = append(spec.Episodes, e)
		}
		f.Feeds = append(f.Feeds, FixtureFeed{Ref: feed.Ref, HostedFeedSpec: spec})
	}
	return f, nil
}

// episodeOf is an episode of a fixture feed, written as the control API spells it, as a
// HostedEpisode; a published_on that is not a date is a validation error.
func episodeOf(j control.HostedEpisodeJSON) (HostedEpisode, error) {
	day, err := j.PublishedDay()
	if err != nil {
		return HostedEpisode{}, err
	}
	e := HostedEpisode{
		Title: j.Title, GUID: j.GUID, Published: day, Duration: control.WireSeconds(j.DurationS), LoudnessLUFS: j.LoudnessLUFS,
		TruePeakDB: j.TruePeakDB, Channels: j.Channels, SampleRate: j.SampleRate,
		FailAnalysis: j.FailAnalysis, Cover: j.Cover, BareAudio: j.BareAudio, Format: j.Format, BitRate: j.BitRate,
	}
	if script := control.ScriptOf(j.Transcript); script != nil {
		e.Transcript = make([]TranscriptLine, len(script))
		for i, l := range script {
			e.Transcript[i] = TranscriptLine(l)
		}
	}
	if t := j.Tags; t != nil {
		e.Tags = &HostedTags{Title: t.Title, Artist: t.Artist, Album: t.Album, Year: t.Year, Comment: t.Comment}
		for _, c := range t.Chapters {
			e.Tags.Chapters = append(e.Tags.Chapters, HostedChapter{Start: control.Scaled(c.Start, time.Millisecond), End: control.Scaled(c.End, time.Millisecond), Title: c.Title})
		}
	}
	return e, nil
}
