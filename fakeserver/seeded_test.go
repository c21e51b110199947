package fakeserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/webhooks/wire"
)

// hookLog is a webhook receiver that answers 204 and keeps each delivery's headers that the
// fake mints.
type hookLog struct {
	mu      sync.Mutex
	secrets []string
	seen    []string
}

// ServeHTTP keeps the webhook-id and timestamp, and whether the signature verifies under one of
// the secrets (the signature itself covers the body, which names the fake's address).
func (h *hookLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	id, ts := r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp")
	unix, _ := strconv.ParseInt(ts, 10, 64)
	verified := false
	for _, secret := range h.secrets {
		key, err := wire.DecodeSecret(secret)
		verified = verified || err == nil && wire.Sign(key, id, time.Unix(unix, 0), body) == r.Header.Get("webhook-signature")
	}
	h.seen = append(h.seen, fmt.Sprintf("%s %s verified=%v", id, ts, verified))
	w.WriteHeader(http.StatusNoContent)
}

func (h *hookLog) trust(secret any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := secret.(string); ok {
		h.secrets = append(h.secrets, s)
	}
}

// firstDifference shows where two scenario transcripts part, briefly.
func firstDifference(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n%.600s\n%.600s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines against %d", len(la), len(lb))
}

// scenario runs one fixed sequence of calls, one after another, and returns every answer with
// the fake's and the receiver's addresses replaced (the only parts that differ between two
// fakes): ids, keys, secrets, session tokens, upload URL signatures and webhook-ids are all in
// it.
func scenario(t *testing.T, srv *Server, demo DemoWorkspace) string {
	t.Helper()
	hooks := &hookLog{}
	receiver := httptest.NewServer(hooks)
	defer receiver.Close()
	var out strings.Builder
	step := func(method, path string, h http.Header, body string) map[string]any {
		t.Helper()
		status, _, answer := call(t, srv, method, path, h, body)
		fmt.Fprintf(&out, "%s %s -> %d %s\n", method, path, status, answer)
		var v map[string]any
		_ = json.Unmarshal(answer, &v)
		return v
	}
	key := jsonHeader(bearer(demo.APIKey))
	ctl := admin(srv)
	step("GET", "/api/rest/v1/me", key, "")
	org := step("POST", "/_fake/workspaces", ctl, `{"type":"organisation","name":"Acme"}`)
	step("POST", fmt.Sprintf("/_fake/workspaces/%s/api-keys", org["id"]), ctl, `{"description":"ci"}`)
	step("POST", fmt.Sprintf("/_fake/workspaces/%s/sessions", demo.WorkspaceID), ctl, "")
	// WAV: the scenario runs four times, and MP3 calibrations would be most of its CPU under
	// -race while hosted audio is a function of its spec, not of the seed.
	feed := step("POST", "/_fake/feeds", ctl, `{"title":"Show","episodes":[{"title":"One","duration_s":2,"format":"wav"},{"title":"Two","duration_s":2,"format":"wav"}]}`)
	ep := step("POST", fmt.Sprintf("/_fake/workspaces/%s/webhook-endpoints", demo.WorkspaceID), ctl, `{"url":"`+receiver.URL+`/hook","events":["report.completed"]}`)
	hooks.trust(ep["secret"])
	hooks.trust(step("POST", "/webhook/subscribe", key, `{"url":"`+receiver.URL+`/rest","events":["report.created"]}`)["secret"])
	report := step("POST", "/api/rest/v1/reports", key, fmt.Sprintf(`{"feed_url":%q}`, feed["feed_url"]))
	step("POST", "/_fake/clock/advance", ctl, `{"seconds":600}`)
	step("GET", fmt.Sprintf("/api/rest/v1/reports/%s", report["id"]), key, "")
	step("POST", "/api/rest/v1/uploads", key, `{"file_name":"a.wav","file_type":"audio/wav","duration_ms":2000}`)
	step("POST", fmt.Sprintf("/_fake/webhook-endpoints/%s/test", ep["id"]), ctl, "")
	step("GET", "/_fake/webhook-deliveries", ctl, "")
	step("GET", "/_fake/emails?workspace_id="+demo.WorkspaceID, ctl, "")
	step("POST", "/_fake/faults", ctl, `{"path_prefix":"/api/rest/v1/series","status":500,"count":1}`)
	step("GET", "/api/rest/v1/series", key, "")
	hooks.mu.Lock()
	fmt.Fprintf(&out, "deliveries: %q\n", hooks.seen)
	hooks.mu.Unlock()
	if len(hooks.seen) < 2 || strings.Contains(fmt.Sprint(hooks.seen), "verified=false") {
		t.Fatalf("the scenario's receiver got %q, want at least 2 verified deliveries", hooks.seen)
	}
	text := strings.ReplaceAll(out.String(), srv.URL(), "{base}")
	// A delivery shows the signature it sent, which covers the body, which names the fake's
	// address: the receiver checked it above.
	text = sentSignature.ReplaceAllString(text, `"value":"v1,{signature}"`)
	return strings.ReplaceAll(text, receiver.URL, "{receiver}")
}

var sentSignature = regexp.MustCompile(`"value":"v1,[A-Za-z0-9+/=]+"`)

func TestSameSeedSameAnswers(t *testing.T) {
	t.Parallel()
	run := func(seed uint64, seeded bool) (string, DemoWorkspace, string) {
		opts := []Option{WithPrivateURLs(true), WithAnalysisPace(0)}
		if seeded {
			opts = append(opts, WithSeed(seed))
		}
		srv, demo := NewTest(t, opts...)
		return scenario(t, srv, demo), demo, srv.AdminToken()
	}
	a, demoA, tokenA := run(7, true)
	b, demoB, tokenB := run(7, true)
	if a != b {
		t.Fatalf("same seed, different answers: %s", firstDifference(a, b))
	}
	if demoA != demoB || tokenA != tokenB {
		t.Fatalf("same seed, different Demo or admin token: %+v %s / %+v %s", demoA, tokenA, demoB, tokenB)
	}
	for _, minted := range []string{"podqa_api_", "whsec_", "msg_", "sessionid", "signature="} {
		if !strings.Contains(a, minted) {
			t.Errorf("the scenario shows no %q, so it proves nothing about it:\n%s", minted, a)
		}
	}
	if c, demoC, _ := run(8, true); c == a || demoC == demoA {
		t.Fatal("another seed gives the same answers")
	}
	if d, demoD, _ := run(0, false); d == a || demoD == demoA {
		t.Fatal("no seed gives the seeded answers")
	}
}
