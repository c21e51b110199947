package core

import (
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
)

// world is a scripted outside world: feeds by URL, and a measurement per audio URL.
type world struct {
	feeds    map[string]*FeedDoc
	measures map[string]Measurement
}

func (w *world) deps(pace time.Duration) Deps {
	return Deps{
		AnalysisPace: pace,
		FetchFeed: func(_ context.Context, url string) (*FeedDoc, error) {
			doc, ok := w.feeds[url]
			if !ok {
				return nil, errors.New("the feed URL answered HTTP 404")
			}
			return doc, nil
		},
		OpenAudio: func(_ context.Context, url string) (io.ReadCloser, error) {
			return io.NopCloser(strings.NewReader(url)), nil
		},
		Analyze: func(_ context.Context, r io.Reader, _ string) (Measurement, error) {
			b, _ := io.ReadAll(r)
			m, ok := w.measures[string(b)]
			if !ok {
				return Measurement{}, errors.New("not an audio file")
			}
			return m, nil
		},
	}
}

func newWorld() *world {
	explicit := false
	pub := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	return &world{
		feeds: map[string]*FeedDoc{
			"http://feeds.test/show.rss": {Title: "The Show", Explicit: &explicit, Episodes: []FeedEpisode{
				{Title: "Long one", GUID: "ep-2", AudioURL: "http://feeds.test/ep2.wav", PublishedOn: &pub},
				{Title: "Short one", GUID: "ep-1", AudioURL: "http://feeds.test/ep1.wav"},
				{Title: "Broken", GUID: "ep-0", AudioURL: "http://feeds.test/broken.wav"},
			}},
			"http://feeds.test/other.rss": {Title: "Other", Episodes: []FeedEpisode{{Title: "x", GUID: "o", AudioURL: "http://feeds.test/ep1.wav"}}},
		},
		measures: map[string]Measurement{
			"http://feeds.test/ep2.wav": {Duration: time.Hour, Channels: 2, SampleRate: 44100, IntegratedLUFS: -16.2, TruePeakDB: -1.5, Size: 1000},
			"http://feeds.test/ep1.wav": {Duration: 12*time.Minute + time.Second, Channels: 1, SampleRate: 44100, IntegratedLUFS: -14, TruePeakDB: -0.5, Size: 100},
		},
	}
}

type fixture struct {
	c  *Core
	p  Principal
	ws Workspace
}

func newFixture(t *testing.T, pace time.Duration, plan NewWorkspace) fixture {
	t.Helper()
	c := New(clock.NewManual(start), newWorld().deps(pace))
	if plan.Type == "" {
		plan.Type, plan.Name = Personal, "Ada"
	}
	ws, err := c.CreateWorkspace(plan)
	if err != nil {
		t.Fatal(err)
	}
	_, key := mustKey(t, c, ws.ID, false)
	p, err := c.Authenticate(key)
	if err != nil {
		t.Fatal(err)
	}
	return fixture{c: c, p: p, ws: ws}
}

func (f fixture) advance(t *testing.T, d time.Duration) {
	t.Helper()
	if _, err := f.c.Clock().Advance(d); err != nil {
		t.Fatal(err)
	}
}

