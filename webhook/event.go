package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/internal/errval"
)

// ErrMalformedPayload is wrapped by Parse when a body is not an event envelope, or when the
// data of a known event type does not have its documented shape.
var ErrMalformedPayload = errval.New("webhook.ErrMalformedPayload", "webhook: malformed event payload")

// Event is one decoded delivery body: the envelope and, for the known types, typed data.
// Exactly one of Report, EpisodeCreated and FeedBroken is set for a known type; none is for an
// unknown type, whose data is only in Data.
type Event struct {
	// Type names the event: one of client's five Event* constants, or a type this package does
	// not know, returned rather than refused (client.WebhookEvent.IsKnown tells them apart).
	Type client.WebhookEvent
	// Timestamp is when the thing happened, frozen into the body: a retried delivery carries
	// the original time (the attempt's own time is the webhook-timestamp header).
	Timestamp time.Time
	// Test is true only on test events sent from the web app's Settings; production
	// processing should ignore them (see WithIgnoreTestEvents).
	Test bool
	// Data is the raw `data` object as received, kept for every type.
	Data json.RawMessage

	// Report is data.report of report.completed, report.failed and report.out_of_quota.
	Report *Report
	// EpisodeCreated is the data of episode.created.
	EpisodeCreated *EpisodeCreated
	// FeedBroken is the data of series.feed_broken.
	FeedBroken *FeedBroken
}

// ReportStatus is a report's status as webhooks write it: lower case, unlike the upper-case
// client.Status of REST and GraphQL.
type ReportStatus string

// Statuses a report event carries.
const (
	ReportComplete   ReportStatus = "complete"
	ReportFailed     ReportStatus = "failed"
	ReportOutOfQuota ReportStatus = "out_of_quota"
)

// ClientStatus returns the REST spelling of s (COMPLETE, FAILED, OUT_OF_QUOTA), for comparing
// with reports fetched over REST. An unknown status is returned upper-cased as it is.
func (s ReportStatus) ClientStatus() client.Status {
	return client.Status(bytes.ToUpper([]byte(s)))
}

// Report is data.report of the three report events. A webhook's report is not the REST
// client.Report: fields are flatter, and the judging standard is not named (fetch the report
// over REST for it).
type Report struct {
	ID string `json:"id"`
	// URL links to the report in the web app.
	URL    string       `json:"url"`
	Status ReportStatus `json:"status"`
	// Passed is the verdict at send time (true when no required check failed); no second
	// event is sent if it later changes. Nil on report.failed and report.out_of_quota.
	Passed *bool `json:"passed"`
	// Score is the percentage shown in the web app; nil when not scored.
	Score *int `json:"score"`
	// Passes, Failures and Total count checks, required and informational alike: Failures
	// can be above zero while Passed is true. Nil when not scored.
	Passes   *int `json:"passes"`
	Failures *int `json:"failures"`
	Total    *int `json:"total"`
	// Filename is the original file name.
	Filename string `json:"filename"`
	// ClientReference is reserved by the service; always empty today.
	ClientReference string    `json:"client_reference"`
	CreatedAt       time.Time `json:"created_at"`
	// Series is nil for a manual upload and for a feed report whose show the workspace has
	// since removed.
	Series *Series `json:"series"`
	// Episode is nil for a manual upload; its AudioURL is empty in report events.
	Episode *Episode `json:"episode"`
	// Issues is the complete per-check list, PASS rows included and required checks first,
	// with the same type as REST results. Nil when not scored.
	Issues []client.Result `json:"issues"`
}

// Series is a show as events name it: the receiving workspace's own series and title.
type Series struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	FeedURL string `json:"feed_url"`
}

// Episode is an episode as events name it.
type Episode struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	GUID  string `json:"guid"`
	// PubDate is the publication date the feed gives, without a time of day.
	PubDate client.Date `json:"pub_date"`
	// AudioURL is the enclosure URL; set only in episode.created.
	AudioURL string `json:"audio_url"`
}

// EpisodeCreated is the data of episode.created: a genuinely new episode of a tracked feed.
type EpisodeCreated struct {
	Series  Series  `json:"series"`
	Episode Episode `json:"episode"`
}

// FeedBroken is the data of series.feed_broken: a tracked feed crossed into a broken state.
type FeedBroken struct {
	Series  Series      `json:"series"`
	Failure FeedFailure `json:"failure"`
}

// FailureKind says what broke in a feed.
type FailureKind string

// Failure kinds of series.feed_broken.
const (
	// FailureFetch: the feed itself became unreadable (DNS, connection, HTTP error).
	FailureFetch FailureKind = "fetch"
	// FailureIngest: the feed reads fine but its newest episode could not be stored.
	FailureIngest FailureKind = "ingest"
)

