package fakeserver

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// FuzzLoadFixtures feeds arbitrary documents to LoadFixtures: it must never panic, and a
// refusal is always a *FixtureError (or a read error) on one line.
func FuzzLoadFixtures(f *testing.F) {
	f.Add(goodFixtures)
	f.Add(`{"workspaces":[{"ref":"a","type":"personal","name":"A","api_keys":[{"ref":"k","key":"podqa_api_x"}]}]}`)
	f.Add(`{"feeds":[{"ref":"f","title":"T","episodes":[{"title":"e","duration_s":1,"transcript":[{"start":0,"end":1,"text":"x"}]}]}]}`)
	f.Add(`{"workspaces":[{"ref":1}],"feeds":null}`)
	f.Add(`[]`)
	f.Add(`null`)
	f.Add(`{"workspaces":[{"ref":"a","ref":"b","type":"personal","name":"A","plan_allowance":1.5}]}`)
	f.Add(`{"workspaces":[{"ref":"a","type":"personal","name":"A","plan_used":1e30,"standards":[{"ref":"s","name":"S"},{"ref":"t","name":"s"}]}]}`)
	f.Add(`{"workspaces":[{"ref":"a","type":"personal","name":"A","api_keys":[{"ref":"k","key":"podqa_api_` + strings.Repeat("k", 200) + `"}]}]}`)
	f.Add(`{"a":{"b":{"c":[[[[{"é"x":` + "\x00")
	f.Fuzz(func(t *testing.T, doc string) {
		_, err := LoadFixtures(strings.NewReader(doc))
		if err == nil {
			return
		}
		var fe *FixtureError
		if !errors.As(err, &fe) || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "fixtures: ") {
			t.Fatalf("refusal %T %q", err, err)
		}
		// A refusal stays short, whatever the document's keys and values.
		if len(err.Error()) > 2048 {
			t.Fatalf("a %d-byte refusal", len(err.Error()))
		}
	})
}

// FuzzJournalFilters sends arbitrary query strings to GET /_fake/requests: the answer is 200 or
// 400 in the REST envelope, never anything else.
func FuzzJournalFilters(f *testing.F) {
	srv, _ := NewTest(f)
	req := func(query string) (int, []byte) {
		r, err := http.NewRequest("GET", srv.URL()+"/_fake/requests?"+query, nil)
		if err != nil {
			return -1, nil
		}
		r.Header.Set("Authorization", "Bearer "+srv.AdminToken())
		resp, err := srv.Client().Do(r)
		if err != nil {
			return -1, nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for _, q := range []string{"limit=5", "status=200&method=get", "since=2026-01-05T09:00:00Z", "workspace_id=x", "limit=%zz", "path_prefix=/api"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, query string) {
		status, body := req(query)
		if status == -1 {
			return // not a request Go can send
		}
		if status != 200 && status != 400 {
			t.Fatalf("%q: %d %s", query, status, body)
		}
	})
}