func (f fixture) report(t *testing.T, id uuid.UUID) Report {
	t.Helper()
	r, err := f.c.GetReport(f.p, id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestReportLifecycleOnTheClock(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 5*time.Minute, NewWorkspace{})
	r, err := f.c.CreateReportFromFeed(t.Context(), f.p, FromFeed{FeedURL: "http://feeds.test/show.rss"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusPending || !r.CreatedAt.Equal(start) || r.OriginalFilename != "ep2.wav" || !r.Personal {
		t.Fatalf("new report %+v", r)
	}
	wantSteps := []struct {
		advance   time.Duration
		status    string
		remaining time.Duration
	}{
		{time.Second, StatusScheduled, 0},
		{time.Second, StatusInProgress, 5 * time.Minute},
		{2 * time.Minute, StatusInProgress, 3 * time.Minute},
		{3 * time.Minute, StatusInProgress, 0},
		{20 * time.Second, StatusInProgress, -20 * time.Second}, // overran its estimate: still working
		{10 * time.Second, StatusComplete, 0},                   // runs 10% over: 5m30s after start
	}
	last := r.UpdatedAt
	for i, s := range wantSteps {
		f.advance(t, s.advance)
		got := f.report(t, r.ID)
		if got.Status != s.status || got.TimeRemaining(f.c.Clock().Now()) != s.remaining {
			t.Fatalf("step %d: %s remaining %v, want %s %v", i, got.Status, got.TimeRemaining(f.c.Clock().Now()), s.status, s.remaining)
		}
		changed := i == 0 || i == 1 || i == 5
		if changed != !got.UpdatedAt.Equal(last) {
			t.Fatalf("step %d: updated_at %v (was %v)", i, got.UpdatedAt, last)
		}
		last = got.UpdatedAt
	}
	done := f.report(t, r.ID)
	if done.StartedAt == nil || !done.StartedAt.Equal(start.Add(2*time.Second)) {
		t.Fatalf("started_at %v", done.StartedAt)
	}
	if done.Name == nil || *done.Name != "Long one" {
		t.Fatalf("name %v, want the episode title", done.Name)
	}
	if done.CreditsCharged == nil || *done.CreditsCharged != 600 {
		t.Fatalf("charged %v, want 600 for an hour", done.CreditsCharged)
	}
	st := done.Stats
	// loudness_lufs, peak, sample_rate, channels and explicit_flag: the rest lack their input.
	if st == nil || !st.Passed || st.Total != 5 || st.Passes != 5 || st.Percent != 100 || st.RequiredTotal != 5 {
		t.Fatalf("stats %+v", st)
	}
	cr, _ := f.c.Credits(f.ws.ID)
	if cr.PlanUsed != 600 || cr.Balance != 600 {
		t.Fatalf("credits after charge %+v", cr)
	}
}

func TestReportsFinishOutOfOrderAndFailWithAReason(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 5*time.Minute, NewWorkspace{})
	long, _ := f.c.CreateReportFromFeed(t.Context(), f.p, FromFeed{FeedURL: "http://feeds.test/show.rss", EpisodeIndex: 0})
	short, _ := f.c.CreateReportFromFeed(t.Context(), f.p, FromFeed{FeedURL: "http://feeds.test/show.rss", EpisodeIndex: 1})
	broken, _ := f.c.CreateReportFromFeed(t.Context(), f.p, FromFeed{FeedURL: "http://feeds.test/show.rss", EpisodeIndex: 2})
	f.advance(t, 2*time.Minute)
	if got := f.report(t, short.ID); got.Status != StatusComplete {
		t.Fatalf("short report %s after 2 minutes", got.Status)
	}
	if got := f.report(t, long.ID); got.Status != StatusInProgress {
		t.Fatalf("long report %s after 2 minutes", got.Status)
	}
	b := f.report(t, broken.ID)
	if b.Status != StatusFailed || !strings.Contains(b.FailureReason, "not an audio file") {
		t.Fatalf("broken report %s %q", b.Status, b.FailureReason)
	}
	// The short episode is mono, loud and peaky: it fails, and costs 13 started minutes.
	s := f.report(t, short.ID)
	if s.Stats.Passed || s.Stats.RequiredFailures != 2 || *s.CreditsCharged != 130 {
		t.Fatalf("short report stats %+v charged %v", s.Stats, *s.CreditsCharged)
	}
	for _, res := range s.Results {
		if (res.Status == Fail) != (res.WarningMessage != nil) {
			t.Fatalf("warning_message on %s %s: %v", res.Name, res.Status, res.WarningMessage)
		}
	}
	if lim := *s.Results[0].Limit; lim != "between \u221220 and \u221218 LUFS" {
		t.Fatalf("mono loudness limit %q", lim)
	}
	// Listing: newest created first; filters.
	page := listReports(t, f.c, f.p, ReportFilter{}, 50, 0)
	if len(page.Items) != 3 || page.Items[0].ID != broken.ID || page.Items[2].ID != long.ID || page.HasMore {
		t.Fatalf("list order %v", page.Items)
	}
	since := start.Add(time.Minute)
	complete := listReports(t, f.c, f.p, ReportFilter{Status: StatusComplete, UpdatedSince: &since}, 50, 0)
	if len(complete.Items) != 1 || complete.Items[0].ID != short.ID {
		t.Fatalf("complete since a minute: %v", complete.Items)
	}
	created := start
	if n := len(listReports(t, f.c, f.p, ReportFilter{CreatedSince: &created}, 50, 0).Items); n != 0 {
		t.Fatalf("created_since is exclusive, got %d", n)
	}
	two := listReports(t, f.c, f.p, ReportFilter{}, 2, 1)
	if len(two.Items) != 2 || two.HasMore || two.Offset != 1 {
		t.Fatalf("window %+v", two)
	}
}

func TestCreateReportRefusals(t *testing.T) {
	t.Parallel()
	zero := 0.0
	one := 1
	tests := []struct {
		name     string
		plan     NewWorkspace
		in       FromFeed
		setup    func(f fixture)
		code     string
		contains string
	}{
		{"unreadable feed", NewWorkspace{}, FromFeed{FeedURL: "http://feeds.test/missing.rss"}, nil, CodeValidation, "HTTP 404"},
		{"index past the end", NewWorkspace{}, FromFeed{FeedURL: "http://feeds.test/show.rss", EpisodeIndex: 3}, nil, CodeValidation, "past the end"},
		{"no credits", NewWorkspace{Type: Personal, Name: "Broke", PlanAllowance: &zero}, FromFeed{FeedURL: "http://feeds.test/show.rss"}, nil, CodeInsufficientCredits, "100 credits"},
		{"unknown series", NewWorkspace{}, FromFeed{SeriesID: ptr(uuid.New())}, nil, CodeNotFound, "Series"},
		{"podcast cap", NewWorkspace{Type: Personal, Name: "Small", PodcastLimit: &one}, FromFeed{FeedURL: "http://feeds.test/other.rss"}, func(f fixture) {
			if _, err := f.c.CreateReportFromFeed(context.Background(), f.p, FromFeed{FeedURL: "http://feeds.test/show.rss"}); err != nil {
				panic(err)
			}
		}, CodePlanLimitReached, "allows 1 podcasts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, time.Minute, tt.plan)
			if tt.setup != nil {
				tt.setup(f)
			}
			before := len(f.c.reports)
			seriesBefore := len(f.c.series)
			_, err := f.c.CreateReportFromFeed(t.Context(), f.p, tt.in)
			var e *Error
			if !errors.As(err, &e) || e.Code != tt.code || !strings.Contains(e.Message, tt.contains) {
				t.Fatalf("err = %v, want %s containing %q", err, tt.code, tt.contains)
			}
			if len(f.c.reports) != before || len(f.c.series) != seriesBefore {
				t.Fatal("a refused request created something")
			}
		})
	}
}

func TestSeriesAndEpisodes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 0, NewWorkspace{})
	r1, _ := f.c.CreateReportFromFeed(t.Context(), f.p, FromFeed{FeedURL: "http://feeds.test/show.rss", EpisodeIndex: 1})
	f.advance(t, time.Minute)
	series := listSeries(t, f.c, f.p, 50, 0)
	if len(series.Items) != 1 || *series.Items[0].Title != "The Show" {
		t.Fatalf("series %+v", series.Items)
	}
	sid := series.Items[0].ID
	if _, err := f.c.CreateReportFromFeed(t.Context(), f.p, FromFeed{SeriesID: &sid}); err != nil {
		t.Fatal(err)
	}
	if got := listSeries(t, f.c, f.p, 50, 0); len(got.Items) != 1 {
		t.Fatal("reporting on a held show added it again")
	}
	eps, err := f.c.ListEpisodes(f.p, sid, 50, 0)
	if err != nil || len(eps.Items) != 2 || eps.Items[0].GUID != "ep-2" || eps.Items[1].GUID != "ep-1" {
		t.Fatalf("episodes newest first by first_seen_at: %+v %v", eps.Items, err)
	}
	other := newFixture(t, 0, NewWorkspace{})
	if _, err := f.c.GetSeries(other.p, sid); err == nil {
		t.Fatal("a series of another workspace was readable")
	}
	if _, err := f.c.GetReport(other.p, r1.ID); err == nil {
		t.Fatal("a report of another workspace was readable")
	}
}

