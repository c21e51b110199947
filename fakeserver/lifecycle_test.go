package fakeserver

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestLifecycleThroughHTTP follows two reports over the REST API on the manual clock: the
// transient states, time_remaining counting down and going negative, the longer one finishing
// after the shorter one created later, updated_at moving on each change, and the charges taken
// soonest-expiring lot first.
func TestLifecycleThroughHTTP(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithAnalysisPace(time.Hour)) // analysis takes as long as the audio
	if err := srv.SetCredits(seed.WorkspaceID, CreditsChange{PlanAllowance: ptrTo(1000.0)}); err != nil {
		t.Fatal(err)
	}
	soon := TestStart().Add(24 * time.Hour)
	if err := srv.AddTopup(seed.WorkspaceID, TopupSpec{Amount: 150, ExpiresAt: soon}); err != nil {
		t.Fatal(err)
	}
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Pace", Episodes: []HostedEpisode{
		{Title: "short", GUID: "s", Duration: 1 * time.Second, Format: "wav"},
		{Title: "long", GUID: "l", Duration: 6 * time.Second, Format: "wav"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	create := func(index string) string {
		status, body := createFromFeed(t, srv, seed.APIKey, `{"feed_url":"`+feed.FeedURL+`","episode_index":`+index+`}`)
		var c struct{ ID string }
		if status != 201 || json.Unmarshal(body, &c) != nil {
			t.Fatalf("create: %d %s", status, body)
		}
		return c.ID
	}
	long := create("1")
	if _, err := srv.Advance(time.Second); err != nil {
		t.Fatal(err)
	}
	short := create("0")

	type snap struct {
		status    string
		remaining int
		updated   string
	}
	read := func(id string) snap {
		status, _, body := call(t, srv, "GET", "/api/rest/v1/reports/"+id, bearer(seed.APIKey), "")
		var r struct {
			Status    string `json:"status"`
			UpdatedAt string `json:"updated_at"`
			Stats     *struct {
				TimeRemaining *int `json:"time_remaining"`
			} `json:"stats"`
		}
		if status != 200 || json.Unmarshal(body, &r) != nil {
			t.Fatalf("read: %d %s", status, body)
		}
		s := snap{status: r.Status, updated: r.UpdatedAt}
		if r.Stats != nil && r.Stats.TimeRemaining != nil {
			s.remaining = *r.Stats.TimeRemaining
		}
		return s
	}
	// long: created t0, SCHEDULED t0+1 s, IN_PROGRESS t0+2 s with a 6 s estimate, done 6.6 s
	// later at t0+8.6 s. short: created t0+1 s, IN_PROGRESS t0+3 s with a 1 s estimate, done at
	// t0+4.1 s.
	steps := []struct {
		at          time.Duration // since t0
		long, short snap
	}{
		{1 * time.Second, snap{"SCHEDULED", 0, ""}, snap{"PENDING", 0, ""}},
		{2 * time.Second, snap{"IN_PROGRESS", 6000, ""}, snap{"SCHEDULED", 0, ""}},
		{3 * time.Second, snap{"IN_PROGRESS", 5000, ""}, snap{"IN_PROGRESS", 1000, ""}},
		{4 * time.Second, snap{"IN_PROGRESS", 4000, ""}, snap{"IN_PROGRESS", 0, ""}},
		{4100 * time.Millisecond, snap{"IN_PROGRESS", 3900, ""}, snap{"COMPLETE", 0, ""}},
		{8500 * time.Millisecond, snap{"IN_PROGRESS", -500, ""}, snap{"COMPLETE", 0, ""}},
		{8600 * time.Millisecond, snap{"COMPLETE", 0, ""}, snap{"COMPLETE", 0, ""}},
	}
	last := map[string]snap{}
	for _, st := range steps {
		if _, err := srv.Advance(TestStart().Add(st.at).Sub(srv.Now())); err != nil {
			t.Fatal(err)
		}
		for id, want := range map[string]snap{long: st.long, short: st.short} {
			got := read(id)
			if got.status != want.status || got.remaining != want.remaining {
				t.Fatalf("at +%v report %s: %s %d, want %s %d", st.at, id[:8], got.status, got.remaining, want.status, want.remaining)
			}
			if prev, ok := last[id]; ok && (prev.status != got.status) == (prev.updated == got.updated) {
				t.Fatalf("at +%v: updated_at %s -> %s while status %s -> %s", st.at, prev.updated, got.updated, prev.status, got.status)
			}
			last[id] = got
		}
	}
	// Listed newest created first, whatever finished first.
	status, _, body := call(t, srv, "GET", "/api/rest/v1/reports?status=COMPLETE", bearer(seed.APIKey), "")
	if status != 200 || strings.Index(string(body), short) > strings.Index(string(body), long) {
		t.Fatalf("order: %s", body)
	}
	// Each cost 100 (the minimum): the 150 expiring tomorrow went first, then 50 from the plan
	// lot, which expires later (at the end of the month).
	status, _, body = call(t, srv, "GET", "/api/rest/v1/credits", bearer(seed.APIKey), "")
	var cr creditsAnswer
	if status != 200 || json.Unmarshal(body, &cr) != nil || cr.TopupBalance != 0 || cr.PlanUsed != 50 || cr.Balance != 950 || len(cr.TopupLots) != 0 {
		t.Fatalf("credits after two charges: %s", body)
	}
}

func TestLastUsedAtThroughHTTP(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	lastUsed := func() string {
		status, _, body := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), "")
		var me meAnswer
		if status != 200 || json.Unmarshal(body, &me) != nil || me.Key.LastUsedAt == nil {
			t.Fatalf("%d %s", status, body)
		}
		return *me.Key.LastUsedAt
	}
	first := lastUsed()
	for _, step := range []struct {
		advance time.Duration
		moved   bool
	}{{30 * time.Second, false}, {29 * time.Second, false}, {time.Second, true}, {10 * time.Second, false}} {
		if _, err := srv.Advance(step.advance); err != nil {
			t.Fatal(err)
		}
		got := lastUsed()
		if (got != first) != step.moved {
			t.Fatalf("after %v: last_used_at %s (was %s)", step.advance, got, first)
		}
		first = got
	}
}
