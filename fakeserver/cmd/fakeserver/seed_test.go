package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
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
		{"negative journal", []string{"-journal-size", "-1"}, "-journal-size must not be negative"},
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