func TestCredits(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 0, NewWorkspace{}) // free plan: 1,200
	soon := start.Add(48 * time.Hour)
	if _, err := f.c.AddTopup(f.ws.ID, 50, &soon, false); err != nil {
		t.Fatal(err)
	}
	cr, _ := f.c.AddTopup(f.ws.ID, 500, nil, false)
	if cr.Balance != 1750 || cr.TopupBalance != 550 || !cr.TopupExpiresAt.Equal(soon) || len(cr.TopupLots) != 2 || cr.TopupLots[0].AmountRemaining != 50 {
		t.Fatalf("credits %+v", cr)
	}
	if !cr.TopupLots[1].ExpiresAt.Equal(start.AddDate(1, 0, 0)) {
		t.Fatalf("default top-up expiry %v", cr.TopupLots[1].ExpiresAt)
	}
	if !cr.FinishDate.Equal(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)) || !cr.FreeAllowance || cr.Progress != 0 {
		t.Fatalf("period %+v", cr)
	}
	// An hour costs 600: the 50 expiring first, then 550 from the plan lot (which expires at the
	// period's end, before the 12-month top-up).
	if _, err := f.c.CreateReportFromFeed(t.Context(), f.p, FromFeed{FeedURL: "http://feeds.test/show.rss"}); err != nil {
		t.Fatal(err)
	}
	f.advance(t, time.Second)
	cr, _ = f.c.Credits(f.ws.ID)
	if cr.PlanUsed != 550 || cr.TopupBalance != 500 || len(cr.TopupLots) != 1 || cr.Balance != 1150 {
		t.Fatalf("after charging %+v", cr)
	}
	if want := 550.0 / (550 + 1150); math.Abs(cr.Progress-want) > 1e-12 {
		t.Fatalf("progress %v, want %v", cr.Progress, want)
	}
	// The plan renews on the first of the month.
	f.advance(t, 31*24*time.Hour)
	cr, _ = f.c.Credits(f.ws.ID)
	if cr.PlanUsed != 0 || !cr.FinishDate.Equal(time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("after renewal %+v", cr)
	}
	// Charging off: the cost is worked out, nothing is deducted, nothing refused.
	off := false
	zero := 0.0
	if _, err := f.c.SetCredits(f.ws.ID, &zero, nil, &off); err != nil {
		t.Fatal(err)
	}
	r, err := f.c.CreateReportFromFeed(t.Context(), f.p, FromFeed{FeedURL: "http://feeds.test/show.rss", EpisodeIndex: 1})
	if err != nil {
		t.Fatal(err)
	}
	f.advance(t, time.Second)
	cr, _ = f.c.Credits(f.ws.ID)
	if got := f.report(t, r.ID); *got.CreditsCharged != 130 || cr.PlanUsed != 0 || cr.TopupBalance != 500 || cr.Progress != 0 || cr.FreeAllowance {
		t.Fatalf("charging off: charged %v, credits %+v", *got.CreditsCharged, cr)
	}
}

func TestCostOf(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		d    time.Duration
		want int
	}{{0, 100}, {time.Second, 100}, {10 * time.Minute, 100}, {10*time.Minute + time.Millisecond, 110}, {time.Hour, 600}} {
		if got := CostOf(tt.d); got != tt.want {
			t.Errorf("CostOf(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}

func newWorldClock() *clock.Clock { return clock.NewManual(start) }
