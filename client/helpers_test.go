package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testKey is a distinctive key, so that tests can look for it in logs and errors.
const testKey = "podqa_api_TESTKEY0123456789abcdef"

// fakeClock replaces the client's clock: sleeps are recorded and move the clock, never the
// wall clock.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	sleeps []time.Duration
	// onSleep, if set, runs before each sleep returns (for example to cancel a context).
	onSleep func(d time.Duration)
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)}
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	f.sleeps = append(f.sleeps, d)
	f.t = f.t.Add(d)
	hook := f.onSleep
	f.mu.Unlock()
	if hook != nil {
		hook(d)
	}
	return ctx.Err()
}

func (f *fakeClock) Sleeps() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.sleeps...)
}

// tinyPolicy retries quickly; with a fakeClock nothing is slept anyway.
var tinyPolicy = RetryPolicy{MaxAttempts: 4, MinBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond, MaxRetryAfter: time.Minute}

// newTestClient returns a client for baseURL with tinyPolicy and a fake clock; opts come after
// the defaults and can override them.
func newTestClient(t testing.TB, baseURL string, opts ...Option) (*Client, *fakeClock) {
	t.Helper()
	all := append([]Option{WithBaseURL(baseURL), WithRetryPolicy(tinyPolicy)}, opts...)
	c, err := New(testKey, all...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	clk := newFakeClock()
	c.clock = clk
	return c, clk
}

// reply is one scripted HTTP answer.
type reply struct {
	status int
	ct     string // Content-Type; "" for none
	body   string
	header map[string]string
	// hangUp closes the connection without answering (after reading the request).
	hangUp bool
}

func jsonReply(status int, body string) reply {
	return reply{status: status, ct: "application/json", body: body}
}

func apiErr(status int, code ErrorCode) reply {
	return jsonReply(status, `{"error":{"code":"`+string(code)+`","message":"scripted `+string(code)+`"}}`)
}

func plain503() reply {
	return reply{status: http.StatusServiceUnavailable, ct: "text/plain; charset=utf-8", body: "Service Unavailable"}
}

func rateLimited(retryAfter string) reply {
	r := apiErr(http.StatusTooManyRequests, CodeRateLimited)
	if retryAfter != "" {
		r.header = map[string]string{"Retry-After": retryAfter}
	}
	return r
}

// scripted serves the replies in order (the last one repeats) and records each request.
type scripted struct {
	mu       sync.Mutex
	replies  []reply
	requests []recorded
	n        atomic.Int32
}

type recorded struct {
	method, path, query, auth, userAgent, contentType string
	body                                              string
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body := make([]byte, 0, 256)
	if r.Body != nil {
		buf := make([]byte, 4096)
		for {
			n, err := r.Body.Read(buf)
			body = append(body, buf[:n]...)
			if err != nil {
				break
			}
		}
	}
	s.mu.Lock()
	s.requests = append(s.requests, recorded{
		method: r.Method, path: r.URL.Path, query: r.URL.RawQuery, auth: r.Header.Get("Authorization"),
		userAgent: r.Header.Get("User-Agent"), contentType: r.Header.Get("Content-Type"), body: string(body),
	})
	i := len(s.requests) - 1
	rep := s.replies[min(i, len(s.replies)-1)]
	s.mu.Unlock()
	s.n.Add(1)
	if rep.hangUp {
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic("no hijacker")
		}
		conn, _, err := hj.Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	if rep.ct != "" {
		w.Header().Set("Content-Type", rep.ct)
	}
	w.WriteHeader(rep.status)
	_, _ = w.Write([]byte(rep.body))
}

func (s *scripted) Requests() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.requests...)
}

// serve starts an httptest server with the scripted replies.
func serve(t testing.TB, replies ...reply) (*httptest.Server, *scripted) {
	t.Helper()
	s := &scripted{replies: replies}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv, s
}

const (
	reportID1   = "3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e"
	seriesID1   = "6f1d2c3b-4a5e-4f60-9b7a-8c9d0e1f2a3b"
	meJSON      = `{"workspace":{"id":"1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d","name":"Acme Audio","type":"organisation"},"key":{"id":"7e6d5c4b-3a29-4180-b7f6-e5d4c3b2a190","description":"CI","masked_key":"podqa_api_3kF9…","created_at":"2025-01-02T09:30:00.000000+00:00","last_used_at":null}}`
	createdJSON = `{"id":"` + reportID1 + `","status":"PENDING"}`
)

// countingTransport counts the requests that go through it.
type countingTransport struct {
	next http.RoundTripper
	n    *atomic.Int32
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}
