package fakeserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/podqa/podqa-go/fakeserver/internal/control"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/internal/apitime"
)

// Bounds of a fixtures document beyond its size, as strict as the control API's bodies.
const (
	// maxFixturesDepth bounds the nesting of objects and arrays.
	maxFixturesDepth = 32
	// maxFixtureRef bounds a ref, which the program prints in its start line.
	maxFixtureRef = 256
	// MaxFixtureKeyLength is the most characters a fixture key may have after podqa_api_.
	MaxFixtureKeyLength = 128
	// maxFixtureCredits bounds plan_allowance and plan_used: whole credits.
	maxFixtureCredits = 1_000_000_000
	// maxShownKey is how much of an unknown or repeated field's name an error shows.
	maxShownKey = 64
	// maxShownPath is how much of a deep path an error shows: its start and its end.
	maxShownPath = 512
)

// jsonPath is the path of the value being read, kept as segments and spelt only for an error,
// so that reading stays linear in the document.
type jsonPath []pathSegment

type pathSegment struct {
	key   string
	index int // used when key is ""
	isKey bool
}

func (p jsonPath) String() string {
	var b strings.Builder
	for _, s := range p {
		if !s.isKey {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(shownKey(s.key))
	}
	if out := b.String(); len(out) > maxShownPath {
		head, _ := cutText(out, maxShownPath/2)
		tail := out[len(out)-maxShownPath/2:]
		for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
			tail = tail[1:]
		}
		return head + "…" + tail
	}
	return b.String()
}

// shownKey is a field's name as an error shows it: cut, and quoted when it is not plain.
func shownKey(key string) string {
	plain := key != "" && !strings.ContainsFunc(key, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	if len(key) > maxShownKey {
		cut, _ := cutText(key, maxShownKey)
		return strconv.Quote(cut) + "…"
	}
	if plain {
		return key
	}
	return strconv.Quote(key)
}

// decodeFixturesJSON reads data as one JSON value into the shapes checkShape walks
// (map[string]any, []any, string, bool, json.Number), in one pass: a key twice in one object,
// a null, nesting past maxFixturesDepth or a syntax error is refused with the path where it
// was met.
// The recorded reports' kept parts are read whole and listed in kept, where they are in data.
func decodeFixturesJSON(data []byte) (_ any, kept []keptPart, _ error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var path jsonPath
	v, err := readFixtureValue(dec, &path, &kept)
	if err != nil {
		return nil, nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, nil, fixtureErr("", "the file must hold one JSON object")
	}
	return v, kept, nil
}

func readFixtureValue(dec *json.Decoder, path *jsonPath, kept *[]keptPart) (any, error) {
	if len(*path) > maxFixturesDepth {
		return nil, fixtureErr(path.String(), "nests more than %d levels", maxFixturesDepth)
	}
	if keptWhole(*path) {
		// A recorded part is the service's JSON, kept as it is: read whole, not token by token.
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, notJSON(*path, dec, err)
		}
		end := dec.InputOffset()
		*kept = append(*kept, keptPart{ws: (*path)[1].index, report: (*path)[3].index, name: (*path)[4].key, start: end - int64(len(raw)), end: end})
		return raw, nil
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, notJSON(*path, dec, err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := map[string]any{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, notJSON(*path, dec, err)
				}
				key, _ := kt.(string)
				*path = append(*path, pathSegment{key: key, isKey: true})
				if _, dup := obj[key]; dup {
					return nil, fixtureErr(path.String(), "appears twice in one object")
				}
				v, err := readFixtureValue(dec, path, kept)
				if err != nil {
					return nil, err
				}
				obj[key] = v
				*path = (*path)[:len(*path)-1]
			}
			if _, err := dec.Token(); err != nil {
				return nil, notJSON(*path, dec, err)
			}
			return obj, nil
		case '[':
			arr := []any{}
			for i := 0; dec.More(); i++ {
				*path = append(*path, pathSegment{index: i})
				v, err := readFixtureValue(dec, path, kept)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
				*path = (*path)[:len(*path)-1]
			}
			if _, err := dec.Token(); err != nil {
				return nil, notJSON(*path, dec, err)
			}
			return arr, nil
		}
		return nil, fixtureErr(path.String(), "not JSON: unexpected %q", t)
	case nil:
		if inRecordedPart(*path) {
			return nil, nil // the service's null, kept as recorded
		}
		where := path.String()
		if where == "" {
			return nil, fixtureErr("", "the document is null; it must be an object")
		}
		return nil, fixtureErr(where, "must not be null; leave the field out instead")
	default:
		return t, nil
	}
}

