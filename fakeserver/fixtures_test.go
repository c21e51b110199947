package fakeserver

import (
	"errors"
	"net/http"
	"strings"
	"testing"
)

const goodKey = "podqa_api_ci0123456789abcdefghijklmn"

const goodFixtures = `{
  "workspaces": [
    {"ref": "acme", "type": "organisation", "name": "Acme Audio",
     "plan_allowance": 50000, "plan_used": 100, "podcast_limit": 10, "charging_enabled": true,
     "api_keys": [{"ref": "ci", "description": "ci", "key": "` + goodKey + `"}, {"ref": "minted"}],
     "webhook_endpoints": [{"ref": "hook", "url": "http://127.0.0.1:9/hook", "events": ["report.completed"], "secret": "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ="}],
     "standards": [{"ref": "brand", "name": "Brand", "based_on": "EBU R128", "unwanted_words": ["um"], "expected_words": ["Acme"]}],
     "default_standard": "brand"}
  ],
  "feeds": [{"ref": "show", "title": "My Show", "explicit": false, "episodes": [{"title": "One", "duration_s": 2}]}]
}`

func TestFixturesLoad(t *testing.T) {
	t.Parallel()
	f, err := LoadFixtures(strings.NewReader(goodFixtures))
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := NewTest(t, WithFixtures(f), WithPrivateURLs(true), WithSeed(3))
	ids := srv.Fixtures()
	if ids.Workspaces["acme"] == "" || ids.APIKeys["ci"] == "" || ids.APIKeys["minted"] == "" || ids.WebhookEndpoints["hook"] == "" ||
		ids.Standards["brand"] == "" || !strings.HasPrefix(ids.Feeds["show"].FeedURL, srv.URL()+"/_feeds/") {
		t.Fatalf("fixture ids: %+v", ids)
	}
	status, _, body := call(t, srv, "GET", "/api/rest/v1/me", bearer(goodKey), "")
	if status != 200 || !strings.Contains(string(body), ids.Workspaces["acme"]) || !strings.Contains(string(body), ids.APIKeys["ci"]) {
		t.Fatalf("the chosen key: %d %s", status, body)
	}
	status, _, body = call(t, srv, "GET", "/api/rest/v1/credits", bearer(goodKey), "")
	if status != 200 || !strings.Contains(string(body), `50000`) {
		t.Fatalf("credits: %d %s", status, body)
	}
	stds, err := srv.Standards(ids.Workspaces["acme"])
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range stds {
		found = found || s.ID == ids.Standards["brand"] && s.BasedOn == "EBU R128" && len(s.UnwantedWords) == 1
	}
	if !found {
		t.Fatalf("brand is missing: %+v", stds)
	}
	if status, _, _ := call(t, srv, "GET", ids.Feeds["show"].FeedURL[len(srv.URL()):], nil, ""); status != http.StatusOK {
		t.Fatalf("hosted feed: %d", status)
	}
	// Reset brings the same ids back.
	if _, err := srv.Reset(); err != nil {
		t.Fatal(err)
	}
	if again := srv.Fixtures(); again.Workspaces["acme"] != ids.Workspaces["acme"] || again.APIKeys["minted"] != ids.APIKeys["minted"] ||
		again.Feeds["show"] != ids.Feeds["show"] || again.Standards["brand"] != ids.Standards["brand"] {
		t.Fatalf("ids after reset: %+v, before %+v", again, ids)
	}
	if status, _, body := call(t, srv, "GET", "/api/rest/v1/me", bearer(goodKey), ""); status != 200 {
		t.Fatalf("the chosen key after reset: %d %s", status, body)
	}
}

