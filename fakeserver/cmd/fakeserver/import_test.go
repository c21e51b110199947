package main

import (
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestImportSubcommand imports a fake's workspace into a file, then starts the program with it
// as -fixtures: the imported reports are served under the fresh key printed on standard error,
// and the live key is in no output and no file.
func TestImportSubcommand(t *testing.T) {
	t.Parallel()
	live, seed := liveWorkspace(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "imported.json")
	stdout, stderr, err := runOut("import", "-base-url", live.URL(), "-api-key", seed.APIKey, "-o", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "0 series, 0 episodes and 2 reports of the personal workspace \"Demo\"") {
		t.Errorf("stderr:\n%s", stderr)
	}
	key := regexp.MustCompile(`not the live key\): (podqa_api_\w+)`).FindStringSubmatch(stderr)
	if key == nil {
		t.Fatalf("no fixture key on stderr:\n%s", stderr)
	}
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		b, _ := os.ReadFile(filepath.Join(dir, f.Name()))
		if strings.Contains(string(b), seed.APIKey) {
			t.Fatalf("the live key is in %s", f.Name())
		}
	}
	if len(files) != 1 || strings.Contains(stdout+stderr, seed.APIKey) {
		t.Fatalf("files %v; the live key printed: %t", files, strings.Contains(stdout+stderr, seed.APIKey))
	}
	_, line := startInProcess(t, "-fixtures", out)
	req, _ := http.NewRequest("GET", line.BaseURL+"/api/rest/v1/reports", nil)
	req.Header.Set("Authorization", "Bearer "+key[1])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /reports with the fixture key: %d", resp.StatusCode)
	}
}

// TestMalformedRecordedReportExitTwo is issue 42's bad input: a fixtures file with a malformed
// recorded report is exit 2 naming its JSON path, and nothing is served.
func TestMalformedRecordedReportExitTwo(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bad.json")
	doc := `{"workspaces":[{"ref":"a","type":"personal","name":"A","recorded_reports":[
	  {"status":"COMPLETE","created_at":"2026-01-05T09:00:00.000000+00:00","original_filename":"a.wav"},
	  {"status":"COMPLETE","created_at":"2026-01-05T09:00:00.000000+00:00","original_filename":"b.wav","stats":[1,2]}]}]}`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-addr", "127.0.0.1:0", "-fixtures", path)
	cmd.Env = append(os.Environ(), "FAKESERVER_TEST_AS_PROGRAM=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("exit: %v", err)
	}
	if stderr.String() != "fakeserver: fixtures: workspaces[0].recorded_reports[1].stats: must be an object\n" || stdout.Len() != 0 {
		t.Fatalf("stderr %q stdout %q", stderr.String(), stdout.String())
	}
}