// notJSON names a syntax error by the path of the value being read and its byte offset.
func notJSON(path jsonPath, dec *json.Decoder, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fixtureErr(path.String(), "not JSON: the document ends early")
	}
	return fixtureErr(path.String(), "not JSON: %s (byte %d)", jsonProblem(err), dec.InputOffset())
}

// checkFixtureCredits refuses what the Go type accepts but a plan cannot hold: credits that are
// not whole or past maxFixtureCredits.
func checkFixtureCredits(path string, v *float64) error {
	if v == nil {
		return nil
	}
	if !(*v >= 0 && *v <= maxFixtureCredits) || *v != math.Trunc(*v) {
		return fixtureErr(path, "must be a whole number of credits from 0 to %d", maxFixtureCredits)
	}
	return nil
}

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
			e.Tags.Chapters = append(e.Tags.Chapters, HostedChapter{Start: httpmw.Scaled(c.Start, time.Millisecond), End: httpmw.Scaled(c.End, time.Millisecond), Title: c.Title})
		}
	}
	return e, nil
}

// FixtureSeries is a show of a fixtures workspace as a service listed it (the program's import
// writes them): held outside the plan's podcast cap, its feed never read.
type FixtureSeries struct {
	Ref string
	// ID is the series' id, a lower-case UUID; empty mints one.
	ID                 string
	Title              *string
	FeedURL            string
	AutomatedReporting bool
	// CreatedAt zero is the fake's start.
	CreatedAt time.Time
	Episodes  []FixtureEpisode
}

// FixtureEpisode is an episode of a FixtureSeries.
type FixtureEpisode struct {
	Ref string
	// ID is the episode's id, a lower-case UUID; empty mints one.
	ID    string
	Title *string
	// GUID empty is the audio URL, as for a feed episode without one.
	GUID        string
	AudioURL    string
	PublishedOn *time.Time
	// FirstSeenAt zero is the fake's start.
	FirstSeenAt time.Time
}

// FixtureReport is a report recorded from a service: the fake serves it as recorded, on REST
// and GraphQL alike, and never measures, judges or charges it.
type FixtureReport struct {
	// ID is the report's id, a lower-case UUID; empty mints one.
	ID string
	// Status is one of the six report statuses.
	Status           string
	Name             *string
	CreatedAt        time.Time
	UpdatedAt        time.Time
	StartedAt        *time.Time
	OriginalFilename string
	// PersonalReport nil is whether the workspace is personal.
	PersonalReport *bool
	// CreditsCharged is the decimal text the service sent, such as "100.00".
	CreditsCharged *string
	AudioURL       *string
	// Standard nil is the built-in Podcast standard.
	Standard *FixtureReportStandard
	// TranscriptIncluded nil is true.
	TranscriptIncluded *bool
	// Series and Episode are refs of the workspace's series and that series' episodes.
	Series, Episode string
	// The five JSON parts, as recorded; nil is null.
	Stats, Results, FileInfo, Metadata, CoverImage json.RawMessage
	// Transcript nil is a report without one.
	Transcript []FixtureTranscriptLine
}

// FixtureReportStandard is the standard a recorded report names.
type FixtureReportStandard struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Builtin bool   `json:"builtin"`
}

// FixtureTranscriptLine is one line of a recorded transcript: times in milliseconds.
type FixtureTranscriptLine struct {
	Start   int     `json:"start"`
	End     int     `json:"end"`
	Text    string  `json:"text"`
	Speaker *string `json:"speaker,omitempty"`
}

