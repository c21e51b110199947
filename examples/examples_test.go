// Package examples_test builds every example program and runs it against a fake of the service,
// so that an example that no longer compiles or no longer works fails CI.
package examples_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/internal/testkit/servicetest"
)

// programs are the example folders that hold a main package.
var programs = []string{"quickstart", "report-from-feed", "upload", "testing", "graphql", "webhook-receiver", "poller"}

// buildExamples compiles every example into dir with the go command that runs the tests.
func buildExamples(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the examples are built with the go command: %v", err)
	}
	dir := t.TempDir()
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, p := range programs {
		args = append(args, "./"+p)
	}
	cmd := exec.Command(goBin, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// The receiver's shared stores are built in only with -tags stores.
	cmd = exec.Command(goBin, "build", "-tags", "stores", "-o", filepath.Join(dir, storesReceiver), "./webhook-receiver")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags stores: %v\n%s", err, out)
	}
	return dir
}

// storesReceiver is the name of the webhook receiver built with -tags stores.
const storesReceiver = "webhook-receiver-stores"

// TestExamplesAgainstTheFake runs each example program against one fake on its real clock (the
// programs wait for reports as they would against the service; the fake analyses at once).
func TestExamplesAgainstTheFake(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every example program on the real clock: -short skips it, the full suite (CI) runs it")
	}
	bin := buildExamples(t)
	began := time.Now().Add(-time.Second)
	srv, err := fakeserver.New(fakeserver.WithAnalysisPace(0), fakeserver.WithPrivateURLs(true))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	seed, err := srv.SeedDemo()
	if err != nil {
		t.Fatal(err)
	}
	quiet := -30.0
	feed, err := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "Example Show", Episodes: []fakeserver.HostedEpisode{
		{Title: "Too quiet", Duration: 20 * time.Second, LoudnessLUFS: &quiet},
		{Title: "Pilot", Duration: 20 * time.Second},
	}})
	if err != nil {
		t.Fatal(err)
	}
	wav, err := fakeserver.SynthesizeWAV(fakeserver.AudioSpec{Duration: 12 * time.Second, SampleRate: 44100, Channels: 2, Title: "Local take"})
	if err != nil {
		t.Fatal(err)
	}
	wavPath := filepath.Join(t.TempDir(), "take.wav")
	if err := os.WriteFile(wavPath, wav, 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		program  string
		args     []string
		exitCode int
		want     []string
		// wantStderr: what stderr must contain, for the programs that fail on purpose.
		wantStderr []string
	}{
		{name: "quickstart", program: "quickstart", want: []string{"workspace: Demo (personal, " + seed.WorkspaceID + ")", "available (plan 12000, "}},
		{name: "report-from-feed passing", program: "report-from-feed", args: []string{"-episode", "1", feed.FeedURL}, want: []string{"Pilot: COMPLETE", "verdict: PASSED"}},
		{name: "report-from-feed failing", program: "report-from-feed", args: []string{feed.FeedURL}, want: []string{"Too quiet: COMPLETE", "verdict: FAILED", "required Integrated loudness (loudness_lufs): "}},
		{name: "upload", program: "upload", args: []string{wavPath}, want: []string{"for 12s of audio (measured), estimated credits 100", "Local take: PASSED, credits charged 100", "loudness_lufs"}},
		{name: "upload -sample", program: "upload", args: []string{"-sample", feed.FeedURL, "-episode", "1", filepath.Join(t.TempDir(), "episode.mp3")}, want: []string{
			`saved "Pilot" to `, "for 20s of audio (measured), estimated credits 100", ": PASSED, credits charged 100",
		}},
		{name: "upload -sample past the oldest", program: "upload", args: []string{"-sample", feed.FeedURL, "-episode", "2", filepath.Join(t.TempDir(), "none.mp3")}, exitCode: 1},
		{name: "testing", program: "testing", args: []string{feed.FeedURL}, exitCode: 1, want: []string{"Too quiet: FAILED", "loudness_lufs: "}},
		// A de-duplication store that cannot be reached stops the receiver at start (nothing
		// listens on loopback port 1), instead of answering every delivery 500.
		{name: "webhook-receiver, redis unreachable", program: storesReceiver, args: []string{"-addr", "127.0.0.1:0", "-dedup-url", "redis://127.0.0.1:1/0"}, exitCode: 1,
			wantStderr: []string{"webhook-receiver: -dedup-url: ", "127.0.0.1:1"}},
		{name: "webhook-receiver, postgres unreachable", program: storesReceiver, args: []string{"-addr", "127.0.0.1:0", "-dedup-url", "postgres://podqa@127.0.0.1:1/podqa?sslmode=disable&connect_timeout=5"}, exitCode: 1,
			wantStderr: []string{"webhook-receiver: webhookpg: creating table ", "127.0.0.1"}},
		{name: "webhook-receiver, not a store URL", program: storesReceiver, args: []string{"-addr", "127.0.0.1:0", "-dedup-url", "mysql://127.0.0.1/db"}, exitCode: 1,
			wantStderr: []string{`-dedup-url "mysql://127.0.0.1/db": want a redis://, rediss://, postgres:// or postgresql:// URL`}},
		// Built without the stores, the receiver refuses any -dedup-url and names the tag.
		{name: "webhook-receiver without the stores", program: "webhook-receiver", args: []string{"-addr", "127.0.0.1:0", "-dedup-url", "redis://127.0.0.1:6379/0"}, exitCode: 1,
			wantStderr: []string{"webhook-receiver: -dedup-url needs the shared stores", "-tags stores"}},
	}
	// The programs that create reports run side by side; the readers run once they are done.
	t.Run("writers", func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				_, stderr := runExample(t, bin, srv.URL(), seed.APIKey, tt.program, tt.args, tt.exitCode, tt.want)
				for _, w := range tt.wantStderr {
					if !strings.Contains(stderr, w) {
						t.Errorf("%s: stderr lacks %q:\n%s", tt.program, w, stderr)
					}
				}
			})
		}
	})
	t.Run("webhook-receiver", func(t *testing.T) {
		testWebhookReceiver(t, bin, srv.URL(), seed.APIKey, feed.FeedURL)
	})
	// The poller keeps its watermark in a file: the second run finds nothing new.
	state := filepath.Join(t.TempDir(), "state.json")
	since := client.FormatTime(began)
	runExample(t, bin, srv.URL(), seed.APIKey, "poller", []string{"-once", "-state", state, "-since", since}, 0, []string{
		" PASSED Pilot (updated ", " FAILED Too quiet (updated ", " PASSED Local take (updated ", "delivered 6, watermark ",
	})
	runExample(t, bin, srv.URL(), seed.APIKey, "poller", []string{"-once", "-state", state}, 0, []string{"delivered 0, watermark "})
	out, _ := runExample(t, bin, srv.URL(), seed.APIKey, "graphql", nil, 0, []string{
		"belongs to a UserType", "Example Show (", "newest complete reports:", "checks passed", "loudness_lufs",
		"explicit_flag", "metadata",
	})
	// Every check is printed, not only the numeric ones: "N of M checks passed", then M lines.
	var passes, total int
	var lines []string
	for line := range strings.Lines(out) {
		if _, after, ok := strings.Cut(line, ": "); ok && strings.HasSuffix(line, " checks passed\n") {
			_, _ = fmt.Sscanf(after, "%d of %d checks passed", &passes, &total)
			lines = nil
			continue
		}
		if total > 0 && strings.HasPrefix(line, "  ") {
			lines = append(lines, line)
		}
	}
	if total == 0 || len(lines) != total {
		t.Errorf("graphql printed %d checks of %d:\n%s", len(lines), total, out)
	}
	// Last, since it completes one more report: two receivers sharing a store.
	t.Run("webhook-receiver two instances on redis", func(t *testing.T) {
		testTwoReceivers(t, bin, srv, seed, feed.FeedURL, servicetest.RedisURL(t))
	})
	t.Run("webhook-receiver two instances on postgres", func(t *testing.T) {
		// A schema of its own, so that the default table of an earlier run is not shared.
		schema := servicetest.Name("podqa_example_")
		if _, err := servicetest.Postgres(t, pgxpool.New).Exec(context.Background(), `CREATE SCHEMA `+schema); err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(servicetest.PostgresURL(t))
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		testTwoReceivers(t, bin, srv, seed, feed.FeedURL, u.String())
	})
}

