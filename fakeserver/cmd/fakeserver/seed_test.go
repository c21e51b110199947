package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// startInProcess runs the program in process with args and returns its JSON line, raw and
// decoded; the program stops when the test ends.
func startInProcess(t *testing.T, args ...string) (string, startLine) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), pw, io.Discard, func(string) string { return "" })
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	first, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no JSON line: %v", err)
	}
	var line startLine
	if err := json.Unmarshal([]byte(first), &line); err != nil {
		t.Fatalf("line %q: %v", first, err)
	}
	return first, line
}

func TestSeedFlagRepeatsTheStart(t *testing.T) {
	t.Parallel()
	args := []string{"-seed", "42", "-clock", "manual", "-start", "2026-02-03T04:05:06Z"}
	_, a := startInProcess(t, args...)
	_, b := startInProcess(t, args...)
	_, c := startInProcess(t, "-seed", "43", "-clock", "manual", "-start", "2026-02-03T04:05:06Z")
	if a.AdminToken != b.AdminToken || a.WorkspaceID != b.WorkspaceID || a.APIKey != b.APIKey {
		t.Fatalf("same seed, different start: %+v / %+v", a, b)
	}
	if c.WorkspaceID == a.WorkspaceID || c.APIKey == a.APIKey || c.AdminToken == a.AdminToken {
		t.Fatalf("another seed, same start: %+v / %+v", a, c)
	}
	getMe(t, a)

	// The environment stands in for the flag (service containers take no arguments).
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-clock", "manual", "-start", "2026-02-03T04:05:06Z"}, pw, io.Discard,
			func(name string) string { return map[string]string{"FAKESERVER_SEED": "42"}[name] })
		pw.Close()
	}()
	first, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var fromEnv startLine
	if err := json.Unmarshal([]byte(first), &fromEnv); err != nil || fromEnv.APIKey != a.APIKey {
		t.Fatalf("FAKESERVER_SEED=42 start %q, want the key of -seed 42 %q (%v)", first, a.APIKey, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestSeedAndJournalFlagErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"seed not a number", []string{"-seed", "abc"}, "-seed must be an integer"},
		{"negative seed", []string{"-seed", "-1"}, "-seed must be an integer"},
		{"seed too big", []string{"-seed", "18446744073709551616"}, "-seed must be an integer"},
		{"negative journal", []string{"-journal-size", "-1"}, "-journal-size must be from 0 to 100000"},
		{"journal past its maximum (D15)", []string{"-journal-size", "100001"}, "-journal-size must be from 0 to 100000"},
		{"journal of 2^63-1 entries (D15)", []string{"-journal-size", "9223372036854775807"}, "-journal-size must be from 0 to 100000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			err := run(t.Context(), append([]string{"-addr", "127.0.0.1:0"}, tt.args...), &out, io.Discard, func(string) string { return "" })
			if err == nil || !strings.Contains(err.Error(), tt.want) || out.Len() != 0 {
				t.Fatalf("err = %v, out %q, want %q", err, out.String(), tt.want)
			}
		})
	}
}

func TestFixturesFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, doc string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("good.json", `{"workspaces":[{"ref":"acme","type":"organisation","name":"Acme",
	  "api_keys":[{"ref":"ci","key":"podqa_api_ci0123456789abcdefghijklmn"}]}],
	  "feeds":[{"ref":"show","title":"Show","episodes":[{"title":"One","duration_s":2}]}]}`)
	raw, line := startInProcess(t, "-fixtures", good, "-seed", "5")
	if line.Fixtures == nil || line.Fixtures.Workspaces["acme"] == "" || line.Fixtures.APIKeys["ci"] == "" ||
		!strings.HasPrefix(line.Fixtures.Feeds["show"].FeedURL, line.BaseURL+"/_feeds/") || !strings.Contains(raw, `"fixtures":{"workspaces":{"acme":`) {
		t.Fatalf("JSON line %s", raw)
	}
	getMe(t, startLine{BaseURL: line.BaseURL, APIKey: "podqa_api_ci0123456789abcdefghijklmn"})
	if _, plain := startInProcess(t); plain.Fixtures != nil {
		t.Fatal("a JSON line without -fixtures has a fixtures object")
	}

	tests := []struct {
		name, path, want string
	}{
		{"missing file", filepath.Join(dir, "nope.json"), "fixtures: open"},
		{"bad key", write("bad.json", `{"workspaces":[{"ref":"a","type":"personal","name":"A","api_keys":[{"ref":"k"},{"ref":"l","key":"secret"}]}]}`),
			"fixtures: workspaces[0].api_keys[1].key: must start with podqa_api_"},
		{"unknown standard", write("std.json", `{"workspaces":[{"ref":"a","type":"personal","name":"A","standards":[{"ref":"s","name":"S","based_on":"Loud"}]}]}`),
			"fixtures: workspaces[0].standards[0]:"},
		{"impossible episode", write("episode.json", `{"feeds":[{"ref":"f","title":"F","episodes":[{"title":"Fine","duration_s":1},{"title":"Loud and low","duration_s":1,"loudness_lufs":-6,"true_peak_db":-20}]}]}`),
			`fixtures: feeds[0].episodes[1]: Episode 1 ("Loud and low"): `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			err := run(t.Context(), []string{"-addr", "127.0.0.1:0", "-fixtures", tt.path}, &out, io.Discard, func(string) string { return "" })
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") || out.Len() != 0 {
				t.Fatalf("err = %v, out %q, want %q", err, out.String(), tt.want)
			}
		})
	}
}

// TestBadFixturesExitTwo runs the program itself: a bad fixtures file prints one line on
// standard error and exits with status 2.
func TestBadFixturesExitTwo(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(path, []byte(`{"workspaces":[{"ref":"a","type":"personal","name":"A","colour":"red"}]}`), 0o600); err != nil {
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
	if stderr.String() != "fakeserver: fixtures: workspaces[0].colour: unknown field\n" || stdout.Len() != 0 {
		t.Fatalf("stderr %q stdout %q", stderr.String(), stdout.String())
	}
}
