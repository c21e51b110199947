package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// TestWebhookClockFlag: after POST /_fake/clock/advance of an hour on a manual clock, a receiver
// verifying with the Standard Webhooks reference library on the wall clock accepts the fake's
// delivery with -webhook-clock wall; without it (the default, fake) it answers 401, and the
// delivery's last_error says why, by how much, and names the flag.
func TestWebhookClockFlag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		flag    []string
		status  string
		wantErr []string // in last_error; none for a success
	}{
		{"wall", []string{"-webhook-clock", "wall"}, "succeeded", nil},
		{"default", nil, "retrying", []string{"HTTP 401; ", "ahead of the wall clock", "-webhook-clock wall"}},
		{"fake", []string{"-webhook-clock", "fake"}, "retrying", []string{"HTTP 401; ", "ahead of the wall clock", "-webhook-clock wall"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-addr", "127.0.0.1:0", "-allow-private-urls", "-clock", "manual", "-log-level", "error"}, tt.flag...)
			line := startProgram(t, args)
			control := func(path, body string, want int, out any) {
				t.Helper()
				req, _ := http.NewRequest("POST", line.BaseURL+"/_fake"+path, strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+line.AdminToken)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				if err := json.NewDecoder(resp.Body).Decode(out); err != nil || resp.StatusCode != want {
					t.Fatalf("POST %s: %d %v", path, resp.StatusCode, err)
				}
			}
			var ep struct{ ID, Secret string }
			var secretReady = make(chan struct{})
			receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				<-secretReady
				body, _ := io.ReadAll(r.Body)
				wh, err := standardwebhooks.NewWebhook(ep.Secret)
				if err == nil {
					err = wh.Verify(body, r.Header) // on the wall clock, with the library's 5 minutes
				}
				if err != nil {
					http.Error(w, err.Error(), http.StatusUnauthorized)
					return
				}
				w.WriteHeader(http.StatusNoContent)
			}))
			t.Cleanup(receiver.Close)
			control("/workspaces/"+line.WorkspaceID+"/webhook-endpoints", `{"url":"`+receiver.URL+`/hook","events":["report.completed"]}`, http.StatusCreated, &ep)
			close(secretReady)
			var moved map[string]any
			control("/clock/advance", `{"seconds":3600}`, http.StatusOK, &moved)
			var d struct {
				Status    string
				LastError *string `json:"last_error"`
			}
			control("/webhook-endpoints/"+ep.ID+"/test", "", http.StatusCreated, &d)
			lastErr := ""
			if d.LastError != nil {
				lastErr = *d.LastError
			}
			if d.Status != tt.status || (tt.wantErr == nil) != (lastErr == "") {
				t.Fatalf("delivery %s, last_error %q; want %s", d.Status, lastErr, tt.status)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(lastErr, want) {
					t.Errorf("last_error %q does not say %q", lastErr, want)
				}
			}
			if tt.wantErr != nil {
				// The skew is the hour moved, less the wall time the program took since its start.
				m := regexp.MustCompile(`was (\S+) ahead`).FindStringSubmatch(lastErr)
				if m == nil {
					t.Fatalf("last_error %q names no skew", lastErr)
				}
				if skew, err := time.ParseDuration(m[1]); err != nil || skew > time.Hour || skew < 59*time.Minute {
					t.Errorf("skew %s (%v), want the hour the clock moved", m[1], err)
				}
			}
		})
	}
}

// TestWebhookClockFlagRefused: a -webhook-clock that is neither wall nor fake stops the program
// at its start with exit status 2 and a message naming the flag, before it prints its line.
func TestWebhookClockFlagRefused(t *testing.T) {
	t.Parallel()
	var out, errs strings.Builder
	err := run(t.Context(), []string{"-addr", "127.0.0.1:0", "-webhook-clock", "sideways"}, &out, &errs, func(string) string { return "" })
	if err == nil || err.Error() != `-webhook-clock must be wall or fake, not "sideways"` || out.Len() != 0 {
		t.Fatalf("err = %v, printed %q", err, out.String())
	}
	cmd := exec.Command(os.Args[0], "-addr", "127.0.0.1:0", "-webhook-clock", "Wall")
	cmd.Env = append(os.Environ(), "FAKESERVER_TEST_AS_PROGRAM=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("exit: %v, want status 2; stderr: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "-webhook-clock") || stdout.Len() != 0 {
		t.Errorf("stderr %q does not name -webhook-clock, or stdout %q is not empty", stderr.String(), stdout.String())
	}
}