// FeedFailure describes why a feed was declared broken.
type FeedFailure struct {
	Kind FailureKind `json:"kind"`
	// ConsecutiveFailures is the number of checks in a row that had failed when the feed was
	// declared broken.
	ConsecutiveFailures int `json:"consecutive_failures"`
	// LastError is the most recent error message; empty when the service sent null.
	LastError string `json:"last_error"`
}

// envelope is the wire form of every event body.
type envelope struct {
	Type      *string         `json:"type"`
	Timestamp *string         `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
	Test      *bool           `json:"test"`
}

// Parse decodes a delivery body. Verify the delivery first: Parse trusts nothing but does not
// authenticate. It fails (wrapping ErrMalformedPayload) when the body is not a JSON object with
// a non-empty string `type` and an RFC 3339 `timestamp`, or when a known type's data lacks an
// object it must carry or has a field of the wrong JSON type. An unknown type is not an error:
// the Event carries its type, timestamp and raw Data. Fields Parse does not know are ignored.
func Parse(body []byte) (Event, error) {
	var env envelope
	if err := strictObject(body, &env); err != nil {
		return Event{}, fmt.Errorf("%w: %v", ErrMalformedPayload, err)
	}
	if env.Type == nil || *env.Type == "" {
		return Event{}, fmt.Errorf("%w: missing type", ErrMalformedPayload)
	}
	if env.Timestamp == nil {
		return Event{}, fmt.Errorf("%w: missing timestamp", ErrMalformedPayload)
	}
	ts, err := time.Parse(time.RFC3339Nano, *env.Timestamp)
	if err != nil {
		return Event{}, fmt.Errorf("%w: timestamp %q is not RFC 3339", ErrMalformedPayload, clip(*env.Timestamp))
	}
	e := Event{
		Type:      client.WebhookEvent(*env.Type),
		Timestamp: ts.UTC(),
		Test:      env.Test != nil && *env.Test,
		Data:      env.Data,
	}
	if !e.Type.IsKnown() {
		return e, nil
	}
	if len(env.Data) == 0 || bytes.Equal(env.Data, []byte("null")) {
		return Event{}, fmt.Errorf("%w: %s without data", ErrMalformedPayload, e.Type)
	}
	switch e.Type {
	case client.EventReportCompleted, client.EventReportFailed, client.EventReportOutOfQuota:
		var d struct {
			Report *Report `json:"report"`
		}
		if err := decodeData(e.Type, env.Data, &d); err != nil {
			return Event{}, err
		}
		if d.Report == nil {
			return Event{}, fmt.Errorf("%w: %s without data.report", ErrMalformedPayload, e.Type)
		}
		e.Report = d.Report
	case client.EventEpisodeCreated:
		var d struct {
			Series  *Series  `json:"series"`
			Episode *Episode `json:"episode"`
		}
		if err := decodeData(e.Type, env.Data, &d); err != nil {
			return Event{}, err
		}
		if d.Series == nil || d.Episode == nil {
			return Event{}, fmt.Errorf("%w: %s needs data.series and data.episode", ErrMalformedPayload, e.Type)
		}
		e.EpisodeCreated = &EpisodeCreated{Series: *d.Series, Episode: *d.Episode}
	case client.EventSeriesFeedBroken:
		var d struct {
			Series  *Series      `json:"series"`
			Failure *FeedFailure `json:"failure"`
		}
		if err := decodeData(e.Type, env.Data, &d); err != nil {
			return Event{}, err
		}
		if d.Series == nil || d.Failure == nil {
			return Event{}, fmt.Errorf("%w: %s needs data.series and data.failure", ErrMalformedPayload, e.Type)
		}
		e.FeedBroken = &FeedBroken{Series: *d.Series, Failure: *d.Failure}
	}
	return e, nil
}

// decodeData decodes a known event's data object into v.
func decodeData(t client.WebhookEvent, data json.RawMessage, v any) error {
	if err := strictObject(data, v); err != nil {
		return fmt.Errorf("%w: %s data: %v", ErrMalformedPayload, t, err)
	}
	return nil
}

// strictObject decodes b into v, requiring b to be exactly one JSON object.
func strictObject(b []byte, v any) error {
	// Skip JSON whitespace only (bytes.TrimSpace would also drop Unicode spaces that JSON
	// does not allow), then insist on an object: json.Unmarshal would accept null into a struct.
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	if i == len(b) || b[i] != '{' {
		return errors.New("not a JSON object")
	}
	return json.Unmarshal(b, v)
}
