package core

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
	"github.com/podqa/podqa-go/fakeserver/internal/seeded"
)

func listReports(t testing.TB, c *Core, p Principal, f ReportFilter, limit, offset int) Page[Report] {
	t.Helper()
	page, err := c.ListReports(p, f, limit, offset)
	if err != nil {
		t.Fatal(err)
	}
	return page
}

func listSeries(t testing.TB, c *Core, p Principal, limit, offset int) Page[Series] {
	t.Helper()
	page, err := c.ListSeries(p, limit, offset)
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// raced is a core whose caller was admitted (p) before a reset. With again, the new state
// holds the caller's workspace and key once more, as a reset that loads the same fixtures
// does (the generator is rewound, so the ids and the key repeat).
type raced struct {
	c       *Core
	p       Principal
	ws      uuid.UUID
	upload  uuid.UUID // a reservation of the old state
	series  uuid.UUID // a show of the old state
	report  uuid.UUID // a report of the old state
	hook    uuid.UUID // an endpoint of the old state, made over REST
	resetIn func()    // set, resets the core the next time a feed is read
	// at is the generator's state before the caller was made, and caller makes it (again).
	at     []byte
	caller func(*Core) (uuid.UUID, string)
}

func newRaced(t *testing.T, again bool) *raced {
	t.Helper()
	w := newWorld()
	deps := w.deps(0)
	r := &raced{}
	fetch := deps.FetchFeed
	deps.FetchFeed = func(ctx context.Context, url string) (*FeedDoc, error) {
		doc, err := fetch(ctx, url)
		if reset := r.resetIn; reset != nil {
			r.resetIn = nil
			reset()
		}
		return doc, err
	}
	src := seeded.New(41)
	at := src.Save()
	deps.Rand = src
	r.c = New(clock.NewManual(start), deps)
	caller := func(c *Core) (uuid.UUID, string) {
		ws, err := c.CreateWorkspace(NewWorkspace{Type: Personal, Name: "Ada"})
		if err != nil {
			t.Fatal(err)
		}
		_, key, err := c.CreateAPIKey(ws.ID, "ci", false)
		if err != nil {
			t.Fatal(err)
		}
		return ws.ID, key
	}
	ws, key := caller(r.c)
	p, err := r.c.Authenticate(key)
	if err != nil {
		t.Fatal(err)
	}
	r.p, r.ws = p, ws
	res, err := r.c.Reserve(p, "a.wav", "audio/wav", 60000)
	if err != nil {
		t.Fatal(err)
	}
	r.upload = res.ID
	rep, err := r.c.CreateReportFromFeed(t.Context(), p, FromFeed{FeedURL: "http://feeds.test/show.rss"})
	if err != nil {
		t.Fatal(err)
	}
	r.report, r.series = rep.ID, *rep.Series
	ep, _, err := r.c.CreateEndpoint(ws, NewEndpoint{URL: "http://hooks.test/a", Events: []string{"report.completed"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	r.hook = ep.ID
	r.at, r.caller = at, caller
	r.resetNow(t, again)
	return r
}

// resetNow puts the next state in place: empty, or (again) holding the caller once more.
func (r *raced) resetNow(t *testing.T, again bool) {
	t.Helper()
	src := seeded.Random()
	if err := src.Restore(r.at); err != nil {
		t.Fatal(err)
	}
	n := r.c.Stage(start, src)
	if again {
		if ws, _ := r.caller(n); ws != r.ws {
			t.Fatalf("the new state's workspace is %s, want %s", ws, r.ws)
		}
	}
	if err := r.c.Adopt(n, start, nil); err != nil {
		t.Fatal(err)
	}
}

// TestOperationsAfterAResetReadmitTheCaller is the core's side of must-have 4 of issue 41:
// every operation of a principal admitted before a reset answers as the new state would.
// The new state refuses the key of the old one (a *CredentialRefusal, 401) and changes
// nothing; a key it holds again acts in it, where the old state's things are not found.
func TestOperationsAfterAResetReadmitTheCaller(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		op   func(r *raced) error
		// again is the error code when the new state holds the caller ("" for none); check,
		// when set, says what the operation must have left in the new state.
		again string
		check func(t *testing.T, r *raced)
	}{
		{name: "Reserve", op: func(r *raced) error { _, err := r.c.Reserve(r.p, "b.wav", "audio/wav", 60000); return err },
			check: func(t *testing.T, r *raced) {
				if n := len(r.c.reservations); n != 1 {
					t.Errorf("%d reservations in the new state, want the one made", n)
				}
			}},
		{name: "CreateReportFromUpload", op: func(r *raced) error {
			_, _, err := r.c.CreateReportFromUpload(r.p, r.upload, "a.wav", 60000)
			return err
		}, again: CodeNotFound},
		{name: "CreateReportFromFeed", op: func(r *raced) error {
			_, err := r.c.CreateReportFromFeed(context.Background(), r.p, FromFeed{FeedURL: "http://feeds.test/other.rss"})
			return err
		}, check: func(t *testing.T, r *raced) {
			if page := listReports(t, r.c, r.p, ReportFilter{}, 10, 0); len(page.Items) != 1 || page.Items[0].Workspace != r.ws {
				t.Errorf("the new state's reports: %+v", page.Items)
			}
		}},
		{name: "CreateReportFromFeed of an old show", op: func(r *raced) error {
			_, err := r.c.CreateReportFromFeed(context.Background(), r.p, FromFeed{SeriesID: &r.series})
			return err
		}, again: CodeNotFound},
		{name: "GetReport", op: func(r *raced) error { _, err := r.c.GetReport(r.p, r.report); return err }, again: CodeNotFound},
		{name: "ListReports", op: func(r *raced) error { _, err := r.c.ListReports(r.p, ReportFilter{}, 10, 0); return err }},
		{name: "ListSeries", op: func(r *raced) error { _, err := r.c.ListSeries(r.p, 10, 0); return err }},
		{name: "GetSeries", op: func(r *raced) error { _, err := r.c.GetSeries(r.p, r.series); return err }, again: CodeNotFound},
		{name: "ListEpisodes", op: func(r *raced) error { _, err := r.c.ListEpisodes(r.p, r.series, 10, 0); return err }, again: CodeNotFound},
		{name: "CreditsFor", op: func(r *raced) error { _, err := r.c.CreditsFor(r.p); return err }},
		{name: "SelectWorkspace", op: func(r *raced) error { _, err := r.c.SelectWorkspace(r.p, nil); return err }},
		{name: "ActAs", op: func(r *raced) error { _, err := r.c.ActAs(r.p, r.ws); return err }},
		{name: "CreateEndpointFor", op: func(r *raced) error {
			_, _, err := r.c.CreateEndpointFor(r.p, NewEndpoint{URL: "http://hooks.test/b", Events: []string{"report.completed"}})
			return err
		}, check: func(t *testing.T, r *raced) {
			if eps, err := r.c.Endpoints(r.ws); err != nil || len(eps) != 1 || eps[0].URL != "http://hooks.test/b" {
				t.Errorf("the new state's endpoints: %+v %v", eps, err)
			}
		}},
		{name: "DeleteEndpointFor", op: func(r *raced) error { return r.c.DeleteEndpointFor(r.p, r.hook) }, again: CodeNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name+", a key of the old state", func(t *testing.T) {
			t.Parallel()
			r := newRaced(t, false)
			err := tc.op(r)
			if refusal := (*CredentialRefusal)(nil); !errors.As(err, &refusal) || refusal.Reason != RefusalUnknownKey || code(err) != CodeInvalidAPIKey {
				t.Fatalf("got %v, want the key refused as unknown", err)
			}
			if n := len(r.c.workspaces) + len(r.c.reservations) + len(r.c.reports) + len(r.c.series) + len(r.c.wh.endpoints); n != 0 {
				t.Errorf("the refused operation left %d things in the new state", n)
			}
		})
		t.Run(tc.name+", a key the new state holds", func(t *testing.T) {
			t.Parallel()
			r := newRaced(t, true)
			if err := tc.op(r); code(err) != tc.again || (tc.again == "" && err != nil) {
				t.Fatalf("got %v, want code %q", err, tc.again)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

// TestResetWhileAFeedIsRead: CreateReportFromFeed reads the feed between two looks at the
// state; a reset while it reads (the seam is the feed's fetch) answers as the new state would:
// refused when the new state does not hold the caller, else the report goes into the new state.
func TestResetWhileAFeedIsRead(t *testing.T) {
	t.Parallel()
	for _, again := range []bool{false, true} {
		r := newRaced(t, true) // the caller is admitted again by the first reset's state
		r.resetIn = func() { r.resetNow(t, again) }
		rep, err := r.c.CreateReportFromFeed(context.Background(), r.p, FromFeed{FeedURL: "http://feeds.test/other.rss"})
		if r.resetIn != nil {
			t.Fatal("the feed was not read")
		}
		if !again {
			if code(err) != CodeInvalidAPIKey {
				t.Fatalf("a reset to an empty state while the feed was read: %v, want invalid_api_key", err)
			}
			if n := len(r.c.reports) + len(r.c.series); n != 0 {
				t.Errorf("%d reports and shows in the new state", n)
			}
			continue
		}
		if err != nil {
			t.Fatalf("a reset to a state holding the caller while the feed was read: %v", err)
		}
		if got, ok := r.c.reports[rep.ID]; !ok || got.Workspace != r.ws || len(r.c.reports) != 1 {
			t.Errorf("the report is not the new state's alone: %+v", rep)
		}
	}
}
