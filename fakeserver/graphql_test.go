package fakeserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podqa/podqa-go/internal/apitime"
)

// gqlAnswer is a GraphQL response body.
type gqlAnswer struct {
	Data   map[string]json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Path       []any          `json:"path"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

func (a gqlAnswer) codes() []string {
	var out []string
	for _, e := range a.Errors {
		code, _ := e.Extensions["code"].(string)
		out = append(out, code)
	}
	return out
}

// gql posts a query; key "" sends no credentials.
func gql(t *testing.T, srv *Server, key, query string, vars map[string]any) (int, gqlAnswer) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Content-Type": {"application/json"}}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	status, _, raw := call(t, srv, "POST", "/api/graphql", h, string(body))
	var a gqlAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("not a GraphQL answer (%d): %s", status, raw)
	}
	return status, a
}

// gqlData posts a query that must succeed and decodes data into out.
func gqlData(t *testing.T, srv *Server, key, query string, vars map[string]any, out any) {
	t.Helper()
	status, a := gql(t, srv, key, query, vars)
	if status != http.StatusOK || len(a.Errors) > 0 {
		t.Fatalf("query failed: %d %+v", status, a.Errors)
	}
	raw, err := json.Marshal(a.Data)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
}

// feedReport hosts a feed with one episode and creates a report on it over REST.
func feedReport(t *testing.T, srv *Server, key, title string, ep HostedEpisode) (reportID, feedURL string) {
	t.Helper()
	if ep.Title == "" {
		ep.Title = title + " episode"
	}
	if ep.Duration == 0 {
		ep.Duration = time.Second
	}
	if ep.Format == "" {
		// WAV unless asked: these tests are about GraphQL, and an MP3 costs an encode and its
		// true-peak calibration per feed under -race (hosted_mp3_test.go covers MP3).
		ep.Format = "wav"
	}
	feed, err := srv.HostFeed(HostedFeedSpec{Title: title, Episodes: []HostedEpisode{ep}})
	if err != nil {
		t.Fatal(err)
	}
	status, body := createFromFeed(t, srv, key, `{"feed_url":"`+feed.FeedURL+`"}`)
	var c struct{ ID string }
	if status != 201 || json.Unmarshal(body, &c) != nil {
		t.Fatalf("create: %d %s", status, body)
	}
	return c.ID, feed.FeedURL
}

func advance(t *testing.T, srv *Server, d time.Duration) {
	t.Helper()
	if _, err := srv.Advance(d); err != nil {
		t.Fatal(err)
	}
}

func newOrg(t *testing.T, srv *Server, name string) (Workspace, APIKey) {
	t.Helper()
	ws, err := srv.CreateWorkspace(WorkspaceSpec{Type: "organisation", Name: name})
	if err != nil {
		t.Fatal(err)
	}
	key, err := srv.CreateAPIKey(ws.ID, "org key")
	if err != nil {
		t.Fatal(err)
	}
	return ws, key
}

type gqlOwner struct {
	Typename string `json:"__typename"`
	ID       string `json:"id"`
	Name     string `json:"name"`
	Email    string `json:"email"`
}

const identityQuery = `{
  user { id email firstName lastName }
  currentApiKey { maskedKey owner { __typename ... on OrganisationType { id name } ... on UserType { id email } } }
  organisations { id name }
}`

type identity struct {
	User *struct {
		ID    string `json:"id"`
		Email string `json:"email"`
	} `json:"user"`
	CurrentAPIKey *struct {
		MaskedKey string   `json:"maskedKey"`
		Owner     gqlOwner `json:"owner"`
	} `json:"currentApiKey"`
	Organisations []gqlOwner `json:"organisations"`
}

func TestGraphQLIdentity(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	org, orgKey := newOrg(t, srv, "Acme Audio")

	var personal identity
	gqlData(t, srv, seed.APIKey, identityQuery, nil, &personal)
	if personal.User == nil || personal.User.ID != seed.WorkspaceID || personal.User.Email == "" {
		t.Errorf("user of a personal key = %+v, want the Demo user %s", personal.User, seed.WorkspaceID)
	}
	if k := personal.CurrentAPIKey; k == nil || k.Owner.Typename != "UserType" || k.Owner.ID != seed.WorkspaceID || !strings.HasPrefix(k.MaskedKey, "podqa_api_") {
		t.Errorf("currentApiKey of a personal key = %+v", k)
	}
	if len(personal.Organisations) != 0 {
		t.Errorf("organisations of the Demo user = %+v, want none", personal.Organisations)
	}

	var orgID identity
	gqlData(t, srv, orgKey.Key, identityQuery, nil, &orgID)
	if k := orgID.CurrentAPIKey; k == nil || k.Owner.Typename != "OrganisationType" || k.Owner.ID != org.ID || k.Owner.Name != "Acme Audio" {
		t.Errorf("currentApiKey.owner of an organisation key = %+v, want the organisation %s", k, org.ID)
	}
	if orgID.User == nil || orgID.User.ID == org.ID {
		t.Errorf("user of an organisation key = %+v, want one of its owners", orgID.User)
	}
	if want := []gqlOwner{{ID: org.ID, Name: "Acme Audio"}}; !cmp.Equal(orgID.Organisations, want) {
		t.Errorf("organisations = %+v, want %+v", orgID.Organisations, want)
	}

	// A browser session (the explorer's) acts as its user, without a key record.
	session, err := srv.CreateSession(seed.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	status, _, raw := call(t, srv, "POST", "/api/graphql", http.Header{"Content-Type": {"application/json"}, "Cookie": {"sessionid=" + session}}, `{"query":"{ user { id } currentApiKey { maskedKey } }"}`)
	var bySession struct {
		Data identity `json:"data"`
	}
	if err := json.Unmarshal(raw, &bySession); err != nil || status != 200 || bySession.Data.User == nil || bySession.Data.User.ID != seed.WorkspaceID || bySession.Data.CurrentAPIKey != nil {
		t.Errorf("session: %d %s", status, raw)
	}

	// No key, and a key that does not work: currentApiKey is null, the rest is refused per field.
	for _, key := range []string{"", "podqa_api_not-a-key"} {
		status, a := gql(t, srv, key, identityQuery, nil)
		if status != http.StatusOK || string(a.Data["currentApiKey"]) != "null" || string(a.Data["user"]) != "null" {
			t.Errorf("key %q: %d %s", key, status, a.Data)
		}
		if codes := a.codes(); len(codes) != 2 || codes[0] != "invalid_api_key" || codes[1] != "invalid_api_key" {
			t.Errorf("key %q: error codes %v, want invalid_api_key for user and organisations", key, codes)
		}
	}
}

type gqlReport struct {
	ID         string  `json:"id"`
	Name       *string `json:"name"`
	Status     string  `json:"status"`
	CreatedAt  string  `json:"createdAt"`
	UpdatedAt  string  `json:"updatedAt"`
	Stats      *string `json:"stats"`
	FileInfo   *string `json:"fileInfo"`
	Metadata   *string `json:"metadata"`
	Results    *string `json:"results"`
	Transcript *string `json:"transcript"`
	CoverImage *string `json:"coverImage"`
	AudioURL   *string `json:"audioUrl"`
	Series     *struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	} `json:"series"`
	Podcast *struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	} `json:"podcast"`
	Standard *struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Builtin bool   `json:"builtin"`
	} `json:"standard"`
	TranscriptIncluded bool `json:"transcriptIncluded"`
}

const reportFields = `id name status createdAt updatedAt stats fileInfo metadata results transcript coverImage audioUrl
  series { id title } podcast { id title } standard { id name builtin } transcriptIncluded`

func TestGraphQLReportMatchesREST(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	speaker := "host"
	id, _ := feedReport(t, srv, seed.APIKey, "Talk", HostedEpisode{Duration: 2 * time.Second, Transcript: []TranscriptLine{
		{Start: 0, End: 900 * time.Millisecond, Text: "hello", Speaker: &speaker},
	}})
	read := func(key string) gqlReport {
		var d struct{ Report gqlReport }
		gqlData(t, srv, key, `query($id: UUID!) { report(id: $id) { `+reportFields+` } }`, map[string]any{"id": id}, &d)
		return d.Report
	}

	pending := read(seed.APIKey)
	if pending.Status != "PENDING" || pending.Transcript != nil || pending.Stats != nil {
		t.Errorf("new report = %+v, want PENDING without stats or transcript", pending)
	}
	advance(t, srv, 2*time.Second)
	running := read(seed.APIKey)
	if running.Status != "IN_PROGRESS" || running.Stats == nil || !strings.Contains(*running.Stats, `"time_remaining"`) || running.Transcript != nil {
		t.Errorf("running report = %+v, want IN_PROGRESS with time_remaining and no transcript", running)
	}
	advance(t, srv, time.Minute)

	// report(id) needs no key: the id is the credential.
	done := read("")
	if done.Status != "COMPLETE" || done.Transcript == nil || !done.TranscriptIncluded {
		t.Fatalf("finished report = %+v", done)
	}
	if done.Series == nil || done.Podcast == nil || *done.Series != *done.Podcast || done.Series.Title != "Talk" {
		t.Errorf("series %+v and its alias podcast %+v differ", done.Series, done.Podcast)
	}
	if done.Standard == nil || done.Standard.Name != "Podcast" || !done.Standard.Builtin {
		t.Errorf("standard = %+v, want the built-in Podcast", done.Standard)
	}

	// The JSON strings carry exactly the REST fields.
	_, _, body := call(t, srv, "GET", "/api/rest/v1/reports/"+id, bearer(seed.APIKey), "")
	var rest map[string]json.RawMessage
	if err := json.Unmarshal(body, &rest); err != nil {
		t.Fatal(err)
	}
	for field, got := range map[string]*string{
		"stats": done.Stats, "file_info": done.FileInfo, "metadata": done.Metadata,
		"results": done.Results, "cover_image": done.CoverImage,
	} {
		want := string(rest[field])
		if got == nil {
			if want != "null" {
				t.Errorf("%s: GraphQL null, REST %s", field, want)
			}
			continue
		}
		if !jsonEqual(t, *got, want) {
			t.Errorf("%s: GraphQL %s, REST %s", field, *got, want)
		}
	}
	_, _, body = call(t, srv, "GET", "/api/rest/v1/reports/"+id+"/transcript", bearer(seed.APIKey), "")
	var tr struct{ Transcript json.RawMessage }
	if err := json.Unmarshal(body, &tr); err != nil || !jsonEqual(t, *done.Transcript, string(tr.Transcript)) {
		t.Errorf("transcript: GraphQL %s, REST %s", *done.Transcript, body)
	}
	if !strings.Contains(*done.Transcript, `"speaker":"Speaker 1"`) {
		t.Errorf("transcript %s lacks the relabelled speaker", *done.Transcript)
	}
}

func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal([]byte(a), &va); err != nil {
		t.Fatalf("%q: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &vb); err != nil {
		t.Fatalf("%q: %v", b, err)
	}
	return cmp.Equal(va, vb)
}

func TestGraphQLReportsListing(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithoutRateLimits(), WithAnalysisPace(0))
	first, _ := feedReport(t, srv, seed.APIKey, "Alpha", HostedEpisode{})
	advance(t, srv, time.Second)
	var eps []HostedEpisode
	for i := range 11 {
		// WAV, as feedReport hosts: eleven MP3 calibrations buy a listing test nothing.
		eps = append(eps, HostedEpisode{Title: "b", GUID: string(rune('a' + i)), Duration: 1 * time.Second, Format: "wav"})
	}
	betaFeed, err := srv.HostFeed(HostedFeedSpec{Title: "Beta", Episodes: eps})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 11 {
		status, body := createFromFeed(t, srv, seed.APIKey, fmt.Sprintf(`{"feed_url":%q,"episode_index":%d}`, betaFeed.FeedURL, i))
		var c struct{ ID string }
		if status != 201 || json.Unmarshal(body, &c) != nil {
			t.Fatalf("create: %d %s", status, body)
		}
		ids = append(ids, c.ID)
		advance(t, srv, time.Second)
	}
	slices.Reverse(ids) // newest first
	var beta struct{ ID string }
	if err := json.Unmarshal(func() []byte {
		var d struct{ Report gqlReport }
		gqlData(t, srv, seed.APIKey, `query($id: UUID!) { report(id: $id) { series { id } } }`, map[string]any{"id": ids[0]}, &d)
		b, _ := json.Marshal(d.Report.Series)
		return b
	}(), &beta); err != nil {
		t.Fatal(err)
	}

	types := map[string]string{"series": "UUID", "status": "String", "since": "DateTime"}
	list := func(t *testing.T, args string, vars map[string]any) []string {
		t.Helper()
		var d struct{ Reports []gqlReport }
		q := `{ reports` + args + ` { id status } }`
		var decl []string
		for name := range vars {
			decl = append(decl, "$"+name+": "+types[name])
		}
		if len(decl) > 0 {
			q = "query(" + strings.Join(decl, ", ") + ") " + q
		}
		gqlData(t, srv, seed.APIKey, q, vars, &d)
		out := []string{}
		for _, r := range d.Reports {
			out = append(out, r.ID)
		}
		return out
	}
	all := append(slices.Clone(ids), first)
	tests := []struct {
		name string
		args string
		vars map[string]any
		want []string
	}{
		{"default limit 10, newest first", "", nil, all[:10]},
		{"no maximum", "(limit: 1000)", nil, all},
		{"offset", "(limit: 2, offset: 11)", nil, all[11:]},
		{"forSeriesId narrows", "(forSeriesId: $series, limit: 100)", map[string]any{"series": beta.ID}, ids},
		{"lower-case status", "(status: $status, limit: 100)", map[string]any{"status": "complete"}, all},
		{"upper-case status matches nothing", "(status: $status)", map[string]any{"status": "COMPLETE"}, []string{}},
		{"awaiting_review matches nothing", "(status: $status)", map[string]any{"status": "awaiting_review"}, []string{}},
		{"pending matches none here", "(status: $status)", map[string]any{"status": "pending"}, []string{}},
		{"createdSince is exclusive", "(createdSince: $since, limit: 100)", map[string]any{"since": "2026-01-05T09:00:01.000000+00:00"}, ids[:10]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := list(t, tt.args, tt.vars); !cmp.Equal(got, tt.want) {
				t.Errorf("got %v\nwant %v", got, tt.want)
			}
		})
	}

	// A negative limit and a malformed id are errors in the errors array.
	for _, q := range []string{`{ reports(limit: -1) { id } }`, `{ report(id: "nope") { id } }`, `{ reports(forSeriesId: "x") { id } }`} {
		status, a := gql(t, srv, seed.APIKey, q, nil)
		if status != http.StatusOK || !cmp.Equal(a.codes(), []string{"validation_error"}) {
			t.Errorf("%s: %d %+v", q, status, a.Errors)
		}
	}
	// Workspace queries need a key; an unknown report is not found.
	if _, a := gql(t, srv, "", `{ reports { id } }`, nil); !cmp.Equal(a.codes(), []string{"invalid_api_key"}) {
		t.Errorf("keyless reports: %+v", a.Errors)
	}
	if _, a := gql(t, srv, "", `{ report(id: "6a0a3f0e-0000-4000-8000-000000000000") { id } }`, nil); !cmp.Equal(a.codes(), []string{"not_found"}) || string(a.Data["report"]) != "null" {
		t.Errorf("unknown report: %s %+v", a.Data, a.Errors)
	}
}

func TestGraphQLSeries(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithoutRateLimits(), WithAnalysisPace(0))
	ws, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "Many Shows", PodcastLimit: ptrTo(30)})
	if err != nil {
		t.Fatal(err)
	}
	key, err := srv.CreateAPIKey(ws.ID, "k")
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for i := range 21 {
		title := string(rune('z'-i)) + " show"
		if i%2 == 0 {
			title = strings.ToUpper(title[:1]) + title[1:]
		}
		titles = append(titles, title)
		feedReport(t, srv, key.Key, title, HostedEpisode{})
	}
	slices.SortFunc(titles, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })

	names := func(q string) []string {
		var d map[string][]struct{ Title string }
		gqlData(t, srv, key.Key, q, nil, &d)
		var out []string
		for _, v := range d {
			for _, s := range v {
				out = append(out, s.Title)
			}
		}
		return out
	}
	if got := names(`{ seriesList { title } }`); !cmp.Equal(got, titles[:20]) {
		t.Errorf("seriesList = %v\nwant by title, 20 by default: %v", got, titles[:20])
	}
	if got := names(`{ podcasts(limit: 5, offset: 18) { title } }`); !cmp.Equal(got, titles[18:]) {
		t.Errorf("podcasts(offset 18) = %v, want %v", got, titles[18:])
	}
	// The alias answers identically.
	var a, b json.RawMessage
	gqlData(t, srv, key.Key, `{ x: seriesList(limit: 50) { id title kind feedUrl lastCheck coverImageUrl sources { feedUrl lastCheck } historicScores { reportId passed requiredFailures } } }`, nil, &struct{ X *json.RawMessage }{&a})
	gqlData(t, srv, key.Key, `{ x: podcasts(limit: 50) { id title kind feedUrl lastCheck coverImageUrl sources { feedUrl lastCheck } historicScores { reportId passed requiredFailures } } }`, nil, &struct{ X *json.RawMessage }{&b})
	if string(a) != string(b) {
		t.Errorf("podcasts differs from seriesList:\n%s\n%s", a, b)
	}

	// historicScores: ids and verdicts for the owner, nulls for anyone else holding the id.
	id, feed := feedReport(t, srv, seed.APIKey, "Scored", HostedEpisode{})
	var show struct {
		Report struct{ Series struct{ ID string } }
	}
	gqlData(t, srv, seed.APIKey, `query($id: UUID!) { report(id: $id) { series { id } } }`, map[string]any{"id": id}, &show)
	seriesQ := `query($id: UUID!) { series(id: $id) { id title feedUrl sources { feedUrl } historicScores { reportId passed requiredFailures } } }`
	podcastQ := `query($id: UUID!) { series: podcast(id: $id) { id title feedUrl sources { feedUrl } historicScores { reportId passed requiredFailures } } }`
	vars := map[string]any{"id": show.Report.Series.ID}
	type point struct {
		ReportID         *string `json:"reportId"`
		Passed           *bool   `json:"passed"`
		RequiredFailures *int    `json:"requiredFailures"`
	}
	type series struct {
		Series struct {
			ID             string
			Title          string
			FeedURL        string                     `json:"feedUrl"`
			Sources        []struct{ FeedURL string } `json:"sources"`
			HistoricScores []point                    `json:"historicScores"`
		}
	}
	var before series
	gqlData(t, srv, seed.APIKey, seriesQ, vars, &before)
	if h := before.Series.HistoricScores; len(h) != 1 || h[0].ReportID == nil || *h[0].ReportID != id || h[0].Passed != nil {
		t.Errorf("history before completion = %+v, want the id and a null verdict", h)
	}
	if before.Series.FeedURL != feed || len(before.Series.Sources) != 1 || before.Series.Sources[0].FeedURL != feed {
		t.Errorf("feed = %q, sources = %+v, want %s", before.Series.FeedURL, before.Series.Sources, feed)
	}
	advance(t, srv, time.Minute)
	var owner, alias, stranger, anonymous series
	gqlData(t, srv, seed.APIKey, seriesQ, vars, &owner)
	gqlData(t, srv, seed.APIKey, podcastQ, vars, &alias)
	gqlData(t, srv, key.Key, seriesQ, vars, &stranger)
	gqlData(t, srv, "", seriesQ, vars, &anonymous)
	if h := owner.Series.HistoricScores; len(h) != 1 || h[0].ReportID == nil || h[0].Passed == nil || !*h[0].Passed || h[0].RequiredFailures == nil || *h[0].RequiredFailures != 0 {
		t.Errorf("owner's history = %+v", h)
	}
	if !cmp.Equal(owner, alias) {
		t.Errorf("podcast(id) = %+v, series(id) = %+v", alias, owner)
	}
	for name, got := range map[string]series{"another key": stranger, "no key": anonymous} {
		if got.Series.Title != "Scored" || !cmp.Equal(got.Series.HistoricScores, []point{{}}) {
			t.Errorf("%s: %+v, want the show with a null history point", name, got.Series)
		}
	}
}

func TestGraphQLWorkspaces(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithoutRateLimits(), WithAnalysisPace(0))
	org, orgKey := newOrg(t, srv, "Org")
	other, _ := newOrg(t, srv, "Other")
	orgReport, _ := feedReport(t, srv, orgKey.Key, "Org show", HostedEpisode{})
	feedReport(t, srv, orgKey.Key, "Second org show", HostedEpisode{})
	personalReport, _ := feedReport(t, srv, seed.APIKey, "Personal show", HostedEpisode{})
	var orgSeries struct {
		Report struct{ Series struct{ ID string } }
	}
	gqlData(t, srv, orgKey.Key, `query($id: UUID!) { report(id: $id) { series { id } } }`, map[string]any{"id": orgReport}, &orgSeries)
	showID := orgSeries.Report.Series.ID

	count := func(key, args string, vars map[string]any) []string {
		t.Helper()
		var d struct{ Reports []struct{ ID string } }
		var decl []string
		for name := range vars {
			decl = append(decl, "$"+name+": UUID")
		}
		q := `{ reports` + args + ` { id } }`
		if len(decl) > 0 {
			q = "query(" + strings.Join(decl, ", ") + ") " + q
		}
		gqlData(t, srv, key, q, vars, &d)
		out := []string{}
		for _, r := range d.Reports {
			out = append(out, r.ID)
		}
		return out
	}
	// An organisation key without organisationId reads its owner's (empty) personal workspace.
	if got := count(orgKey.Key, "", nil); len(got) != 0 {
		t.Errorf("organisation key without organisationId: %v, want the owner's empty personal workspace", got)
	}
	if got := count(orgKey.Key, "(organisationId: $org)", map[string]any{"org": org.ID}); len(got) != 2 {
		t.Errorf("organisation key with organisationId: %v, want the organisation's two reports", got)
	}
	if got := count(seed.APIKey, "", nil); !cmp.Equal(got, []string{personalReport}) {
		t.Errorf("personal key: %v", got)
	}
	// forSeriesId narrows inside the chosen workspace only.
	if got := count(orgKey.Key, "(organisationId: $org, forSeriesId: $series)", map[string]any{"org": org.ID, "series": showID}); !cmp.Equal(got, []string{orgReport}) {
		t.Errorf("forSeriesId in the organisation: %v", got)
	}
	if got := count(orgKey.Key, "(forSeriesId: $series)", map[string]any{"series": showID}); len(got) != 0 {
		t.Errorf("forSeriesId outside its workspace: %v, want nothing", got)
	}
	// seriesId is scoped to the caller: it reaches the organisation's show without
	// organisationId, and is ignored with it.
	if got := count(orgKey.Key, "(seriesId: $series)", map[string]any{"series": showID}); !cmp.Equal(got, []string{orgReport}) {
		t.Errorf("seriesId without organisationId: %v, want the show's report", got)
	}
	if got := count(orgKey.Key, "(podcastId: $series)", map[string]any{"series": showID}); !cmp.Equal(got, []string{orgReport}) {
		t.Errorf("podcastId without organisationId: %v, want the show's report", got)
	}
	if got := count(orgKey.Key, "(organisationId: $org, seriesId: $series)", map[string]any{"org": org.ID, "series": showID}); len(got) != 2 {
		t.Errorf("seriesId with organisationId: %v, want it ignored (both reports)", got)
	}
	if got := count(seed.APIKey, "(seriesId: $series)", map[string]any{"series": showID}); len(got) != 0 {
		t.Errorf("seriesId of a show the caller cannot see: %v", got)
	}
	// A workspace the account does not belong to is not found.
	for _, key := range []string{seed.APIKey, orgKey.Key} {
		status, a := gql(t, srv, key, `query($org: UUID) { seriesList(organisationId: $org) { id } }`, map[string]any{"org": other.ID})
		if status != http.StatusOK || !cmp.Equal(a.codes(), []string{"not_found"}) {
			t.Errorf("foreign organisation: %d %+v", status, a.Errors)
		}
	}
	var shows struct{ SeriesList []struct{ Title string } }
	gqlData(t, srv, orgKey.Key, `query($org: UUID) { seriesList(organisationId: $org) { title } }`, map[string]any{"org": org.ID}, &shows)
	if len(shows.SeriesList) != 2 || shows.SeriesList[0].Title != "Org show" {
		t.Errorf("organisation's shows = %+v", shows.SeriesList)
	}
}

func TestGraphQLTransport(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	key, err := srv.CreateAPIKey(seed.WorkspaceID, "fresh")
	if err != nil {
		t.Fatal(err)
	}
	// last_used_at: stamped by the GraphQL call, then not again within the minute by REST.
	gqlData(t, srv, key.Key, `{ user { id } }`, nil, &struct{}{})
	stamped := srv.Now()
	advance(t, srv, 30*time.Second)
	_, _, body := call(t, srv, "GET", "/api/rest/v1/me", bearer(key.Key), "")
	var me struct {
		Key struct {
			LastUsedAt string `json:"last_used_at"`
		} `json:"key"`
	}
	if err := json.Unmarshal(body, &me); err != nil || me.Key.LastUsedAt != stampString(stamped) {
		t.Errorf("last_used_at = %q, want the GraphQL call's %s (%s)", me.Key.LastUsedAt, stampString(stamped), body)
	}

	// Faults apply to /api/graphql like to REST.
	if _, err := srv.InjectFault(Fault{PathPrefix: "/api/graphql", Status: 503, Count: 1}); err != nil {
		t.Fatal(err)
	}
	status, h, body := call(t, srv, "POST", "/api/graphql", jsonHeader(bearer(key.Key)), `{"query":"{ user { id } }"}`)
	if status != 503 || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
		t.Errorf("fault: %d %s", status, body)
	}

	// The per-key minute limit counts GraphQL requests.
	advance(t, srv, time.Minute)
	for i := range 100 {
		if status, _ := gql(t, srv, key.Key, `{ user { id } }`, nil); status != 200 {
			t.Fatalf("request %d: %d", i+1, status)
		}
	}
	status, h, body = call(t, srv, "POST", "/api/graphql", jsonHeader(bearer(key.Key)), `{"query":"{ user { id } }"}`)
	if status != 429 || h.Get("Retry-After") == "" || errorCode(t, body) != "rate_limited" {
		t.Errorf("101st request: %d %v %s", status, h, body)
	}

	// Other methods; the explorer; a query that does not validate.
	status, h, _ = call(t, srv, "PUT", "/api/graphql", nil, "")
	if status != 405 || h.Get("Allow") != "GET, HEAD, POST" {
		t.Errorf("PUT: %d Allow %q", status, h.Get("Allow"))
	}
	status, h, body = call(t, srv, "GET", "/api/graphql", http.Header{"Accept": {"text/html"}}, "")
	page := string(body)
	if status != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") || !strings.Contains(page, `id="graphiql"`) || !strings.Contains(page, `id="key"`) {
		t.Errorf("explorer: %d %s", status, h.Get("Content-Type"))
	}
	for _, asset := range []struct{ path, contentType, contains string }{
		{"/api/graphql/assets/explorer.js", "text/javascript", "GraphiQL"},
		{"/api/graphql/assets/explorer.css", "text/css", ".graphiql-container"},
		{"/api/graphql/assets/THIRD_PARTY_LICENSES.txt", "text/plain", "graphiql@"},
	} {
		status, h, body := call(t, srv, "GET", asset.path, nil, "")
		if status != 200 || !strings.HasPrefix(h.Get("Content-Type"), asset.contentType) || !strings.Contains(string(body), asset.contains) {
			t.Errorf("%s: %d %s, %d bytes", asset.path, status, h.Get("Content-Type"), len(body))
		}
	}
	for _, external := range []string{`src="http`, `href="http`, `src="//`, `href="//`, "@import"} {
		if strings.Contains(page, external) {
			t.Errorf("the explorer loads %s...: it must work offline", external)
		}
	}
	status, a := gql(t, srv, seed.APIKey, `{ noSuchField }`, nil)
	if status != http.StatusOK || len(a.Errors) == 0 || a.Data != nil { // application/json: 200 with errors (package gqlhttp)
		t.Errorf("invalid query: %d %+v", status, a.Errors)
	}
	status, h, body = call(t, srv, "POST", "/api/graphql", bearer(seed.APIKey), `{"query":"{ user { id } }"}`)
	if err := json.Unmarshal(body, &a); err != nil || status != 400 || h.Get("Content-Type") != "application/json" || !cmp.Equal(a.codes(), []string{"validation_error"}) {
		t.Errorf("no JSON content type: %d %s", status, body)
	}
}

