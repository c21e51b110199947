package fakeserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/podqa/podqa-go/fakeserver/internal/control"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
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
