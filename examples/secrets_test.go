package examples_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
)

// lockedBuffer is the fake's log, written by its goroutines and read by the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// secret is a value no log line may hold, and what it is.
type secret struct{ what, value string }

// secretShapes catch the secrets a run makes that the test cannot collect (the webhook secret
// the receiver example subscribes itself with, the signatures of its deliveries): an API key
// past the six characters the service shows, a whsec_ secret, a webhook signature.
var secretShapes = []struct {
	what string
	re   *regexp.Regexp
}{
	{"an API key", regexp.MustCompile(`podqa_api_[A-Za-z0-9_-]{7,}`)},
	{"a webhook secret", regexp.MustCompile(`whsec_[A-Za-z0-9+/]{8,}`)},
	{"a webhook signature", regexp.MustCompile(`v1,[A-Za-z0-9+/]{40,}`)},
}

// leaks returns the secrets that appear in log: those collected, and any of secretShapes.
func leaks(log []byte, secrets []secret) []secret {
	var out []secret
	for _, s := range secrets {
		if s.value != "" && bytes.Contains(log, []byte(s.value)) {
			out = append(out, s)
		}
	}
	for _, shape := range secretShapes {
		if m := shape.re.Find(log); m != nil {
			out = append(out, secret{shape.what + " (by its shape)", string(m)})
		}
	}
	return out
}

