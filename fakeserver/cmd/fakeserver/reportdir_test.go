package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReportDirWrittenOnSIGTERM: the program started with -report-dir writes the run's report,
// JSON and HTML, when SIGTERM stops it.
func TestReportDirWrittenOnSIGTERM(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "reports")
	cmd := exec.Command(os.Args[0], "-addr", "127.0.0.1:0", "-clock", "manual", "-report-dir", dir)
	cmd.Env = append(os.Environ(), "FAKESERVER_TEST_AS_PROGRAM=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no line: %v; stderr: %s", err, stderr.String())
	}
	var line startLine
	if err := json.Unmarshal([]byte(first), &line); err != nil {
		t.Fatal(err)
	}
	getMe(t, line)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v; stderr: %s", err, stderr.String())
	}
	jsons, _ := filepath.Glob(filepath.Join(dir, "podqa-fake-report-*.json"))
	htmls, _ := filepath.Glob(filepath.Join(dir, "podqa-fake-report-*.html"))
	if len(jsons) != 1 || len(htmls) != 1 {
		t.Fatalf("report dir holds %q and %q; stderr: %s", jsons, htmls, stderr.String())
	}
	data, err := os.ReadFile(jsons[0])
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Reason  string `json:"reason"`
		Journal struct {
			Entries []struct{ Path string } `json:"entries"`
		} `json:"journal"`
		Workspaces []struct{ ID string } `json:"workspaces"`
	}
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	if run.Reason != "stop" || len(run.Workspaces) != 1 || run.Workspaces[0].ID != line.WorkspaceID ||
		len(run.Journal.Entries) != 1 || run.Journal.Entries[0].Path != "/api/rest/v1/me" {
		t.Errorf("the report says %+v", run)
	}
	if !strings.Contains(stderr.String(), "run report written") || !strings.Contains(stderr.String(), jsons[0]) {
		t.Errorf("no log line naming the report: %s", stderr.String())
	}
}

// TestReportDirUnwritableExitsTwo: a -report-dir where no file can be made stops the program at
// its start with exit status 2 and the path in the message, before it prints its line.
func TestReportDirUnwritableExitsTwo(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(file, "reports")
	cmd := exec.Command(os.Args[0], "-addr", "127.0.0.1:0", "-report-dir", bad)
	cmd.Env = append(os.Environ(), "FAKESERVER_TEST_AS_PROGRAM=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("exit: %v, want status 2; stderr: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), bad) || stdout.Len() != 0 {
		t.Errorf("stderr %q does not name %s, or stdout %q is not empty", stderr.String(), bad, stdout.String())
	}
}