// runExample runs one example program against the fake, checks its exit status and that its
// standard output contains each of want, and returns both outputs.
func runExample(t *testing.T, bin, baseURL, apiKey, program string, args []string, exitCode int, want []string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a watchdog: only a hang reaches it
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, program), args...)
	cmd.Env = append(os.Environ(), "PODQA_API_KEY="+apiKey, "PODQA_BASE_URL="+baseURL)
	var outBuf, errBuf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outBuf, &errBuf
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != exitCode {
		t.Fatalf("%s: exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", program, code, exitCode, outBuf.String(), errBuf.String())
	}
	for _, w := range want {
		if !strings.Contains(outBuf.String(), w) {
			t.Errorf("%s: stdout lacks %q:\n%s\nstderr:\n%s", program, w, outBuf.String(), errBuf.String())
		}
	}
	return outBuf.String(), errBuf.String()
}

// testWebhookReceiver starts the receiver, which subscribes itself, has the fake finish a report
// and waits for the receiver to print the verified event; on SIGINT it must unsubscribe and
// exit cleanly.
func testWebhookReceiver(t *testing.T, bin, baseURL, apiKey, feedURL string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a watchdog: only a hang reaches it
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "webhook-receiver"), "-addr", "127.0.0.1:0", "-subscribe")
	cmd.Env = append(os.Environ(), "PODQA_API_KEY="+apiKey, "PODQA_BASE_URL="+baseURL)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var seen []string
	waitFor := func(prefix string) string {
		t.Helper()
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("the receiver stopped before printing %q; it printed %q\nstderr:\n%s", prefix, seen, stderr.String())
				}
				seen = append(seen, line)
				if strings.HasPrefix(line, prefix) {
					return line
				}
			case <-ctx.Done():
				t.Fatalf("no %q within the time limit; printed %q\nstderr:\n%s", prefix, seen, stderr.String())
			}
		}
	}
	waitFor("subscribed ")
	waitFor("listening on ")

	c, err := client.New(apiKey, client.WithBaseURL(baseURL))
	if err != nil {
		t.Fatal(err)
	}
	created, err := c.CreateReportFromFeed(ctx, feedURL, client.CreateReportParams{EpisodeIndex: 1})
	if err != nil {
		t.Fatal(err)
	}
	line := waitFor("report.completed: report " + created.ID)
	if !strings.HasSuffix(line, "complete, passed") {
		t.Errorf("event line %q, want the report complete and passed", line)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	waitFor("unsubscribed endpoint ")
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("receiver exit: %v\nstderr:\n%s", err, stderr.String())
	}
}