func TestFixturesRefused(t *testing.T) {
	t.Parallel()
	ws := func(extra string) string {
		return `{"workspaces":[{"ref":"a","type":"personal","name":"A"` + extra + `}]}`
	}
	tests := []struct {
		name, doc, want string
	}{
		{"not JSON", `{`, "fixtures: not JSON"},
		{"two documents", `{} {}`, "one JSON object"},
		{"unknown top field", `{"workspace":[]}`, "fixtures: workspace: unknown field"},
		{"unknown nested field", ws(`,"api_keys":[{"ref":"k","kee":"x"}]`), "fixtures: workspaces[0].api_keys[0].kee: unknown field"},
		{"wrong type", ws(`,"podcast_limit":"ten"`), "fixtures: workspaces[0].podcast_limit: must be an integer"},
		{"fraction limit", ws(`,"podcast_limit":1.5`), "fixtures: workspaces[0].podcast_limit: must be an integer"},
		{"missing ref", `{"workspaces":[{"type":"personal","name":"A"}]}`, "fixtures: workspaces[0].ref: is required"},
		{"duplicate ref", `{"workspaces":[{"ref":"a","type":"personal","name":"A"},{"ref":"a","type":"personal","name":"B"}]}`, `fixtures: workspaces[1].ref: "a" is already the ref of workspaces[0]`},
		{"bad type", `{"workspaces":[{"ref":"a","type":"team","name":"A"}]}`, "fixtures: workspaces[0].type: must be personal or organisation"},
		{"no name", `{"workspaces":[{"ref":"a","type":"personal"}]}`, "fixtures: workspaces[0].name: is required"},
		{"key without prefix", ws(`,"api_keys":[{"ref":"k","key":"ci0123456789abcdefghijklmnopq"}]`), "fixtures: workspaces[0].api_keys[0].key: must start with podqa_api_"},
		{"short key", ws(`,"api_keys":[{"ref":"k","key":"podqa_api_short"}]`), "fixtures: workspaces[0].api_keys[0].key: needs at least 24 characters"},
		{"key with space", ws(`,"api_keys":[{"ref":"k","key":"podqa_api_ci0123456789 abcdefghijklmn"}]`), "may hold only"},
		{"duplicate key", ws(`,"api_keys":[{"ref":"k","key":"` + goodKey + `"},{"ref":"l","key":"` + goodKey + `"}]`), "fixtures: workspaces[0].api_keys[1].key: is already the key of workspaces[0].api_keys[0]"},
		{"bad URL", ws(`,"webhook_endpoints":[{"ref":"h","url":"ftp://x/y","events":["report.completed"]}]`), "fixtures: workspaces[0].webhook_endpoints[0].url: must be an absolute http or https URL"},
		{"bad secret", ws(`,"webhook_endpoints":[{"ref":"h","url":"http://127.0.0.1:9/","events":["report.completed"],"secret":"nope"}]`), "fixtures: workspaces[0].webhook_endpoints[0].secret: must be whsec_"},
		{"feed without ref", `{"feeds":[{"title":"T","episodes":[]}]}`, "fixtures: feeds[0].ref: is required"},
		{"negative allowance", ws(`,"plan_allowance":-1`), "fixtures: workspaces[0].plan_allowance: must be a whole number of credits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := LoadFixtures(strings.NewReader(tt.doc))
			var fe *FixtureError
			if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestFixturesRefusedByTheFake covers what only a fake can check: New fails naming the entry.
func TestFixturesRefusedByTheFake(t *testing.T) {
	t.Parallel()
	ws := func(extra string) string {
		return `{"workspaces":[{"ref":"a","type":"personal","name":"A"` + extra + `}]}`
	}
	tests := []struct {
		name, doc, want string
		private         bool
	}{
		{"unknown standard", ws(`,"standards":[{"ref":"s","name":"S","based_on":"Loud"}]`), "fixtures: workspaces[0].standards[0]:", false},
		{"unknown default", ws(`,"default_standard":"nope"`), "fixtures: workspaces[0].default_standard:", false},
		{"private URL refused", ws(`,"webhook_endpoints":[{"ref":"h","url":"http://127.0.0.1:9/","events":["report.completed"]}]`), "fixtures: workspaces[0].webhook_endpoints[0].url: refused", false},
		{"unknown event", ws(`,"webhook_endpoints":[{"ref":"h","url":"http://127.0.0.1:9/","events":["report.eaten"]}]`), "fixtures: workspaces[0].webhook_endpoints[0]:", true},
		{"bad episode", `{"feeds":[{"ref":"f","title":"T","episodes":[{"title":"e","duration_s":-1}]}]}`, `fixtures: feeds[0].episodes[0]: Episode 0 ("e"): duration_s`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := LoadFixtures(strings.NewReader(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			srv, err := New(WithFixtures(f), WithPrivateURLs(tt.private))
			if err == nil {
				srv.Close()
			}
			var fe *FixtureError
			if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
