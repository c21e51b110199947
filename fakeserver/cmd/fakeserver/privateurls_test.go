package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestPrivateURLsFlag: a feed server on loopback is refused by the program in its production
// mode and read once -allow-private-urls (or its former name) is given.
func TestPrivateURLsFlag(t *testing.T) {
	t.Parallel()
	feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "gone", http.StatusGone)
	}))
	t.Cleanup(feed.Close)
	tests := []struct {
		name string
		flag []string
		want string // in the 400's message
	}{
		{"production mode", nil, "cannot reach"},
		{"-allow-private-urls", []string{"-allow-private-urls"}, "HTTP 410"},
		{"former name", []string{"-allow-private-webhook-urls"}, "HTTP 410"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			line := startProgram(t, append([]string{"-addr", "127.0.0.1:0", "-log-level", "error"}, tt.flag...))
			req, _ := http.NewRequest(http.MethodPost, line.BaseURL+"/api/rest/v1/reports",
				strings.NewReader(`{"feed_url":"`+feed.URL+`/feed.rss"}`))
			req.Header.Set("Authorization", "Bearer "+line.APIKey)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), tt.want) {
				t.Fatalf("%d %s, want 400 saying %q", resp.StatusCode, body, tt.want)
			}
		})
	}
}

// startProgram runs the program in-process with args and returns its JSON line; the program
// stops when the test ends.
func startProgram(t *testing.T, args []string) startLine {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, pw, io.Discard, func(string) string { return "" })
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run returned %v", err)
		}
	})
	first, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var line startLine
	if err := json.Unmarshal([]byte(first), &line); err != nil {
		t.Fatalf("line %q: %v", first, err)
	}
	return line
}
