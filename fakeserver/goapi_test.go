package fakeserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/control"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// TestExportedConstantsMatchTheCore holds the literal values the package exports to the core's,
// which the rules read.
func TestExportedConstantsMatchTheCore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		got, want any
	}{
		{"StandardPodcast", StandardPodcast, core.StandardPodcast},
		{"StandardAESSpeech", StandardAESSpeech, core.StandardAESSpeech},
		{"StandardEBUR128", StandardEBUR128, core.StandardEBUR128},
		{"FeedCheckPeriod", FeedCheckPeriod, core.FeedCheckPeriod},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %v, the core's is %v", tt.name, tt.got, tt.want)
		}
	}
	srv, demo := NewTest(t)
	list, err := srv.Standards(demo.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 3 || list[0].Name != StandardPodcast || list[1].Name != StandardAESSpeech || list[2].Name != StandardEBUR128 {
		t.Fatalf("built-in standards %+v", list)
	}
}

// TestAddTopupSpec buys top-ups through the Go API and reads them back over REST, as a client
// would; a contradictory spec is refused and changes nothing.
func TestAddTopupSpec(t *testing.T) {
	t.Parallel()
	srv, demo := NewTest(t) // clock at 2026-01-05T09:00Z
	lots := func() []string {
		t.Helper()
		status, _, body := call(t, srv, "GET", "/api/rest/v1/credits", bearer(demo.APIKey), "")
		var cr creditsAnswer
		if status != http.StatusOK || json.Unmarshal(body, &cr) != nil {
			t.Fatalf("credits: %d %s", status, body)
		}
		var out []string
		for _, l := range cr.TopupLots {
			at := "never"
			if l.ExpiresAt != nil {
				at = *l.ExpiresAt
			}
			out = append(out, at)
		}
		return out
	}
	march := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		spec     TopupSpec
		wantErr  bool
		wantLots []string
	}{
		{"dated", TopupSpec{Amount: 10, ExpiresAt: march}, false, []string{"2026-03-01T00:00:00.000000+00:00"}},
		{"twelve months by default", TopupSpec{Amount: 10}, false, []string{"2026-03-01T00:00:00.000000+00:00", "2027-01-05T09:00:00.000000+00:00"}},
		{"never", TopupSpec{Amount: 10, NeverExpires: true}, false, []string{"2026-03-01T00:00:00.000000+00:00", "2027-01-05T09:00:00.000000+00:00", "never"}},
		{"never with a date", TopupSpec{Amount: 10, ExpiresAt: march, NeverExpires: true}, true, nil},
		{"no amount", TopupSpec{ExpiresAt: march}, true, nil},
	}
	var want []string
	for _, tt := range tests { // in order: each step sees the lots of the steps before
		err := srv.AddTopup(demo.WorkspaceID, tt.spec)
		var apiErr *Error
		if tt.wantErr {
			if !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest {
				t.Fatalf("%s: err %v, want a 400 *Error", tt.name, err)
			}
		} else {
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			want = tt.wantLots
		}
		if got := lots(); !slices.Equal(got, want) {
			t.Fatalf("%s: lots %q, want %q", tt.name, got, want)
		}
	}
}

