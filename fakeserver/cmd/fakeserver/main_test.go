package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary act as the program itself, so the signal test runs a real
// process without a separate build.
func TestMain(m *testing.M) {
	if os.Getenv("FAKESERVER_TEST_AS_PROGRAM") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func getMe(t *testing.T, line startLine) map[string]any {
	t.Helper()
	req, _ := http.NewRequest("GET", line.BaseURL+"/api/rest/v1/me", nil)
	req.Header.Set("Authorization", "Bearer "+line.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var me map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&me); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /me: %d %v", resp.StatusCode, err)
	}
	return me
}

func TestProgramPrintsOneLineAndStopsOnSIGTERM(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-addr", "127.0.0.1:0", "-clock", "manual", "-start", "2026-02-03T04:05:06Z")
	cmd.Env = append(os.Environ(), "FAKESERVER_TEST_AS_PROGRAM=1", "FAKESERVER_ADMIN_TOKEN=from-env")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(stdout)
	first, err := rd.ReadString('\n')
	if err != nil {
		t.Fatalf("no line: %v; stderr: %s", err, stderr.String())
	}
	var line startLine
	dec := json.NewDecoder(strings.NewReader(first))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&line); err != nil {
		t.Fatalf("line %q: %v", first, err)
	}
	if !strings.HasPrefix(line.BaseURL, "http://127.0.0.1:") || line.AdminToken != "from-env" ||
		len(line.WorkspaceID) != 36 || !strings.HasPrefix(line.APIKey, "podqa_api_") {
		t.Fatalf("start line %+v", line)
	}
	me := getMe(t, line)
	if ws := me["workspace"].(map[string]any); ws["name"] != "Demo" || ws["id"] != line.WorkspaceID {
		t.Fatalf("me: %v", me)
	}
	key := me["key"].(map[string]any)
	if key["created_at"] != "2026-02-03T04:05:06.000000+00:00" {
		t.Fatalf("manual clock start not used: %v", key)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(rd)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v; stderr: %s", err, stderr.String())
	}
	if len(rest) != 0 {
		t.Fatalf("more than one line on stdout: %q", rest)
	}
	if !strings.Contains(stderr.String(), `msg="fakeserver listening"`) { // text, the default
		t.Fatalf("no structured log on stderr: %s", stderr.String())
	}
}

func TestFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad clock", []string{"-clock", "slow"}, "-clock must be real or manual"},
		{"start without manual", []string{"-start", "2026-01-01T00:00:00Z"}, "-start needs -clock manual"},
		{"bad start", []string{"-clock", "manual", "-start", "monday"}, "-start"},
		{"negative pace", []string{"-addr", "127.0.0.1:0", "-analysis-pace", "-1s"}, "pace"},
		{"bad level", []string{"-log-level", "loud"}, "-log-level"},
		{"bad log format", []string{"-log-format", "xml"}, "-log-format must be text or json"},
		{"zero webhook timeout", []string{"-webhook-timeout", "0s"}, "-webhook-timeout must be more than 0"},
		{"bad webhook timeout", []string{"-webhook-timeout", "soon"}, "-webhook-timeout"},
		{"stray argument", []string{"serve"}, "unexpected arguments"},
		{"unknown flag", []string{"-port", "1"}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, errs strings.Builder
			err := run(t.Context(), tt.args, &out, &errs, func(string) string { return "" })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if out.Len() != 0 {
				t.Fatalf("printed %q on a failed start", out.String())
			}
		})
	}
}

func TestRunInProcess(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-admin-token", "flag-wins"}, pw, io.Discard, func(name string) string {
			if name == "FAKESERVER_ADMIN_TOKEN" {
				return "env-loses"
			}
			return ""
		})
		pw.Close()
	}()
	first, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var line startLine
	if err := json.Unmarshal([]byte(first), &line); err != nil || line.AdminToken != "flag-wins" {
		t.Fatalf("line %q: %v", first, err)
	}
	getMe(t, line)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v", err)
		}
	case <-time.After(2 * time.Minute): // a watchdog that turns a hang into a failure, never a bound
		t.Fatal("run did not stop after cancel")
	}
}

// -env-file writes the start line's values as shell exports before the line is printed, quoted
// for any admin token, and removes the file on stop.
func TestEnvFile(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("the env file is checked by sourcing it with sh: %v", err)
	}
	path := filepath.Join(t.TempDir(), "podqa.env")
	// Registered first, so run after the program has stopped.
	t.Cleanup(func() {
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("the env file outlived the fake: %v", err)
		}
	})
	token := `it's "odd" $HOME`
	line := startProgram(t, []string{"-addr", "127.0.0.1:0", "-admin-token", token, "-env-file", path})
	out, err := exec.Command(sh, "-c", `. "$1" && printf '%s\n' "$PODQA_BASE_URL" "$PODQA_API_KEY" "$PODQA_ADMIN_TOKEN" "$PODQA_WORKSPACE_ID"`, "sh", path).Output()
	if err != nil {
		t.Fatalf("sourcing the env file: %v", err)
	}
	want := strings.Join([]string{line.BaseURL, line.APIKey, token, line.WorkspaceID}, "\n") + "\n"
	if string(out) != want {
		t.Fatalf("sourced:\n%s\nwant:\n%s", out, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("env file mode: %v %v", fi, err)
	}
}
