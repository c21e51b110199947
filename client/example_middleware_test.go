package client_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"time"

	"github.com/podqa/podqa-go/client"
)

// Log each attempt the client makes, retries included, through slog: method, path, status,
// attempt and duration. (The handler here drops the time and prints the duration's presence
// only, so that the output is stable.)
func ExampleWithMiddleware() {
	// A stand-in for the service that is at capacity once, then answers.
	var calls atomic.Int32
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"workspace":{"id":"1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d","name":"Demo","type":"personal"},"key":{"id":"7e6d5c4b-3a29-4180-b7f6-e5d4c3b2a190","description":"","masked_key":"podqa_api_3kF9…","created_at":"2026-01-05T09:00:00.000000+00:00","last_used_at":null}}`)
	}))
	defer svc.Close()

	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: stableForExample}))
	logAttempts := func(req *http.Request, next client.MiddlewareNext) (*http.Response, error) {
		start := time.Now()
		resp, err := next(req)
		attrs := []slog.Attr{
			slog.String("method", req.Method),
			slog.String("path", req.URL.Path), // never the query: an upload URL's signature is there
			slog.Int("attempt", client.Attempt(req.Context())),
			slog.Duration("duration", time.Since(start)),
		}
		if err != nil {
			log.LogAttrs(req.Context(), slog.LevelWarn, "podqa request", append(attrs, slog.String("error", err.Error()))...)
			return nil, err
		}
		log.LogAttrs(req.Context(), slog.LevelInfo, "podqa request", append(attrs, slog.Int("status", resp.StatusCode))...)
		return resp, nil
	}

	c, err := client.New("podqa_api_example", client.WithBaseURL(svc.URL), client.WithMiddleware(logAttempts))
	if err != nil {
		fmt.Println(err)
		return
	}
	me, err := c.Me(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(me.Workspace.Name)
	// Output:
	// level=INFO msg="podqa request" method=GET path=/api/rest/v1/me attempt=1 duration=measured status=503
	// level=INFO msg="podqa request" method=GET path=/api/rest/v1/me attempt=2 duration=measured status=200
	// Demo
}

// stableForExample drops the time and replaces a measured duration by the word "measured".
func stableForExample(_ []string, a slog.Attr) slog.Attr {
	switch a.Key {
	case slog.TimeKey:
		return slog.Attr{}
	case "duration":
		if a.Value.Duration() > 0 {
			return slog.String("duration", "measured")
		}
	}
	return a
}