// fixtureSeriesJSON is a FixtureSeries as written.
type fixtureSeriesJSON struct {
	Ref                string               `json:"ref"`
	ID                 string               `json:"id,omitempty"`
	Title              *string              `json:"title,omitempty"`
	FeedURL            string               `json:"feed_url"`
	AutomatedReporting bool                 `json:"automated_reporting,omitempty"`
	CreatedAt          string               `json:"created_at,omitempty"`
	Episodes           []fixtureEpisodeJSON `json:"episodes,omitempty"`
}

// fixtureEpisodeJSON is a FixtureEpisode as written.
type fixtureEpisodeJSON struct {
	Ref         string  `json:"ref"`
	ID          string  `json:"id,omitempty"`
	Title       *string `json:"title,omitempty"`
	GUID        string  `json:"guid,omitempty"`
	AudioURL    string  `json:"audio_url"`
	PublishedOn string  `json:"published_on,omitempty"`
	FirstSeenAt string  `json:"first_seen_at,omitempty"`
}

// fixtureReportJSON is a FixtureReport as written: the fields of the service's report by their
// REST names.
type fixtureReportJSON struct {
	ID                 string                  `json:"id,omitempty"`
	Status             string                  `json:"status"`
	Name               *string                 `json:"name,omitempty"`
	CreatedAt          string                  `json:"created_at"`
	UpdatedAt          string                  `json:"updated_at,omitempty"`
	StartedAt          string                  `json:"started_at,omitempty"`
	OriginalFilename   string                  `json:"original_filename"`
	PersonalReport     *bool                   `json:"personal_report,omitempty"`
	CreditsCharged     *string                 `json:"credits_charged,omitempty"`
	AudioURL           *string                 `json:"audio_url,omitempty"`
	Standard           *FixtureReportStandard  `json:"standard,omitempty"`
	TranscriptIncluded *bool                   `json:"transcript_included,omitempty"`
	Series             string                  `json:"series,omitempty"`
	Episode            string                  `json:"episode,omitempty"`
	Stats              json.RawMessage         `json:"stats,omitempty"`
	Results            json.RawMessage         `json:"results,omitempty"`
	FileInfo           json.RawMessage         `json:"file_info,omitempty"`
	Metadata           json.RawMessage         `json:"metadata,omitempty"`
	CoverImage         json.RawMessage         `json:"cover_image,omitempty"`
	Transcript         []FixtureTranscriptLine `json:"transcript,omitempty"`
}

// recordedParts are the fields of a recorded report whose values are the service's as it sent
// them, null included inside them: the five kept parts and the transcript.
var recordedParts = map[string]bool{"stats": true, "results": true, "file_info": true, "metadata": true, "cover_image": true, "transcript": true}

// inRecordedPart reports whether path is inside one of a recorded report's kept parts
// (workspaces[i].recorded_reports[j].stats and below), where null is a value like any other.
func inRecordedPart(path jsonPath) bool {
	return len(path) >= 5 && path[0].isKey && path[0].key == "workspaces" && !path[1].isKey && path[2].isKey &&
		path[2].key == "recorded_reports" && !path[3].isKey && path[4].isKey && recordedParts[path[4].key]
}

// keptPart is where a recorded report's kept part is in a fixtures document: LoadFixtures
// decodes the document a second time, strictly, with each kept part replaced by null, then
// puts the parts back as they were written. The parts are most of an import's bytes.
type keptPart struct {
	ws, report int
	name       string
	start, end int64
}

// elideKept is data with each kept part replaced by null (data itself when there is none).
func elideKept(data []byte, kept []keptPart) []byte {
	if len(kept) == 0 {
		return data
	}
	out := make([]byte, 0, len(data)/4)
	at := int64(0)
	for _, k := range kept {
		out = append(out, data[at:k.start]...)
		out = append(out, "null"...)
		at = k.end
	}
	return append(out, data[at:]...)
}

