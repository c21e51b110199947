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

// TestWebhookTimeoutFlag: -webhook-timeout is the time a receiver has to answer one attempt;
// a receiver that hangs fails the attempt with that budget in the delivery's last_error.
func TestWebhookTimeoutFlag(t *testing.T) {
	t.Parallel()
	hang := make(chan struct{})
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // answer only once the fake has given up
		case <-r.Context().Done():
		case <-hang:
		}
	}))
	t.Cleanup(receiver.Close)
	t.Cleanup(func() { close(hang) })

	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-allow-private-webhook-urls", "-webhook-timeout", "150ms", "-log-level", "error"},
			pw, io.Discard, func(string) string { return "" })
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
		t.Fatal(err)
	}
	control := func(path, body string, out any) {
		t.Helper()
		req, _ := http.NewRequest("POST", line.BaseURL+"/_fake"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+line.AdminToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("POST %s: %d %v", path, resp.StatusCode, err)
		}
	}
	var ep struct{ ID string }
	control("/workspaces/"+line.WorkspaceID+"/webhook-endpoints", `{"url":"`+receiver.URL+`/hook","events":["report.completed"]}`, &ep)
	var d struct {
		Status    string
		LastError *string `json:"last_error"`
	}
	control("/webhook-endpoints/"+ep.ID+"/test", "", &d)
	if d.LastError == nil || *d.LastError != "timeout: no answer within 150ms" {
		t.Fatalf("delivery %s, last_error %v; want the 150ms budget", d.Status, d.LastError)
	}
}
