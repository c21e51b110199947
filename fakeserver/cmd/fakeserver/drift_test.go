package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver"
)

// liveWorkspace is a fake playing the live service, with finished reports.
func liveWorkspace(t *testing.T) (*fakeserver.Server, fakeserver.DemoWorkspace) {
	t.Helper()
	srv, seed := fakeserver.NewTest(t)
	if _, err := srv.SeedReports(seed.WorkspaceID, []fakeserver.SeededReport{{FileName: "a.wav"}, {FileName: "b.wav", Duration: time.Minute}}); err != nil {
		t.Fatal(err)
	}
	return srv, seed
}

func runOut(args ...string) (stdout, stderr string, err error) {
	var out, errs strings.Builder
	err = run(context.Background(), args, &out, &errs, func(string) string { return "" })
	return out.String(), errs.String(), err
}

// TestDriftSubcommand runs `fakeserver drift` against a fake: nothing differs, keyless and
// with a key, as a table and as JSON; the key is in no output.
func TestDriftSubcommand(t *testing.T) {
	t.Parallel()
	live, seed := liveWorkspace(t)
	stdout, stderr, err := runOut("drift", "-base-url", live.URL())
	if err != nil || !strings.Contains(stdout, "no differences") {
		t.Fatalf("keyless: %v\n%s%s", err, stdout, stderr)
	}
	stdout, stderr, err = runOut("drift", "-base-url", live.URL(), "-api-key", seed.APIKey, "-json")
	if err != nil {
		t.Fatalf("with a key: %v\n%s%s", err, stdout, stderr)
	}
	var rep struct {
		WithKey     bool  `json:"with_key"`
		Differences []any `json:"differences"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || !rep.WithKey || rep.Differences == nil || len(rep.Differences) != 0 {
		t.Fatalf("-json: %v %+v\n%s", err, rep, stdout)
	}
	if strings.Contains(stdout+stderr, seed.APIKey) {
		t.Fatal("the key was printed")
	}
}

// TestDriftAndImportExitStatus is the bad input of issue 42: an unknown flag or a missing
// -base-url is exit 2 with usage; a service that cannot be checked is exit 2 with the reason;
// a service that drifted is exit 1. The program is run as a process, for its real status.
func TestDriftAndImportExitStatus(t *testing.T) {
	t.Parallel()
	live, seed := liveWorkspace(t)
	dir := t.TempDir()
	// A service whose openapi.json no longer has GET /credits; the rest is the fake's.
	moved := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := live.Client().Get(live.URL() + r.URL.RequestURI())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if r.URL.Path == "/api/rest/v1/openapi.json" {
			var doc map[string]any
			_ = json.Unmarshal(body, &doc)
			delete(doc["paths"].(map[string]any), "/credits")
			body, _ = json.Marshal(doc)
		}
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		_, _ = w.Write(body)
	}))
	t.Cleanup(moved.Close)
	for _, tt := range []struct {
		name   string
		args   []string
		status int
		stderr string
	}{
		{"drift without -base-url", []string{"drift"}, 2, "Usage: fakeserver drift"},
		{"drift with an unknown flag", []string{"drift", "-base-url", live.URL(), "-bogus"}, 2, "Usage: fakeserver drift"},
		{"import without -base-url", []string{"import", "-api-key", seed.APIKey, "-o", filepath.Join(dir, "x.json")}, 2, "Usage: fakeserver import"},
		{"import with an unknown flag", []string{"import", "-nope"}, 2, "Usage: fakeserver import"},
		{"drift -h", []string{"drift", "-h"}, 0, "Exit status: 0 nothing differs"},
		{"the program's -h lists the subcommands", []string{"-h"}, 0, "import   write a fixtures file"},
		{"unreachable", []string{"drift", "-base-url", "http://127.0.0.1:1"}, 2, "could not be reached"},
		{"refused key", []string{"drift", "-base-url", live.URL(), "-api-key", "podqa_api_refused_refused_refused_0000"}, 2, "refused the API key"},
		{"import with a refused key", []string{"import", "-base-url", live.URL(), "-api-key", "podqa_api_refused_refused_refused_0000", "-o", filepath.Join(dir, "y.json")}, 2, "refused the API key"},
		{"a contract that is not there", []string{"drift", "-base-url", live.URL() + "/nowhere"}, 2, "404"},
		{"a service that drifted", []string{"drift", "-base-url", moved.URL}, 1, "breaking  rest     contract  GET /credits"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], tt.args...)
			cmd.Env = append(os.Environ(), "FAKESERVER_TEST_AS_PROGRAM=1")
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			status := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				status = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if status != tt.status || !strings.Contains(stderr.String()+stdout.String(), tt.stderr) {
				t.Fatalf("status %d, want %d; want %q in:\n%s%s", status, tt.status, tt.stderr, stdout.String(), stderr.String())
			}
			if strings.Contains(stdout.String()+stderr.String(), seed.APIKey) || strings.Contains(stdout.String()+stderr.String(), "podqa_api_refused") {
				t.Fatal("a key was printed")
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "y.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed import left its file: %v", err)
	}
}