// restoreKept puts the kept parts back into the decoded document.
func restoreKept(doc *fixturesJSON, data []byte, kept []keptPart) {
	for _, k := range kept {
		if k.ws >= len(doc.Workspaces) || k.report >= len(doc.Workspaces[k.ws].RecordedReports) {
			continue // cannot be: the two decodings read one document
		}
		r := &doc.Workspaces[k.ws].RecordedReports[k.report]
		part := json.RawMessage(data[k.start:k.end:k.end])
		switch k.name {
		case "stats":
			r.Stats = part
		case "results":
			r.Results = part
		case "file_info":
			r.FileInfo = part
		case "metadata":
			r.Metadata = part
		case "cover_image":
			r.CoverImage = part
		}
	}
}

// keptWhole reports whether path is one of a recorded report's five kept parts itself, which
// the decoder reads as one value.
func keptWhole(path jsonPath) bool {
	return len(path) == 5 && inRecordedPart(path) && path[4].key != "transcript"
}

// rawMessageType is json.RawMessage, whose value checkShape leaves to the fixture's own checks.
var rawMessageType = reflect.TypeFor[json.RawMessage]()

// creditsText is the decimal text of credits_charged.
var creditsText = regexp.MustCompile(`^[0-9]{1,12}(\.[0-9]{1,6})?$`)

// recordedFromJSON converts a workspace's series and recorded reports as written; p is the
// workspace's path.
func recordedFromJSON(p string, w fixtureWorkspaceJSON, into *FixtureWorkspace) error {
	at := func(path, raw string, required bool) (time.Time, error) {
		if raw == "" {
			if required {
				return time.Time{}, fixtureErr(path, "is required")
			}
			return time.Time{}, nil
		}
		t, err := apitime.Parse(raw)
		if err != nil {
			return time.Time{}, fixtureErr(path, "must be an RFC 3339 date-time")
		}
		return t, nil
	}
	for i, s := range w.Series {
		sp := fmt.Sprintf("%s.series[%d]", p, i)
		created, err := at(sp+".created_at", s.CreatedAt, false)
		if err != nil {
			return err
		}
		fs := FixtureSeries{Ref: s.Ref, ID: s.ID, Title: s.Title, FeedURL: s.FeedURL, AutomatedReporting: s.AutomatedReporting, CreatedAt: created}
		for j, e := range s.Episodes {
			ep := fmt.Sprintf("%s.episodes[%d]", sp, j)
			seen, err := at(ep+".first_seen_at", e.FirstSeenAt, false)
			if err != nil {
				return err
			}
			fe := FixtureEpisode{Ref: e.Ref, ID: e.ID, Title: e.Title, GUID: e.GUID, AudioURL: e.AudioURL, FirstSeenAt: seen}
			if e.PublishedOn != "" {
				d, err := time.Parse(apitime.DateLayout, e.PublishedOn)
				if err != nil {
					return fixtureErr(ep+".published_on", "must be a date, YYYY-MM-DD")
				}
				fe.PublishedOn = &d
			}
			fs.Episodes = append(fs.Episodes, fe)
		}
		into.Series = append(into.Series, fs)
	}
	for i, r := range w.RecordedReports {
		rp := fmt.Sprintf("%s.recorded_reports[%d]", p, i)
		created, err := at(rp+".created_at", r.CreatedAt, true)
		if err != nil {
			return err
		}
		updated, err := at(rp+".updated_at", r.UpdatedAt, false)
		if err != nil {
			return err
		}
		fr := FixtureReport{
			ID: r.ID, Status: r.Status, Name: r.Name, CreatedAt: created, UpdatedAt: updated, OriginalFilename: r.OriginalFilename,
			PersonalReport: r.PersonalReport, CreditsCharged: r.CreditsCharged, AudioURL: r.AudioURL, Standard: r.Standard,
			TranscriptIncluded: r.TranscriptIncluded, Series: r.Series, Episode: r.Episode, Transcript: r.Transcript,
			Stats: nullIsNil(r.Stats), Results: nullIsNil(r.Results), FileInfo: nullIsNil(r.FileInfo),
			Metadata: nullIsNil(r.Metadata), CoverImage: nullIsNil(r.CoverImage),
		}
		if r.StartedAt != "" {
			started, err := at(rp+".started_at", r.StartedAt, true)
			if err != nil {
				return err
			}
			fr.StartedAt = &started
		}
		into.RecordedReports = append(into.RecordedReports, fr)
	}
	return nil
}