// TestFaultDurations arms faults with durations through the Go API and reads them back over the
// control API in its units; the wire's huge numbers are refused, never wrapped.
func TestFaultDurations(t *testing.T) {
	t.Parallel()
	srv, demo := NewTest(t)
	tests := []struct {
		name    string
		fault   Fault
		wantErr bool
		// wantWire is the armed fault's wire fields: retry_after_s, latency_ms, jitter_ms.
		wantWire [3]int
	}{
		{"retry after rounded up to whole seconds", Fault{Status: 429, RetryAfter: 1500 * time.Millisecond}, false, [3]int{2, 0, 0}},
		{"retry after defaults to a second", Fault{Status: 429}, false, [3]int{1, 0, 0}},
		{"latency and jitter", Fault{Latency: 250 * time.Millisecond, Jitter: 50 * time.Millisecond}, false, [3]int{0, 250, 50}},
		{"latency at its maximum", Fault{Latency: MaxFaultLatency}, false, [3]int{0, 600_000, 0}},
		{"latency past its maximum", Fault{Latency: MaxFaultLatency + time.Millisecond}, true, [3]int{}},
		{"jitter past latency", Fault{Latency: time.Millisecond, Jitter: 2 * time.Millisecond}, true, [3]int{}},
		{"negative retry after", Fault{Status: 429, RetryAfter: -time.Second}, true, [3]int{}},
	}
	for _, tt := range tests {
		srv.ClearFaults()
		f := tt.fault
		f.PathPrefix, f.Count = "/api/rest/v1/me", 1
		_, err := srv.InjectFault(f)
		var apiErr *Error
		if tt.wantErr {
			if !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest || len(srv.Faults()) != 0 {
				t.Errorf("%s: err %v, %d armed; want a 400 *Error and nothing armed", tt.name, err, len(srv.Faults()))
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		list := listFaults(t, srv)
		if got := [3]int{list[0].RetryAfterS, list[0].LatencyMS, list[0].JitterMS}; len(list) != 1 || got != tt.wantWire {
			t.Errorf("%s: wire %v, want %v", tt.name, got, tt.wantWire)
		}
		if tt.fault.Status == 429 {
			status, header, _ := call(t, srv, "GET", "/api/rest/v1/me", bearer(demo.APIKey), "")
			if want := strconv.Itoa(tt.wantWire[0]); status != http.StatusTooManyRequests || header.Get("Retry-After") != want {
				t.Errorf("%s: %d Retry-After %q, want 429 %q", tt.name, status, header.Get("Retry-After"), want)
			}
		}
	}
	srv.ClearFaults()
	for _, body := range []string{
		`{"path_prefix":"/api","latency_ms":9223372036854775807}`,
		`{"path_prefix":"/api","latency_ms":-9223372036854775808}`,
		`{"path_prefix":"/api","latency_ms":10,"jitter_ms":9223372036854775807}`,
	} {
		if status, _, b := call(t, srv, "POST", "/_fake/faults", admin(srv), body); status != http.StatusBadRequest || len(srv.Faults()) != 0 {
			t.Errorf("%s: %d %s, %d armed", body, status, b, len(srv.Faults()))
		}
	}
}

// fetchBody GETs url from the fake and returns its body.
func fetchBody(t *testing.T, srv *Server, url string) []byte {
	t.Helper()
	resp, err := srv.Client().Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return body
}

// TestHostedEpisodeInGoUnits hosts the same episode twice, once through the Go API in
// time.Duration and time.Time and once through the control API in its seconds, milliseconds and
// YYYY-MM-DD: the feeds date it alike and the audio is byte for byte the same.
func TestHostedEpisodeInGoUnits(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	// 23:30 five hours west of UTC is the next day in UTC: the day taken is the UTC date.
	published := time.Date(2025, 12, 3, 23, 30, 0, 0, time.FixedZone("UTC-5", -5*3600))
	goFeed, err := srv.HostFeed(HostedFeedSpec{Title: "Units", Episodes: []HostedEpisode{{
		Title: "One", GUID: "one", Published: published, Duration: 1500 * time.Millisecond, Format: "wav",
		Tags: &HostedTags{Chapters: []HostedChapter{{Start: 0, End: 700 * time.Millisecond, Title: "A"}, {Start: 700 * time.Millisecond, End: 1500 * time.Millisecond, Title: "B"}}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	status, _, body := call(t, srv, "POST", "/_fake/feeds", jsonHeader(admin(srv)),
		`{"title":"Units","episodes":[{"title":"One","guid":"one","published_on":"2025-12-04","duration_s":1.5,"format":"wav","tags":{"chapters":[{"start":0,"end":700,"title":"A"},{"start":700,"end":1500,"title":"B"}]}}]}`)
	var wireFeed HostedFeed
	if status != http.StatusCreated || json.Unmarshal(body, &wireFeed) != nil {
		t.Fatalf("host over the control API: %d %s", status, body)
	}
	item := func(feedURL string) (pubDate, audioURL string) {
		rss := string(fetchBody(t, srv, feedURL))
		_, after, _ := strings.Cut(rss, "<pubDate>")
		pubDate, _, _ = strings.Cut(after, "</pubDate>")
		_, after, _ = strings.Cut(rss, `<enclosure url="`)
		audioURL, _, _ = strings.Cut(after, `"`)
		return pubDate, audioURL
	}
	goDate, goAudio := item(goFeed.FeedURL)
	wireDate, wireAudio := item(wireFeed.FeedURL)
	if goDate == "" || goDate != wireDate || !strings.Contains(goDate, "04 Dec 2025") {
		t.Errorf("pubDate through Go %q, through the control API %q; want 04 Dec 2025 in both", goDate, wireDate)
	}
	a, b := fetchBody(t, srv, goAudio), fetchBody(t, srv, wireAudio)
	if len(a) < 1000 || !bytes.Equal(a, b) {
		t.Errorf("audio through Go (%d bytes) and through the control API (%d bytes) differ", len(a), len(b))
	}
}

// TestStandardInGoUnits makes a standard with silences as durations and reads it back through
// the Go API and the control API, in the units of each.
func TestStandardInGoUnits(t *testing.T) {
	t.Parallel()
	srv, demo := NewTest(t)
	long := 1500 * time.Millisecond
	created, err := srv.CreateStandard(demo.WorkspaceID, StandardSpec{Name: "Short pauses", Limits: &Limits{LongSilence: &long}})
	if err != nil {
		t.Fatal(err)
	}
	if *created.Limits.LongSilence != long || *created.Limits.LeadingSilence != 2*time.Second || !created.CreatedAt.Equal(TestStart()) {
		t.Fatalf("created %+v", created)
	}
	list, err := srv.Standards(demo.WorkspaceID)
	if err != nil || len(list) != 4 || !list[0].CreatedAt.IsZero() || list[3].ID != created.ID {
		t.Fatalf("standards %+v %v", list, err)
	}
	status, _, body := call(t, srv, "GET", "/_fake/workspaces/"+demo.WorkspaceID+"/standards", admin(srv), "")
	wire := decodeAs[struct{ Items []control.StandardJSON }](t, body).Items
	if status != http.StatusOK || len(wire) != 4 || *wire[3].Limits.LongSilenceS != 1.5 || *wire[3].Limits.LeadingSilenceS != 2 ||
		wire[0].CreatedAt != nil || wire[3].CreatedAt == nil || *wire[3].CreatedAt != "2026-01-05T09:00:00.000000+00:00" {
		t.Fatalf("over the control API: %d %s", status, body)
	}
}

// TestFixturesInGoUnits loads a fixtures document written in the control API's units into the
// Go types, and names an episode whose day cannot be read by its path.
func TestFixturesInGoUnits(t *testing.T) {
	t.Parallel()
	f, err := LoadFixtures(strings.NewReader(`{
		"workspaces": [{"ref": "w", "type": "personal", "name": "W", "standards": [{"ref": "s", "name": "S", "limits": {"trailing_silence_s": 0.25}}]}],
		"feeds": [{"ref": "f", "title": "F", "episodes": [{"title": "E", "duration_s": 2.5, "published_on": "2026-01-02",
			"transcript": [{"start": 0, "end": 1200, "text": "Hi."}], "tags": {"chapters": [{"start": 100, "end": 2500}]}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	e := f.Feeds[0].Episodes[0]
	if e.Duration != 2500*time.Millisecond || !e.Published.Equal(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)) ||
		e.Transcript[0].End != 1200*time.Millisecond || e.Tags.Chapters[0].Start != 100*time.Millisecond ||
		*f.Workspaces[0].Standards[0].Limits.TrailingSilence != 250*time.Millisecond {
		t.Fatalf("loaded %+v", f)
	}
	_, err = LoadFixtures(strings.NewReader(`{"feeds": [{"ref": "f", "title": "F", "episodes": [{"title": "E", "duration_s": 1}, {"title": "E2", "duration_s": 1, "published_on": "soon"}]}]}`))
	var fe *FixtureError
	if !errors.As(err, &fe) || fe.Path != "feeds[0].episodes[1].published_on" {
		t.Fatalf("a bad day: %v", err)
	}
}