// TestNoSecretInTheLogs runs the example programs (those that need no Redis or PostgreSQL)
// against a fake logging everything at DEBUG, exercises every kind of secret the fake mints or
// checks (API keys good, disabled and unknown, the admin token, a session token, webhook secrets
// and signatures, an upload URL's signature), collects them, and looks for each in the log.
func TestNoSecretInTheLogs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example programs: -short skips it, the full suite (CI) runs it")
	}
	bin := buildExamples(t)
	logs := &lockedBuffer{}
	srv, err := fakeserver.New(fakeserver.WithAnalysisPace(0), fakeserver.WithPrivateURLs(true),
		fakeserver.WithLogger(slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	seed, err := srv.SeedDemo()
	if err != nil {
		t.Fatal(err)
	}
	secrets := []secret{{"the demo API key", seed.APIKey}, {"the admin token", srv.AdminToken()}}
	ctx := context.Background()

	// A receiver that keeps each delivery's signature.
	var sigMu sync.Mutex
	var signatures []string
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		sigMu.Lock()
		signatures = append(signatures, r.Header.Get("webhook-signature"))
		sigMu.Unlock()
	}))
	t.Cleanup(receiver.Close)
	ep, err := srv.CreateWebhookEndpoint(ctx, seed.WorkspaceID, fakeserver.WebhookEndpointSpec{URL: receiver.URL + "/settings", Events: []string{"report.completed", "report.failed"}})
	if err != nil {
		t.Fatal(err)
	}
	secrets = append(secrets, secret{"a Settings endpoint's secret", ep.Secret})
	c, err := client.New(seed.APIKey, client.WithBaseURL(srv.URL()))
	if err != nil {
		t.Fatal(err)
	}
	sub, err := c.SubscribeWebhook(ctx, client.WebhookSubscribeParams{URL: receiver.URL + "/rest", Events: []client.WebhookEvent{"report.completed"}})
	if err != nil {
		t.Fatal(err)
	}
	secrets = append(secrets, secret{"a REST subscription's secret", sub.Secret})

	// A session, used; a disabled key and an unknown one, refused.
	session, err := srv.CreateSession(seed.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	disabled, err := srv.CreateAPIKey(seed.WorkspaceID, "disabled")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.SetAPIKeyDisabled(disabled.ID, true); err != nil {
		t.Fatal(err)
	}
	unknown := "podqa_api_" + strings.Repeat("Q7", 16)
	secrets = append(secrets, secret{"a session token", session}, secret{"a disabled key", disabled.Key}, secret{"an unknown key", unknown})
	for _, h := range []http.Header{
		{"Cookie": {"sessionid=" + session}},
		{"Authorization": {"Bearer " + disabled.Key}},
		{"Authorization": {"Bearer " + unknown}},
		{"Authorization": {"Bearer " + srv.AdminToken()}}, // the admin token is no API key
	} {
		req, _ := http.NewRequest("GET", srv.URL()+"/api/rest/v1/me", nil)
		req.Header = h
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	// The control API with a wrong admin token, and with the right one.
	for _, token := range []string{"not-" + srv.AdminToken(), srv.AdminToken()} {
		req, _ := http.NewRequest("GET", srv.URL()+"/_fake/clock", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}

	// An upload by hand, to learn its URL's signature; the upload example makes more.
	wav, err := fakeserver.SynthesizeWAV(fakeserver.AudioSpec{Duration: 4 * time.Second, SampleRate: 8000, Channels: 1})
	if err != nil {
		t.Fatal(err)
	}
	up, err := c.ReserveUpload(ctx, "secret.wav", "audio/wav", 4*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(up.UploadURL)
	if err != nil || u.Query().Get("signature") == "" {
		t.Fatalf("upload URL %q: %v", up.UploadURL, err)
	}
	secrets = append(secrets, secret{"an upload URL's signature", u.Query().Get("signature")})
	put, _ := http.NewRequest("PUT", up.UploadURL, bytes.NewReader(wav))
	put.Header.Set("Content-Type", "audio/wav")
	if resp, err := http.DefaultClient.Do(put); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if _, err := c.CreateReportFromUpload(ctx, up.ReportID, "secret.wav", 4*time.Second); err != nil {
		t.Fatal(err)
	}

	// The example programs.
	quiet := -30.0
	feed, err := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "Example Show", Episodes: []fakeserver.HostedEpisode{
		{Title: "Too quiet", Duration: 10 * time.Second, LoudnessLUFS: &quiet},
		{Title: "Pilot", Duration: 10 * time.Second},
	}})
	if err != nil {
		t.Fatal(err)
	}
	take, err := fakeserver.SynthesizeWAV(fakeserver.AudioSpec{Duration: 12 * time.Second, SampleRate: 44100, Channels: 2, Title: "Local take"})
	if err != nil {
		t.Fatal(err)
	}
	wavPath := filepath.Join(t.TempDir(), "take.wav")
	if err := os.WriteFile(wavPath, take, 0o600); err != nil {
		t.Fatal(err)
	}
	runExample(t, bin, srv.URL(), seed.APIKey, "quickstart", nil, 0, nil)
	runExample(t, bin, srv.URL(), seed.APIKey, "report-from-feed", []string{"-episode", "1", feed.FeedURL}, 0, []string{"verdict: PASSED"})
	runExample(t, bin, srv.URL(), seed.APIKey, "upload", []string{wavPath}, 0, []string{"PASSED"})
	runExample(t, bin, srv.URL(), seed.APIKey, "testing", []string{feed.FeedURL}, 1, nil)
	runExample(t, bin, srv.URL(), seed.APIKey, "graphql", nil, 0, []string{"newest complete reports:"})
	runExample(t, bin, srv.URL(), seed.APIKey, "poller", []string{"-once", "-state", filepath.Join(t.TempDir(), "state.json"), "-since", "2020-01-01T00:00:00Z"}, 0, []string{"delivered "})
	testWebhookReceiver(t, bin, srv.URL(), seed.APIKey, feed.FeedURL)

	sigMu.Lock()
	for _, s := range signatures {
		secrets = append(secrets, secret{"a webhook signature", strings.TrimPrefix(s, "v1,")})
	}
	delivered := len(signatures) // read under the lock: a late retry may still be arriving
	sigMu.Unlock()
	if delivered == 0 {
		t.Fatal("no delivery reached the receiver: the signatures went unchecked")
	}
	log := logs.Bytes()
	for _, want := range []string{`"kind":"request"`, `"kind":"report.finished"`, `"kind":"request.refused"`, `"kind":"webhook.delivered"`} {
		if !bytes.Contains(log, []byte(want)) {
			t.Fatalf("the log lacks %s: the run did not exercise what it should", want)
		}
	}
	t.Logf("%d secrets looked for in %d bytes of log (%d lines)", len(secrets), len(log), bytes.Count(log, []byte("\n")))
	for _, s := range leaks(log, secrets) {
		t.Errorf("the log holds %s", s.what)
	}

	// The check itself: each planted secret is found, collected or only by its shape.
	plants := []struct {
		what, value string
	}{
		{"a session token", session},
		{"a key the test never saw", "podqa_api_" + strings.Repeat("x9", 16)},
		{"a secret the test never saw", "whsec_" + strings.Repeat("QUJD", 8)},
		{"a signature the test never saw", "v1," + strings.Repeat("K2", 22)},
	}
	for _, p := range plants {
		var line bytes.Buffer
		slog.New(slog.NewJSONHandler(&line, nil)).Info("oops", "value", p.value)
		if got := leaks(append(bytes.Clone(log), line.Bytes()...), secrets); len(got) != 1 || !strings.Contains(p.value, got[0].value) {
			t.Errorf("planted %s: caught %v", p.what, got)
		}
	}
}
