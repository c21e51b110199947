package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver"
)

// lockedWriter is the receiver's standard error, shared by its handler goroutines and the test.
type lockedWriter struct {
	mu sync.Mutex
	sb strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sb.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sb.String()
}

// TestReceiverSaysWhyItRefused: the receiver verifies on the wall clock; a fake whose manual
// clock moved an hour ahead stamps its deliveries with its own time, and the receiver's 401 is
// logged with the reason, the skew and the way out (it sets PODQA_WEBHOOK_SECRET, so it does
// not run in parallel). With -webhook-clock wall's Go twin the same delivery is accepted.
func TestReceiverSaysWhyItRefused(t *testing.T) {
	tests := []struct {
		name     string
		opts     []fakeserver.Option
		accepted bool
	}{
		{"fake clock", nil, false},
		{"wall clock", []fakeserver.Option{fakeserver.WithWebhookClock(fakeserver.WebhookClockWall)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, seed := fakeserver.NewTest(t, append([]fakeserver.Option{fakeserver.WithManualClock(time.Now())}, tt.opts...)...)
			ln, err := net.Listen("tcp", "127.0.0.1:0") // a free port for the receiver, known before it starts
			if err != nil {
				t.Fatal(err)
			}
			addr := ln.Addr().String()
			ln.Close()
			ep, err := srv.CreateWebhookEndpoint(t.Context(), seed.WorkspaceID, fakeserver.WebhookEndpointSpec{URL: "http://" + addr + "/", Events: []string{"report.completed"}})
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv("PODQA_WEBHOOK_SECRET", ep.Secret)

			ctx, cancel := context.WithCancel(t.Context())
			pr, pw := io.Pipe()
			errOut := &lockedWriter{}
			done := make(chan error, 1)
			go func() { done <- run(ctx, pw, errOut, addr, "", "", false); pw.Close() }()
			lines := bufio.NewScanner(pr)
			if !lines.Scan() || !strings.HasPrefix(lines.Text(), "listening on ") {
				t.Fatalf("first line %q", lines.Text())
			}
			printed := make(chan string, 1)
			go func() {
				var all []string
				for lines.Scan() {
					all = append(all, lines.Text())
				}
				printed <- strings.Join(all, "\n")
			}()

			if _, err := srv.Advance(time.Hour); err != nil {
				t.Fatal(err)
			}
			d, err := srv.SendTestEvent(t.Context(), ep.ID)
			if err != nil {
				t.Fatal(err)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			out := <-printed
			if tt.accepted {
				if d.Status != "succeeded" || !strings.Contains(out, "report.completed (test event)") || errOut.String() != "" {
					t.Fatalf("delivery %s; printed %q; refusals %q", d.Status, out, errOut.String())
				}
				return
			}
			want := regexp.MustCompile(`^webhook-receiver: delivery msg_\S+ answered 401: webhook: webhook-timestamp too new[^(]* \((\S+) ahead of this machine's clock: ` +
				`a podqa fake on a manual clock stamps its own time; start it with -webhook-clock wall, in Go WithWebhookClock\(fakeserver\.WebhookClockWall\)\)\n$`)
			m := want.FindStringSubmatch(errOut.String())
			if d.Status != "retrying" || m == nil {
				t.Fatalf("delivery %s; the receiver logged %q", d.Status, errOut.String())
			}
			if skew, err := time.ParseDuration(m[1]); err != nil || skew > time.Hour || skew < 59*time.Minute {
				t.Fatalf("skew %s (%v), want the hour the clock moved", m[1], err)
			}
		})
	}
}
