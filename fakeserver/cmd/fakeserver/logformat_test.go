package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
)

// lockedBuilder is a strings.Builder the program's logger and the test share.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestLogFormats: -log-format text writes key=value lines, json one object a line; at
// -log-level debug a request line gives its duration as a Go duration and in milliseconds.
func TestLogFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		format string
		check  func(t *testing.T, line string)
	}{
		{"text", func(t *testing.T, line string) {
			for _, want := range []string{"level=DEBUG", "msg=request", "kind=request", "method=GET", "path=/api/rest/v1/me", "status=200", "duration=", "duration_ms="} {
				if !strings.Contains(line, want) {
					t.Errorf("text line %q lacks %q", line, want)
				}
			}
		}},
		{"json", func(t *testing.T, line string) {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("json line %q: %v", line, err)
			}
			if _, ok := m["duration_ms"].(float64); !ok || m["duration"] == nil || m["status"] != float64(200) {
				t.Errorf("json line %v", m)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			pr, pw := io.Pipe()
			logs := &lockedBuilder{}
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-log-level", "debug", "-log-format", tt.format}, pw, logs, func(string) string { return "" })
				pw.Close()
			}()
			first, err := bufio.NewReader(pr).ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			var line startLine
			if err := json.Unmarshal([]byte(first), &line); err != nil {
				t.Fatal(err)
			}
			getMe(t, line)
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			var found string
			for _, l := range strings.Split(logs.String(), "\n") {
				if strings.Contains(l, "/api/rest/v1/me") {
					found = l
				}
			}
			if found == "" {
				t.Fatalf("no request line in %s", logs.String())
			}
			tt.check(t, found)
			if strings.Contains(logs.String(), line.APIKey) || strings.Contains(logs.String(), line.AdminToken) {
				t.Error("the log holds the key or the admin token")
			}
		})
	}
}
