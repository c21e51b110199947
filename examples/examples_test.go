// Package examples_test builds every example program and runs it against a fake of the service,
// so that an example that no longer compiles or no longer works fails CI.
package examples_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/internal/audio"
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
	return dir
}

// TestExamplesAgainstTheFake runs each example program against one fake on its real clock (the
// programs wait for reports as they would against the service; the fake analyses at once).
func TestExamplesAgainstTheFake(t *testing.T) {
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
		{Title: "Too quiet", DurationS: 20, LoudnessLUFS: &quiet},
		{Title: "Pilot", DurationS: 20},
	}})
	if err != nil {
		t.Fatal(err)
	}
	wav, err := audio.Synthesize(audio.SynthSpec{DurationSeconds: 12, SampleRate: 44100, Channels: 2, Title: "Local take"})
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
	}{
		{name: "quickstart", program: "quickstart", want: []string{"workspace: Demo (personal, " + seed.WorkspaceID + ")", "available (plan 12000, "}},
		{name: "report-from-feed passing", program: "report-from-feed", args: []string{"-episode", "1", feed.FeedURL}, want: []string{"Pilot: COMPLETE", "verdict: PASSED"}},
		{name: "report-from-feed failing", program: "report-from-feed", args: []string{feed.FeedURL}, want: []string{"Too quiet: COMPLETE", "verdict: FAILED", "required Integrated loudness (loudness_lufs): "}},
		{name: "upload", program: "upload", args: []string{wavPath}, want: []string{"estimated credits 100", "Local take: PASSED, credits charged 100", "loudness_lufs"}},
		{name: "testing", program: "testing", args: []string{feed.FeedURL}, exitCode: 1, want: []string{"Too quiet: FAILED", "loudness_lufs: "}},
	}
	// The programs that create reports run side by side; the readers run once they are done.
	t.Run("writers", func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				runExample(t, bin, srv.URL(), seed.APIKey, tt.program, tt.args, tt.exitCode, tt.want)
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
		" PASSED Pilot (updated ", " FAILED Too quiet (updated ", " PASSED Local take (updated ", "delivered 5, watermark ",
	})
	runExample(t, bin, srv.URL(), seed.APIKey, "poller", []string{"-once", "-state", state}, 0, []string{"delivered 0, watermark "})
	runExample(t, bin, srv.URL(), seed.APIKey, "graphql", nil, 0, []string{
		"belongs to a UserType", "Example Show (", "newest complete reports:", "checks passed", "loudness_lufs",
	})
}

// runExample runs one example program against the fake and checks its exit status and output.
func runExample(t *testing.T, bin, baseURL, apiKey, program string, args []string, exitCode int, want []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, program), args...)
	cmd.Env = append(os.Environ(), "PODQA_API_KEY="+apiKey, "PODQA_BASE_URL="+baseURL)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != exitCode {
		t.Fatalf("%s: exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", program, code, exitCode, stdout.String(), stderr.String())
	}
	for _, w := range want {
		if !strings.Contains(stdout.String(), w) {
			t.Errorf("%s: stdout lacks %q:\n%s\nstderr:\n%s", program, w, stdout.String(), stderr.String())
		}
	}
}

// testWebhookReceiver starts the receiver, which subscribes itself, has the fake finish a report
// and waits for the receiver to print the verified event; on SIGINT it must unsubscribe and
// exit cleanly.
func testWebhookReceiver(t *testing.T, bin, baseURL, apiKey, feedURL string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
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
	created, err := c.CreateReportFromFeed(ctx, feedURL, client.CreateReportOptions{EpisodeIndex: 1})
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
