package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestStopWhileFixturesLoad is D18's last part: SIGTERM (the run's context ending) stops the
// program while its fixtures are still loading. The fixtures file is a pipe nobody writes, so
// loading cannot finish before the stop.
func TestStopWhileFixturesLoad(t *testing.T) {
	t.Parallel()
	pipe := filepath.Join(t.TempDir(), "fixtures.json")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatalf("a named pipe: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out strings.Builder
	err := run(ctx, []string{"-addr", "127.0.0.1:0", "-fixtures", pipe}, &out, io.Discard, func(string) string { return "" })
	if err != nil || out.Len() != 0 {
		t.Fatalf("err = %v, out %q: want a quiet stop", err, out.String())
	}
	// Let the loader, still waiting on the pipe, read an empty document and end.
	w, err := os.OpenFile(pipe, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
}