// testTwoReceivers runs two instances of the receiver on one shared de-duplication store
// (-dedup-url) behind a front that passes each delivery to both at the same moment, as a
// retrying proxy or an at-least-once sender could: the event must be printed by exactly one.
func testTwoReceivers(t *testing.T, bin string, srv *fakeserver.Server, seed fakeserver.DemoWorkspace, feedURL, dedupURL string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a watchdog: only a hang reaches it
	defer cancel()
	var (
		mu      sync.Mutex
		targets []string
		answers [][2]int
	)
	answered := make(chan struct{}, 16)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		to := slices.Clone(targets)
		mu.Unlock()
		var codes [2]int
		var wg sync.WaitGroup
		for i, u := range to {
			wg.Go(func() {
				req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, u, bytes.NewReader(body))
				req.Header = r.Header.Clone()
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					codes[i] = -1
					return
				}
				resp.Body.Close()
				codes[i] = resp.StatusCode
			})
		}
		wg.Wait()
		mu.Lock()
		answers = append(answers, codes)
		mu.Unlock()
		status := http.StatusBadGateway
		if codes[0] == http.StatusOK || codes[1] == http.StatusOK {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		answered <- struct{}{}
	}))
	defer front.Close()
	ep, err := srv.CreateWebhookEndpoint(ctx, seed.WorkspaceID, fakeserver.WebhookEndpointSpec{URL: front.URL, Events: []string{"report.completed"}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.DeleteWebhookEndpoint(ep.ID) }()

	type instance struct {
		cmd    *exec.Cmd
		stderr bytes.Buffer
		lines  []string
		done   chan struct{}
		listen chan string
	}
	instances := make([]*instance, 2)
	for i := range instances {
		in := &instance{done: make(chan struct{}), listen: make(chan string, 1)}
		in.cmd = exec.CommandContext(ctx, filepath.Join(bin, storesReceiver), "-addr", "127.0.0.1:0", "-dedup-url", dedupURL)
		in.cmd.Env = append(os.Environ(), "PODQA_WEBHOOK_SECRET="+ep.Secret)
		in.cmd.Stderr = &in.stderr
		stdout, err := in.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := in.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			defer close(in.done)
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				line := sc.Text()
				if u, ok := strings.CutPrefix(line, "listening on "); ok {
					in.listen <- u
				}
				mu.Lock()
				in.lines = append(in.lines, line)
				mu.Unlock()
			}
		}()
		select {
		case u := <-in.listen:
			mu.Lock()
			targets = append(targets, u)
			mu.Unlock()
		case <-in.done:
			t.Fatalf("instance %d stopped: %s", i, in.stderr.String())
		case <-ctx.Done():
			t.Fatalf("instance %d never listened", i)
		}
		instances[i] = in
	}

	c, err := client.New(seed.APIKey, client.WithBaseURL(srv.URL()))
	if err != nil {
		t.Fatal(err)
	}
	created, err := c.CreateReportFromFeed(ctx, feedURL, client.CreateReportParams{EpisodeIndex: 1})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-answered:
	case <-ctx.Done():
		t.Fatal("no delivery reached the front")
	}
	for _, in := range instances {
		if err := in.cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		<-in.done
		if err := in.cmd.Wait(); err != nil {
			t.Fatalf("receiver exit: %v\n%s", err, in.stderr.String())
		}
	}
	printed := 0
	for _, in := range instances {
		for _, line := range in.lines {
			if strings.HasPrefix(line, "report.completed: report "+created.ID) {
				printed++
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if printed != 1 {
		t.Fatalf("the event was printed %d times by the two instances, want once; answers %v; output %q %q", printed, answers, instances[0].lines, instances[1].lines)
	}
	t.Logf("both instances got the delivery at once; answers %v; the event was printed once", answers)
}