func nullIsNil(b json.RawMessage) json.RawMessage {
	if b == nil || bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil
	}
	return b
}

// validateRecorded checks a workspace's series and recorded reports as validate does the rest:
// refs, ids, URLs, statuses, the kept parts' shapes. ids holds every id the document gives, for
// duplicates across workspaces.
func validateRecorded(p string, ws FixtureWorkspace, ref func(kind, path, r string) error, ids map[string]string) error {
	id := func(path, s string) error {
		if s == "" {
			return nil
		}
		if _, ok := core.CanonicalID(s); !ok {
			return fixtureErr(path, "must be a lower-case UUID")
		}
		if first, dup := ids[s]; dup {
			return fixtureErr(path, "is already the id of %s", first)
		}
		ids[s] = path
		return nil
	}
	series := map[string]map[string]bool{} // series ref -> its episodes' refs
	feeds := map[string]string{}
	for i, s := range ws.Series {
		sp := fmt.Sprintf("%s.series[%d]", p, i)
		if err := ref("series", sp, s.Ref); err != nil {
			return err
		}
		if err := id(sp+".id", s.ID); err != nil {
			return err
		}
		if u, err := url.Parse(s.FeedURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fixtureErr(sp+".feed_url", "must be an absolute http or https URL")
		}
		if first, dup := feeds[s.FeedURL]; dup {
			return fixtureErr(sp+".feed_url", "is already the feed of %s", first)
		}
		feeds[s.FeedURL] = sp
		eps := map[string]bool{}
		for j, e := range s.Episodes {
			ep := fmt.Sprintf("%s.episodes[%d]", sp, j)
			if err := ref("episode", ep, e.Ref); err != nil {
				return err
			}
			if err := id(ep+".id", e.ID); err != nil {
				return err
			}
			if strings.TrimSpace(e.AudioURL) == "" {
				return fixtureErr(ep+".audio_url", "is required")
			}
			eps[e.Ref] = true
		}
		series[s.Ref] = eps
	}
	for i, r := range ws.RecordedReports {
		rp := fmt.Sprintf("%s.recorded_reports[%d]", p, i)
		if err := id(rp+".id", r.ID); err != nil {
			return err
		}
		switch r.Status {
		case core.StatusPending, core.StatusScheduled, core.StatusInProgress, core.StatusComplete, core.StatusFailed, core.StatusOutOfQuota:
		default:
			return fixtureErr(rp+".status", "must be PENDING, SCHEDULED, IN_PROGRESS, COMPLETE, FAILED or OUT_OF_QUOTA")
		}
		if r.CreatedAt.IsZero() {
			return fixtureErr(rp+".created_at", "is required")
		}
		if !r.UpdatedAt.IsZero() && r.UpdatedAt.Before(r.CreatedAt) {
			return fixtureErr(rp+".updated_at", "must not be before created_at")
		}
		if r.OriginalFilename == "" {
			return fixtureErr(rp+".original_filename", "is required")
		}
		if r.CreditsCharged != nil && !creditsText.MatchString(*r.CreditsCharged) {
			return fixtureErr(rp+".credits_charged", "must be a decimal such as \"100.00\"")
		}
		if std := r.Standard; std != nil {
			if _, ok := core.CanonicalID(std.ID); !ok {
				return fixtureErr(rp+".standard.id", "must be a lower-case UUID")
			}
			if strings.TrimSpace(std.Name) == "" {
				return fixtureErr(rp+".standard.name", "is required")
			}
		}
		switch eps, ok := series[r.Series]; {
		case r.Series != "" && !ok:
			return fixtureErr(rp+".series", "%q is not a ref of this workspace's series", r.Series)
		case r.Episode != "" && r.Series == "":
			return fixtureErr(rp+".episode", "needs the report's series")
		case r.Episode != "" && !eps[r.Episode]:
			return fixtureErr(rp+".episode", "%q is not a ref of the episodes of series %q", r.Episode, r.Series)
		case r.Series != "" && r.Episode == "":
			return fixtureErr(rp+".episode", "is required with series")
		}
		for _, part := range []struct {
			name   string
			v      json.RawMessage
			object bool
		}{{"stats", r.Stats, true}, {"results", r.Results, false}, {"file_info", r.FileInfo, true}, {"metadata", r.Metadata, true}, {"cover_image", r.CoverImage, true}} {
			if err := checkPart(rp+"."+part.name, part.v, part.object); err != nil {
				return err
			}
		}
		for j, l := range r.Transcript {
			lp := fmt.Sprintf("%s.transcript[%d]", rp, j)
			if l.Start < 0 || l.End < l.Start {
				return fixtureErr(lp, "needs 0 <= start <= end")
			}
		}
	}
	return nil
}

