package graphqlclientproof_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/fakeserver/clienttest"
	"github.com/podqa/podqa-go/graphqlclient"
)

// countingTransport records the operation name of each GraphQL request.
type countingTransport struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen []string
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	body, err := r.GetBody()
	if err == nil {
		var req struct {
			OperationName string `json:"operationName"`
		}
		if json.NewDecoder(body).Decode(&req) == nil {
			c.mu.Lock()
			c.seen = append(c.seen, req.OperationName)
			c.mu.Unlock()
		}
	}
	return c.next.RoundTrip(r)
}

func (c *countingTransport) ops() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.seen)
}

// fastRetries retries at once, so that retry tests sleep no measurable time.
var fastRetries = client.RetryPolicy{MaxAttempts: 3, MinBackoff: time.Nanosecond, MaxBackoff: time.Nanosecond}

func newGQL(t *testing.T, srv *fakeserver.Server, key string, opts ...graphqlclient.Option) *graphqlclient.Client {
	t.Helper()
	return newGQLOver(t, srv, key, nil, opts...)
}

// newGQLOver is newGQL over a REST client bound to the fake (clienttest) with fastRetries, then
// restOpts.
func newGQLOver(t *testing.T, srv *fakeserver.Server, key string, restOpts []client.Option, opts ...graphqlclient.Option) *graphqlclient.Client {
	t.Helper()
	rest := clienttest.NewClient(t, srv, key, append([]client.Option{client.WithRetryPolicy(fastRetries)}, restOpts...)...)
	c, err := graphqlclient.New(rest, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// hostShow hosts a one-episode feed and reports on it over REST; it returns the report and
// its series.
func hostShow(t *testing.T, srv *fakeserver.Server, key, title string, ep fakeserver.HostedEpisode) (reportID, seriesID string) {
	t.Helper()
	if ep.Title == "" {
		ep.Title = title + " #1"
	}
	if ep.Duration == 0 {
		ep.Duration = time.Second
	}
	feed, err := srv.HostFeed(fakeserver.HostedFeedSpec{Title: title, Episodes: []fakeserver.HostedEpisode{ep}})
	if err != nil {
		t.Fatal(err)
	}
	rest := clienttest.NewClient(t, srv, key)
	created, err := rest.CreateReportFromFeed(context.Background(), feed.FeedURL, client.CreateReportParams{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := rest.GetReport(context.Background(), created.ID)
	if err != nil || r.Series == nil {
		t.Fatalf("report %+v: %v", r, err)
	}
	return created.ID, r.Series.ID
}

func advance(t *testing.T, srv *fakeserver.Server, d time.Duration) {
	t.Helper()
	if _, err := srv.Advance(d); err != nil {
		t.Fatal(err)
	}
}

func TestGetReportDecodesLikeREST(t *testing.T) {
	t.Parallel()
	srv, seed := fakeserver.NewTest(t)
	speaker := "a"
	id, seriesID := hostShow(t, srv, seed.APIKey, "Decode", fakeserver.HostedEpisode{Duration: 2 * time.Second, Transcript: []fakeserver.TranscriptLine{
		{Start: 0, End: 1000 * time.Millisecond, Text: "welcome", Speaker: &speaker},
		{Start: 1000 * time.Millisecond, End: 2000 * time.Millisecond, Text: "bye"},
	}})
	ctx := context.Background()
	gql := newGQL(t, srv, seed.APIKey)
	rest := clienttest.NewClient(t, srv, seed.APIKey)

	pending, err := gql.GetReport(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if pending.Status != client.StatusPending || pending.Stats != nil || pending.Transcript != nil || pending.Results != nil {
		t.Errorf("pending report = %+v", pending)
	}
	advance(t, srv, time.Minute)

	got, err := gql.GetReport(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	want, err := rest.GetReport(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	transcript, err := rest.GetTranscript(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != client.StatusComplete || !got.Passed() || len(got.Results) == 0 {
		t.Fatalf("report = %+v", got)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"stats", got.Stats, want.Stats},
		{"results", got.Results, want.Results},
		{"file_info", got.FileInfo, want.FileInfo},
		{"metadata", got.Metadata, want.Metadata},
		{"cover_image", got.CoverImage, want.CoverImage},
		{"standard", got.Standard, want.Standard},
		{"transcript", got.Transcript, transcript.Entries},
		{"name", got.Name, want.Name},
		{"created_at", got.CreatedAt, want.CreatedAt},
		{"updated_at", got.UpdatedAt, want.UpdatedAt},
		{"audio_url", got.AudioURL, want.AudioURL},
		{"series", *got.Series, graphqlclient.SeriesRef{ID: want.Series.ID, Title: want.Series.Title}},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, c.got, cmp.AllowUnexported(client.JSONValue{})); diff != "" {
			t.Errorf("%s differs from REST (-rest +graphql):\n%s", c.name, diff)
		}
	}
	if got.Series.ID != seriesID || !got.TranscriptIncluded || len(got.Transcript) != 2 || got.Transcript[0].Speaker != "Speaker 1" {
		t.Errorf("series %+v, transcript %+v", got.Series, got.Transcript)
	}
	if _, ok := got.Result("loudness_lufs"); !ok {
		t.Errorf("no loudness_lufs result in %+v", got.Results)
	}

	// The REST client's helpers work on the decoded values.
	res, _ := got.Result("loudness_lufs")
	if v, ok := res.Float(); !ok || v > -15 || v < -17 {
		t.Errorf("loudness %v, %v", v, ok)
	}
}

func TestListingsAndFilters(t *testing.T) {
	t.Parallel()
	srv, seed := fakeserver.NewTest(t, fakeserver.WithAnalysisPace(0))
	first, seriesA := hostShow(t, srv, seed.APIKey, "B show", fakeserver.HostedEpisode{})
	advance(t, srv, time.Second)
	second, _ := hostShow(t, srv, seed.APIKey, "a show", fakeserver.HostedEpisode{})
	advance(t, srv, time.Second)
	ctx := context.Background()
	gql := newGQL(t, srv, seed.APIKey)

	ids := func(rows []graphqlclient.ReportSummary) []string {
		out := []string{}
		for _, r := range rows {
			out = append(out, r.ID)
		}
		return out
	}
	tests := []struct {
		name string
		p    graphqlclient.ListReportsParams
		want []string
	}{
		{"newest first", graphqlclient.ListReportsParams{}, []string{second, first}},
		{"limit and offset", graphqlclient.ListReportsParams{ListParams: graphqlclient.ListParams{Limit: 1, Offset: 1}}, []string{first}},
		{"forSeriesId", graphqlclient.ListReportsParams{ForSeriesID: seriesA}, []string{first}},
		{"status sent lower-case", graphqlclient.ListReportsParams{Status: client.StatusComplete}, []string{second, first}},
		{"status with no report", graphqlclient.ListReportsParams{Status: client.StatusFailed}, []string{}},
		{"AWAITING_REVIEW is never set", graphqlclient.ListReportsParams{Status: client.StatusAwaitingReview}, []string{}},
		{"unknown status matches nothing", graphqlclient.ListReportsParams{Status: client.Status("ARCHIVED")}, []string{}},
		{"createdSince exclusive", graphqlclient.ListReportsParams{CreatedSince: fakeserver.TestStart()}, []string{second}},
		{"updatedSince", graphqlclient.ListReportsParams{UpdatedSince: srv.Now()}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rows, err := gql.ListReports(ctx, tt.p)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(rows); !cmp.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}

	rows, err := gql.ListReports(ctx, graphqlclient.ListReportsParams{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rows[0]; r.Stats == nil || !r.Stats.Passed || r.Series == nil || r.Series.Title != "a show" || r.Standard == nil || r.Standard.Name != "Podcast" || r.CreatedAt.IsZero() {
		t.Errorf("row = %+v", r)
	}

	var all []string
	for r, err := range gql.AllReports(ctx, graphqlclient.ListReportsParams{ListParams: graphqlclient.ListParams{Limit: 1}}) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, r.ID)
	}
	if !cmp.Equal(all, []string{second, first}) {
		t.Errorf("AllReports = %v", all)
	}

	shows, err := gql.ListSeries(ctx, graphqlclient.ListParams{})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, s := range shows {
		titles = append(titles, s.Title)
		if s.Kind != client.SeriesPodcast || len(s.Sources) != 1 || !strings.Contains(s.Sources[0].FeedURL, "/_feeds/") {
			t.Errorf("series %+v", s)
		}
	}
	if !cmp.Equal(titles, []string{"a show", "B show"}) {
		t.Errorf("series titles %v, want ordered by title", titles)
	}
	n := 0
	for _, err := range gql.AllSeries(ctx, graphqlclient.ListParams{Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 2 {
		t.Errorf("AllSeries yielded %d", n)
	}

	s, err := gql.GetSeries(ctx, seriesA)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.HistoricScores) != 1 || s.HistoricScores[0].ReportID != first || s.HistoricScores[0].Passed == nil || !*s.HistoricScores[0].Passed {
		t.Errorf("history = %+v", s.HistoricScores)
	}
}

func TestOrganisationKeys(t *testing.T) {
	t.Parallel()
	srv, seed := fakeserver.NewTest(t, fakeserver.WithAnalysisPace(0))
	org, err := srv.CreateWorkspace(fakeserver.WorkspaceSpec{Type: "organisation", Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	key, err := srv.CreateAPIKey(org.ID, "ci")
	if err != nil {
		t.Fatal(err)
	}
	other, err := srv.CreateWorkspace(fakeserver.WorkspaceSpec{Type: "organisation", Name: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	orgReport, orgSeries := hostShow(t, srv, key.Key, "Org show", fakeserver.HostedEpisode{})
	ctx := context.Background()

	me, err := newGQL(t, srv, key.Key).Me(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if me.Key == nil || !me.Key.Owner.IsOrganisation() || me.Key.Owner.ID != org.ID || me.Key.Owner.Name != "Acme" {
		t.Errorf("owner = %+v, want the organisation", me.Key)
	}
	if !cmp.Equal(me.Organisations, []graphqlclient.Organisation{{ID: org.ID, Name: "Acme"}}) || me.User == nil {
		t.Errorf("identity = %+v", me)
	}

	tests := []struct {
		name string
		key  string
		opts []graphqlclient.Option
		want []string // report ids; nil: an error
		is   error
	}{
		{"learned from the key", key.Key, nil, []string{orgReport}, nil},
		{"explicit organisation", key.Key, []graphqlclient.Option{graphqlclient.WithOrganisation(org.ID)}, []string{orgReport}, nil},
		{"personal workspace of the acting owner", key.Key, []graphqlclient.Option{graphqlclient.WithPersonalWorkspace()}, []string{}, nil},
		{"personal key", seed.APIKey, nil, []string{}, nil},
		{"organisation the account is not in", key.Key, []graphqlclient.Option{graphqlclient.WithOrganisation(other.ID)}, nil, client.ErrNotFound},
		{"key that does not work", "podqa_api_nope", nil, nil, client.ErrInvalidAPIKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newGQL(t, srv, tt.key, tt.opts...)
			rows, err := c.ListReports(ctx, graphqlclient.ListReportsParams{})
			if tt.want == nil {
				var ge *graphqlclient.Error
				if !errors.Is(err, tt.is) || !errors.As(err, &ge) {
					t.Fatalf("err = %v, want a *graphqlclient.Error matching %v", err, tt.is)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, r := range rows {
				got = append(got, r.ID)
			}
			if !cmp.Equal(got, tt.want) {
				t.Errorf("reports %v, want %v", got, tt.want)
			}
		})
	}

	// The organisation is learned once, not per call.
	counter := &countingTransport{next: srv.Client().Transport}
	learner := newGQLOver(t, srv, key.Key, []client.Option{client.WithHTTPClient(&http.Client{Transport: counter})})
	for range 3 {
		if rows, err := learner.ListReports(ctx, graphqlclient.ListReportsParams{}); err != nil || len(rows) != 1 {
			t.Fatalf("%v, %v", rows, err)
		}
	}
	if _, err := learner.ListSeries(ctx, graphqlclient.ListParams{}); err != nil {
		t.Fatal(err)
	}
	if got := counter.ops(); !cmp.Equal(got, []string{"Me", "ListReports", "ListReports", "ListReports", "ListSeries"}) {
		t.Errorf("operations sent: %v, want one Me first", got)
	}

	// An API key always sees its own shows' history, whatever the workspace choice.
	s, err := newGQL(t, srv, key.Key, graphqlclient.WithPersonalWorkspace()).GetSeries(ctx, orgSeries)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.HistoricScores) != 1 || s.HistoricScores[0].ReportID != orgReport {
		t.Errorf("own show's history = %+v", s.HistoricScores)
	}
	// Someone else holding the id reads the show without report ids or verdicts.
	s, err = newGQL(t, srv, seed.APIKey).GetSeries(ctx, orgSeries)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.HistoricScores) != 1 || s.HistoricScores[0] != (graphqlclient.HistoricScore{}) || s.Title != "Org show" {
		t.Errorf("foreign show = %+v", s)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	srv, seed := fakeserver.NewTest(t)
	ctx := context.Background()
	gql := newGQL(t, srv, seed.APIKey)

	// A GraphQL errors entry is a typed *Error that errors.Is matches by code.
	_, err := gql.GetReport(ctx, "3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e")
	var ge *graphqlclient.Error
	if !errors.Is(err, client.ErrNotFound) || !errors.As(err, &ge) || ge.Op != "GetReport" || len(ge.Errors) != 1 || ge.Errors[0].Code != "not_found" {
		t.Errorf("unknown report: %v", err)
	}
	if errors.Is(err, client.ErrInvalidAPIKey) {
		t.Errorf("%v matches ErrInvalidAPIKey", err)
	}
	if !strings.Contains(err.Error(), "report: Report not found. (not_found)") {
		t.Errorf("message %q", err)
	}

	// Invalid arguments are refused before any request.
	for _, call := range []func() error{
		func() error { _, err := gql.GetReport(ctx, "nope"); return err },
		func() error { _, err := gql.GetSeries(ctx, ""); return err },
		func() error {
			_, err := gql.ListReports(ctx, graphqlclient.ListReportsParams{ListParams: graphqlclient.ListParams{Limit: -1}})
			return err
		},
		func() error { _, err := gql.WaitForLatestReport(ctx, "x"); return err },
	} {
		if err := call(); !errors.Is(err, client.ErrInvalidArgument) {
			t.Errorf("err = %v, want ErrInvalidArgument", err)
		}
	}
	if _, err := graphqlclient.New(nil); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("nil REST client: %v", err)
	}
	rest, err := client.New("k")
	if err != nil {
		t.Fatal(err)
	}
	for name, opt := range map[string]graphqlclient.Option{
		"bad organisation": graphqlclient.WithOrganisation("not-a-uuid"),
		"nil clock":        graphqlclient.WithClock(nil),
	} {
		if _, err := graphqlclient.New(rest, opt); !errors.Is(err, client.ErrInvalidArgument) {
			t.Errorf("%s: %v", name, err)
		}
	}

	// HTTP failures are the REST client's *APIError, after its retries.
	if _, err := srv.InjectFault(fakeserver.Fault{PathPrefix: "/api/graphql", Status: 500, Count: 3}); err != nil {
		t.Fatal(err)
	}
	_, err = gql.GetReport(ctx, "3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e")
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 500 || !errors.Is(err, client.ErrInternal) {
		t.Errorf("500: %v", err)
	}
	// ...and a transient one is retried away.
	if _, err := srv.InjectFault(fakeserver.Fault{PathPrefix: "/api/graphql", Status: 503, Count: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := gql.Me(ctx); err != nil {
		t.Errorf("after two 503s: %v", err)
	}
}

// TestTolerance answers with values the package does not know: an owner type added to the
// union and a new report status. Neither fails the call. (A canned server: the fake only
// answers what the schema has today.)
func TestTolerance(t *testing.T) {
	t.Parallel()
	answers := map[string]string{
		"Me": `{"data":{"user":{"id":"u1","email":"a@b","firstName":null,"lastName":null},
			"currentApiKey":{"maskedKey":"podqa_api_abc…","owner":{"__typename":"TeamType","id":"t1"}},
			"organisations":[]}}`,
		"ListReports": `{"data":{"reports":[{"id":"r1","name":null,"status":"ARCHIVED","createdAt":null,"updatedAt":null,
			"series":null,"standard":null,"transcriptIncluded":true,"stats":null,"newField":1}]}}`,
		"GetReport": `{"data":{"report":{"id":"r1","status":"REVIEWING","transcriptIncluded":false,"stats":"{\"time_remaining\":5,\"brand_new\":true}"}}}`,
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := make([]byte, r.ContentLength)
		_, _ = r.Body.Read(body)
		for op, answer := range answers {
			if strings.Contains(string(body), `"operationName":"`+op+`"`) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(answer))
				return
			}
		}
		http.Error(w, "unexpected", http.StatusBadRequest)
	}))
	defer ts.Close()
	rest, err := client.New("k", client.WithBaseURL(ts.URL), client.WithHTTPClient(ts.Client()))
	if err != nil {
		t.Fatal(err)
	}
	c, err := graphqlclient.New(rest, graphqlclient.WithPersonalWorkspace())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	me, err := c.Me(ctx)
	if err != nil || me.Key.Owner.Type != "TeamType" || me.Key.Owner.ID != "t1" || me.Key.Owner.IsOrganisation() {
		t.Errorf("unknown owner type: %+v, %v", me, err)
	}
	rows, err := c.ListReports(ctx, graphqlclient.ListReportsParams{})
	if err != nil || len(rows) != 1 || rows[0].Status != "ARCHIVED" || rows[0].Status.IsKnown() {
		t.Errorf("unknown status in a listing: %+v, %v", rows, err)
	}
	r, err := c.GetReport(ctx, "3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e")
	if err != nil || r.Status != "REVIEWING" || r.Status.IsFinal() || r.Stats == nil || r.Stats.TimeRemaining != 5 {
		t.Errorf("unknown status in a report: %+v, %v", r, err)
	}
}

// manualWait makes WaitForLatestReport wait on the fake's manual clock and records each pause.
type manualWait struct {
	srv    *fakeserver.Server
	pauses []time.Duration
	cancel func() // called on the nth pause when set
	at     int
}

func (m *manualWait) Now() time.Time { return m.srv.Now() }

func (m *manualWait) Sleep(ctx context.Context, d time.Duration) error {
	m.pauses = append(m.pauses, d)
	if m.cancel != nil && len(m.pauses) == m.at {
		m.cancel()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := m.srv.Advance(d)
	return err
}

func TestWaitForReport(t *testing.T) {
	t.Parallel()
	const s = time.Second
	every3s := slices.Repeat([]time.Duration{3 * s}, 20)
	tests := []struct {
		name string
		opts []graphqlclient.WaitOption
		want []time.Duration
	}{
		// Analysis takes as long as the audio: a 60 s episode runs from t0+2 s, estimated to
		// end at t0+62 s, done at t0+68 s. PENDING (no estimate): 30 s. IN_PROGRESS at t0+30 s,
		// 32 s left: 30 s. At t0+60 s, 2 s left: 2 s. At t0+62 s time_remaining is 0, which
		// also means "not measured yet": the interval again; the poll at t0+92 s sees COMPLETE.
		{"default interval", nil, []time.Duration{30 * s, 30 * s, 2 * s, 30 * s}},
		// Every 3 s to t0+60 s, then 2 s left: 2 s; 0 left: 3 s; at t0+65 s the run has
		// overrun its estimate: the 2 s minimum until it ends.
		{"short interval and an overrun", []graphqlclient.WaitOption{graphqlclient.WaitInterval(3 * s)}, append(every3s, 2*s, 3*s, 2*s, 2*s)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, seed := fakeserver.NewTest(t, fakeserver.WithAnalysisPace(time.Hour))
			// WAV: the waits are the point, not the codec (no MP3 to encode under -race).
			_, seriesID := hostShow(t, srv, seed.APIKey, "Wait", fakeserver.HostedEpisode{Duration: 60 * time.Second, Channels: 1, SampleRate: 8000, Format: "wav"})
			m := &manualWait{srv: srv}
			gql := newGQL(t, srv, seed.APIKey, graphqlclient.WithClock(m))
			var seen []client.Status
			opts := append(slices.Clone(tt.opts), graphqlclient.WaitProgress(func(p graphqlclient.Progress) {
				seen = append(seen, p.Status)
			}))
			r, err := gql.WaitForLatestReport(context.Background(), seriesID, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != client.StatusComplete || r.Stats == nil || len(r.Results) == 0 {
				t.Fatalf("final report = %+v", r)
			}
			if !cmp.Equal(m.pauses, tt.want) {
				t.Errorf("pauses %v, want %v", m.pauses, tt.want)
			}
			if seen[0] != client.StatusPending || seen[len(seen)-1] != client.StatusComplete || !slices.Contains(seen, client.StatusInProgress) {
				t.Errorf("progress %v", seen)
			}
		})
	}
}

func TestWaitForReportStops(t *testing.T) {
	t.Parallel()
	srv, seed := fakeserver.NewTest(t, fakeserver.WithAnalysisPace(time.Hour))
	// WAV: the 10 minutes set the analysis time on the fake clock; an MP3 of them would only
	// cost encoding under -race.
	_, seriesID := hostShow(t, srv, seed.APIKey, "Long", fakeserver.HostedEpisode{Duration: 600 * time.Second, Channels: 1, SampleRate: 8000, Format: "wav"})
	ctx := context.Background()

	m := &manualWait{srv: srv}
	gql := newGQL(t, srv, seed.APIKey, graphqlclient.WithClock(m))
	_, err := gql.WaitForLatestReport(ctx, seriesID, graphqlclient.WaitCeiling(time.Minute))
	if !errors.Is(err, client.ErrWaitTimeout) {
		t.Errorf("ceiling: %v", err)
	}
	var total time.Duration
	for _, p := range m.pauses {
		total += p
	}
	if total != time.Minute {
		t.Errorf("waited %v in all, want exactly the 1 min ceiling (%v)", total, m.pauses)
	}

	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m = &manualWait{srv: srv, cancel: cancel, at: 2}
	gql = newGQL(t, srv, seed.APIKey, graphqlclient.WithClock(m))
	if _, err := gql.WaitForLatestReport(cctx, seriesID); !errors.Is(err, context.Canceled) || len(m.pauses) != 2 {
		t.Errorf("cancelled: %v after %d pauses", err, len(m.pauses))
	}

	if _, err := gql.WaitForLatestReport(ctx, "3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e"); !errors.Is(err, graphqlclient.ErrNoReport) {
		t.Errorf("series without reports: %v", err)
	}
}