func stampString(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000+00:00") }

// FuzzGraphQLRequest posts arbitrary bodies to /api/graphql in-process: whatever arrives, the
// fake answers JSON without an internal error.
func FuzzGraphQLRequest(f *testing.F) {
	srv, seed := NewTest(f, WithoutRateLimits())
	f.Add(`{"query":"{ user { id } reports(limit: 2) { id stats } }"}`)
	f.Add(`{"query":"query($id: UUID!) { report(id: $id) { id } }","variables":{"id":"not-a-uuid"}}`)
	f.Add(`{"query":"{ reports(createdSince: \"yesterday\", status: \"COMPLETE\", forSeriesId: \"x\") { id } }"}`)
	f.Add(`{"query":"{ seriesList(limit: -5, organisationId: \"00000000-0000-0000-0000-000000000000\") { id } }"}`)
	f.Add(`{"query":"{ __schema { types { name } } }"}`)
	f.Add(`{"query":`)
	f.Add(`[]`)
	// The amplifying queries of issue #19.
	for _, q := range []string{amplifyingQuery(50), aliasedReports(2000, "3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e")} {
		body, _ := json.Marshal(map[string]string{"query": q})
		f.Add(string(body))
	}
	handler := srv.Handler()
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest("POST", "/api/graphql", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+seed.APIKey)
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%d for %q: %s", rec.Code, body, rec.Body)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("not JSON for %q: %s", body, rec.Body)
		}
	})
}