// checkPart checks a kept part is a JSON object (or, for results, an array of objects), without
// decoding it: an import's parts are most of its document.
func checkPart(path string, v json.RawMessage, object bool) error {
	v = nullIsNil(v)
	if v == nil {
		return nil
	}
	// Whether it is JSON at all is New's check (loadRecorded): LoadFixtures has read it as JSON.
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return fixtureErr(path, "not JSON")
	}
	if object {
		if v[0] != '{' {
			return fixtureErr(path, "must be an object")
		}
		return nil
	}
	i := 0
	bad := ""
	arrayElements(v, func(el []byte) bool {
		if len(el) == 0 || el[0] != '{' {
			bad = fmt.Sprintf("%s[%d]", path, i)
			return false
		}
		i++
		return true
	})
	if v[0] != '[' {
		return fixtureErr(path, "must be an array")
	}
	if bad != "" {
		return fixtureErr(bad, "must be an object")
	}
	return nil
}

// arrayElements calls fn with each element of v, valid JSON, when v is an array, until fn
// returns false: one pass, no decoding.
func arrayElements(v []byte, fn func(el []byte) bool) {
	if len(v) == 0 || v[0] != '[' {
		return
	}
	depth, start, inString := 0, -1, false
	for i := 1; i < len(v); i++ {
		c := v[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}':
			depth--
		case c == ']':
			if depth == 0 {
				if start >= 0 {
					fn(bytes.TrimSpace(v[start:i]))
				}
				return
			}
			depth--
		case c == ',' && depth == 0:
			if !fn(bytes.TrimSpace(v[start:i])) {
				return
			}
			start = -1
			continue
		}
		if start < 0 {
			start = i
		}
	}
}

