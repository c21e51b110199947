package views

import (
	"encoding/json"
	"strings"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/internal/apitime"
)

// EventBody renders a webhook event's body from the core's wire-neutral event: type, timestamp
// (the event's time, frozen) and data, and test only on test events. The core calls it through
// core.WebhookConfig.Render when an endpoint takes the event, once per event.
func EventBody(ev core.Event) []byte {
	env := envelopeJSON{Type: ev.Type, Timestamp: apitime.Format(ev.At), Test: ev.Test}
	switch {
	case ev.Report != nil:
		env.Data = reportData{Report: reportPayload(ev.Report)}
	case ev.Type == core.EventSeriesFeedBroken:
		d := feedBrokenData{Series: seriesRef(ev.Series)}
		if f := ev.Failure; f != nil {
			d.Failure = &feedFailureJSON{Kind: f.Kind, ConsecutiveFailures: f.ConsecutiveFailures, LastError: f.LastError}
		}
		env.Data = d
	case ev.Type == core.EventEpisodeCreated:
		d := episodeCreatedData{Series: seriesRef(ev.Series)}
		if e := ev.Episode; e != nil {
			d.Episode = &createdEpisodeJSON{episodeJSON: episodeOf(e), AudioURL: e.AudioURL}
		}
		env.Data = d
	}
	b, err := json.Marshal(env)
	if err != nil {
		// Every value here is plain data; a failure is a bug, and a body saying so beats none.
		b, _ = json.Marshal(map[string]string{"type": ev.Type, "error": err.Error()})
	}
	return b
}

// envelopeJSON is every event's body.
type envelopeJSON struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Data      any    `json:"data"`
	Test      bool   `json:"test,omitempty"`
}

// The data of each event, keys in the order the fake has always written them (alphabetical,
// as from a map).
type (
	reportData struct {
		Report reportJSON `json:"report"`
	}
	feedBrokenData struct {
		Failure *feedFailureJSON `json:"failure"`
		Series  *seriesRefJSON   `json:"series"`
	}
	episodeCreatedData struct {
		Episode *createdEpisodeJSON `json:"episode"`
		Series  *seriesRefJSON      `json:"series"`
	}
)

type feedFailureJSON struct {
	ConsecutiveFailures int    `json:"consecutive_failures"`
	Kind                string `json:"kind"`
	LastError           string `json:"last_error"`
}

type seriesRefJSON struct {
	ID      uuid.UUID `json:"id"`
	Title   *string   `json:"title"`
	FeedURL string    `json:"feed_url"`
}

type episodeJSON struct {
	ID      uuid.UUID `json:"id"`
	Title   *string   `json:"title"`
	GUID    string    `json:"guid"`
	PubDate *string   `json:"pub_date"`
}

type createdEpisodeJSON struct {
	episodeJSON
	AudioURL string `json:"audio_url"`
}

type issueJSON struct {
	Name            string          `json:"name"`
	VerboseName     string          `json:"verbose_name"`
	Status          string          `json:"status"`
	Value           json.RawMessage `json:"value"`
	MeasurementUnit *string         `json:"measurement_unit"`
	Description     string          `json:"description"`
	WarningMessage  *string         `json:"warning_message"`
	Link            string          `json:"link"`
	Severity        string          `json:"severity"`
	Limit           *string         `json:"limit"`
}

type reportJSON struct {
	ID              uuid.UUID      `json:"id"`
	URL             string         `json:"url"`
	Status          string         `json:"status"`
	Passed          *bool          `json:"passed"`
	Score           *int           `json:"score"`
	Passes          *int           `json:"passes"`
	Failures        *int           `json:"failures"`
	Total           *int           `json:"total"`
	Filename        string         `json:"filename"`
	ClientReference string         `json:"client_reference"`
	CreatedAt       string         `json:"created_at"`
	Series          *seriesRefJSON `json:"series"`
	Episode         *episodeJSON   `json:"episode"`
	Issues          []issueJSON    `json:"issues"`
}

func seriesRef(s *core.SeriesRef) *seriesRefJSON {
	if s == nil {
		return nil
	}
	return &seriesRefJSON{ID: s.ID, Title: s.Title, FeedURL: s.FeedURL}
}

func episodeOf(e *core.EpisodeRef) episodeJSON {
	out := episodeJSON{ID: e.ID, Title: e.Title, GUID: e.GUID}
	if e.PublishedOn != nil {
		day := e.PublishedOn.Format(apitime.DateLayout)
		out.PubDate = &day
	}
	return out
}

// reportPayload renders data.report: the scored fields only for a scored report.
func reportPayload(r *core.ReportSnapshot) reportJSON {
	p := reportJSON{
		ID: r.ID, URL: r.URL, Status: strings.ToLower(r.Status), Filename: r.Filename,
		CreatedAt: apitime.Format(r.CreatedAt), Series: seriesRef(r.Series),
	}
	if r.Episode != nil {
		e := episodeOf(r.Episode)
		p.Episode = &e
	}
	if st := r.Stats; st != nil {
		p.Passed, p.Score, p.Passes, p.Failures, p.Total = &st.Passed, &st.Percent, &st.Passes, &st.Failures, &st.Total
		if r.Results != nil {
			p.Issues = make([]issueJSON, 0, len(r.Results))
		}
		for _, res := range r.Results {
			p.Issues = append(p.Issues, issueOf(res))
		}
	}
	return p
}

func issueOf(r core.Result) issueJSON {
	// Field by field on purpose: Result may grow fields the payload must not carry.
	return issueJSON{
		Name: r.Name, VerboseName: r.VerboseName, Status: r.Status, Value: r.Value, MeasurementUnit: r.MeasurementUnit,
		Description: r.Description, WarningMessage: r.WarningMessage, Link: r.Link, Severity: r.Severity, Limit: r.Limit,
	}
}