// TestGraphQLTranscriptLeftOut: a report judged by a standard that leaves the transcript out
// answers transcriptIncluded false and transcript null, while reports of the built-in standard
// and of a custom standard that keeps it carry both.
func TestGraphQLTranscriptLeftOut(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	speaker := "host"
	ep := HostedEpisode{Transcript: []TranscriptLine{{Start: 0, End: 800 * time.Millisecond, Text: "Hello there.", Speaker: &speaker}}}
	withTranscript, _ := feedReport(t, srv, seed.APIKey, "Kept", ep)
	no := false
	std, err := srv.CreateStandard(seed.WorkspaceID, StandardSpec{Name: "Private", TranscriptIncluded: &no})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.SetDefaultStandard(seed.WorkspaceID, std.ID); err != nil {
		t.Fatal(err)
	}
	without, _ := feedReport(t, srv, seed.APIKey, "Left out", ep)
	open, err := srv.CreateStandard(seed.WorkspaceID, StandardSpec{Name: "Open"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.SetDefaultStandard(seed.WorkspaceID, open.ID); err != nil {
		t.Fatal(err)
	}
	customKept, _ := feedReport(t, srv, seed.APIKey, "Custom kept", ep)
	advance(t, srv, 10*time.Minute)

	for _, tt := range []struct {
		id       string
		included bool
		standard string
	}{{withTranscript, true, "Podcast"}, {without, false, "Private"}, {customKept, true, "Open"}} {
		var got struct {
			Report struct {
				TranscriptIncluded bool
				Transcript         *string
				Standard           struct{ Name string }
			}
		}
		gqlData(t, srv, seed.APIKey, `query($id: UUID!) { report(id: $id) { transcriptIncluded transcript standard { name } } }`, map[string]any{"id": tt.id}, &got)
		r := got.Report
		if r.TranscriptIncluded != tt.included || (r.Transcript != nil) != tt.included || r.Standard.Name != tt.standard {
			t.Errorf("report %s: transcriptIncluded %v, transcript %v, standard %q; want %v and %q", tt.id, r.TranscriptIncluded, r.Transcript, r.Standard.Name, tt.included, tt.standard)
		}
	}
}

// TestGraphQLSeriesLastCheck: lastCheck (and sources.lastCheck) is when the fake last read the
// show's feed: when the show was added, then at each check of the feed checker.
func TestGraphQLSeriesLastCheck(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	feedReport(t, srv, seed.APIKey, "Checked", HostedEpisode{})
	read := func() (string, string) {
		t.Helper()
		var got struct {
			SeriesList []struct {
				LastCheck *string
				Sources   []struct{ LastCheck *string }
			}
		}
		gqlData(t, srv, seed.APIKey, `{ seriesList { lastCheck sources { lastCheck } } }`, nil, &got)
		if len(got.SeriesList) != 1 || got.SeriesList[0].LastCheck == nil || len(got.SeriesList[0].Sources) != 1 || got.SeriesList[0].Sources[0].LastCheck == nil {
			t.Fatalf("series %+v", got)
		}
		return *got.SeriesList[0].LastCheck, *got.SeriesList[0].Sources[0].LastCheck
	}
	added := stampString(TestStart())
	if a, b := read(); a != added || b != added {
		t.Fatalf("lastCheck %s / %s, want %s", a, b, added)
	}
	advance(t, srv, FeedCheckPeriod+time.Minute)
	checked := stampString(TestStart().Add(FeedCheckPeriod))
	if a, b := read(); a != checked || b != checked {
		t.Fatalf("after a check: %s / %s, want %s", a, b, checked)
	}
}

// TestGraphQLUpdatedSinceIsExclusive: reports(updatedSince:) leaves out a report updated at
// exactly that instant and keeps it from one microsecond earlier.
func TestGraphQLUpdatedSinceIsExclusive(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithAnalysisPace(0))
	id, _ := feedReport(t, srv, seed.APIKey, "Updated", HostedEpisode{})
	advance(t, srv, time.Minute)
	var got struct{ Report struct{ UpdatedAt string } }
	gqlData(t, srv, seed.APIKey, `query($id: UUID!) { report(id: $id) { updatedAt } }`, map[string]any{"id": id}, &got)
	at, err := apitime.Parse(got.Report.UpdatedAt)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		since time.Time
		want  int
	}{{at, 0}, {at.Add(-time.Microsecond), 1}} {
		var page struct{ Reports []struct{ ID string } }
		gqlData(t, srv, seed.APIKey, `query($since: DateTime) { reports(updatedSince: $since) { id } }`, map[string]any{"since": apitime.Format(tt.since)}, &page)
		if len(page.Reports) != tt.want || (tt.want == 1 && page.Reports[0].ID != id) {
			t.Errorf("updatedSince %s: %+v, want %d report(s)", apitime.Format(tt.since), page.Reports, tt.want)
		}
	}
}