// loadRecorded loads a workspace's series and recorded reports into the fake; p is its path.
func (s *Server) loadRecorded(p string, wsID uuid.UUID, ws FixtureWorkspace, personal bool, ids *FixtureIDs) error {
	now := s.clock.Now()
	orNow := func(t time.Time) time.Time {
		if t.IsZero() {
			return now
		}
		return t
	}
	parse := func(s string) uuid.UUID {
		id, _ := core.CanonicalID(s) // validate has checked it; empty is uuid.Nil
		return id
	}
	type show struct {
		id       uuid.UUID
		episodes map[string]uuid.UUID
	}
	shows := map[string]show{}
	for i, fs := range ws.Series {
		in := core.ImportedSeries{ID: parse(fs.ID), Title: fs.Title, FeedURL: fs.FeedURL, AutomatedReporting: fs.AutomatedReporting, CreatedAt: orNow(fs.CreatedAt)}
		for _, fe := range fs.Episodes {
			in.Episodes = append(in.Episodes, core.ImportedEpisode{ID: parse(fe.ID), Title: fe.Title, GUID: fe.GUID, AudioURL: fe.AudioURL,
				PublishedOn: fe.PublishedOn, FirstSeenAt: orNow(fe.FirstSeenAt)})
		}
		sp := fmt.Sprintf("%s.series[%d]", p, i)
		made, eps, err := s.core.ImportSeries(wsID, in)
		if err != nil {
			return fixtureErr(sp, "%s", strings.TrimSuffix(errMessage(err), "."))
		}
		sh := show{id: made.ID, episodes: map[string]uuid.UUID{}}
		byGUID := map[string]uuid.UUID{}
		for _, e := range eps {
			byGUID[e.GUID] = e.ID
		}
		for _, fe := range fs.Episodes {
			guid := fe.GUID
			if guid == "" {
				guid = fe.AudioURL
			}
			sh.episodes[fe.Ref] = byGUID[guid]
		}
		shows[fs.Ref] = sh
		if ids.Series == nil {
			ids.Series, ids.Episodes = map[string]string{}, map[string]string{}
		}
		ids.Series[fs.Ref] = made.ID.String()
		for ref, id := range sh.episodes {
			ids.Episodes[ref] = id.String()
		}
	}
	if len(ws.RecordedReports) == 0 {
		return nil
	}
	podcast := core.BuiltinStandards()[0]
	in := make([]core.ImportedReport, len(ws.RecordedReports))
	for i, fr := range ws.RecordedReports {
		rp := fmt.Sprintf("%s.recorded_reports[%d]", p, i)
		for _, part := range []struct {
			name string
			v    json.RawMessage
		}{{"stats", fr.Stats}, {"results", fr.Results}, {"file_info", fr.FileInfo}, {"metadata", fr.Metadata}, {"cover_image", fr.CoverImage}} {
			if part.v != nil && !json.Valid(part.v) {
				return fixtureErr(rp+"."+part.name, "not JSON")
			}
		}
		ir := core.ImportedReport{
			ID: parse(fr.ID), Status: fr.Status, Name: fr.Name, CreatedAt: fr.CreatedAt, UpdatedAt: fr.UpdatedAt, StartedAt: fr.StartedAt,
			OriginalFilename: fr.OriginalFilename, Personal: personal, AudioURL: fr.AudioURL,
			Standard: core.Standard{ID: podcast.ID, Name: podcast.Name, Builtin: true, TranscriptIncluded: true},
			Recorded: core.Recorded{Stats: fr.Stats, Results: fr.Results, FileInfo: fr.FileInfo, Metadata: fr.Metadata, CoverImage: fr.CoverImage,
				CreditsCharged: fr.CreditsCharged},
		}
		if ir.UpdatedAt.IsZero() {
			ir.UpdatedAt = ir.CreatedAt
		}
		if fr.PersonalReport != nil {
			ir.Personal = *fr.PersonalReport
		}
		if std := fr.Standard; std != nil {
			ir.Standard = core.Standard{ID: parse(std.ID), Name: std.Name, Builtin: std.Builtin, TranscriptIncluded: true}
		}
		if fr.TranscriptIncluded != nil {
			ir.Standard.TranscriptIncluded = *fr.TranscriptIncluded
		}
		if fr.Series != "" {
			sh := shows[fr.Series]
			sid, eid := sh.id, sh.episodes[fr.Episode]
			ir.Series, ir.Episode = &sid, &eid
		}
		if fr.Transcript != nil {
			ir.Transcript = make([]core.TranscriptLine, len(fr.Transcript))
			for j, l := range fr.Transcript {
				ir.Transcript[j] = core.TranscriptLine{Start: l.Start, End: l.End, Text: l.Text, Speaker: l.Speaker}
			}
		}
		in[i] = ir
	}
	if _, err := s.core.ImportReports(wsID, in); err != nil {
		return fixtureErr(p+".recorded_reports", "%s", strings.TrimSuffix(errMessage(err), "."))
	}
	return nil
}

// errMessage is the message of a core refusal, or the error's text.
func errMessage(err error) string {
	var ce *core.Error
	if errors.As(err, &ce) {
		return ce.Message
	}
	return err.Error()
}
