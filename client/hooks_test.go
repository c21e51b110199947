package client

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestWaitForOneValuePerRetry: the wait before a retry is one value whether checkRetry (its
// deadline rule, its log) or backoff (what prepareRetry sleeps) computes it, within the equal
// jitter bounds [d/2, d], and exactly a usable Retry-After.
func TestWaitForOneValuePerRetry(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, "http://127.0.0.1:1")
	minWait, maxWait := 500*time.Millisecond, 30*time.Second
	tests := []struct {
		name       string
		retryAfter string
		n          int
		lo, hi     time.Duration
	}{
		{"first retry", "", 0, 250 * time.Millisecond, 500 * time.Millisecond},
		{"third retry", "", 2, time.Second, 2 * time.Second},
		{"capped", "", 12, 15 * time.Second, 30 * time.Second},
		{"Retry-After", "7", 3, 7 * time.Second, 7 * time.Second},
		{"unusable Retry-After falls back", "-3", 1, 500 * time.Millisecond, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			distinct := map[time.Duration]bool{}
			for seed := range uint64(64) {
				st := &call{c: c, seed: seed * 0x9e3779b97f4a7c15}
				resp := &http.Response{StatusCode: http.StatusTooManyRequests, Header: http.Header{}}
				if tt.retryAfter != "" {
					resp.Header.Set("Retry-After", tt.retryAfter)
				}
				w := st.waitFor(minWait, maxWait, tt.n, resp)
				if w < tt.lo || w > tt.hi {
					t.Fatalf("seed %d: wait %v outside [%v, %v]", seed, w, tt.lo, tt.hi)
				}
				if got := st.backoff(minWait, maxWait, tt.n, resp); got != 0 {
					t.Fatalf("backoff returned %v to go-retryablehttp's wall-clock timer, want 0", got)
				}
				if st.wait != w {
					t.Fatalf("seed %d: backoff handed %v to prepareRetry, checkRetry's wait is %v", seed, st.wait, w)
				}
				distinct[w] = true
			}
			// The jitter varies between calls (a Retry-After does not).
			if want := tt.lo != tt.hi; (len(distinct) > 1) != want {
				t.Errorf("%d distinct waits over 64 calls; want varying: %t", len(distinct), want)
			}
		})
	}
}

// TestHooksLogAndSleepTheSameWait: through a whole call, what the client logs as the wait of a
// retry is what it sleeps on its clock; the give-up after the last attempt is logged by the
// error handler and the final error is the *APIError of the last answer.
func TestHooksLogAndSleepTheSameWait(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t, reply{status: 502, ct: "text/plain", body: "bad gateway"},
		reply{status: 502, ct: "text/plain", body: "bad gateway"},
		reply{status: 502, ct: "text/plain", body: "bad gateway"},
		reply{status: 502, ct: "text/plain", body: "bad gateway"})
	var logs bytes.Buffer
	c, clk := newTestClient(t, srv.URL, WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	_, err := c.Me(context.Background())
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != 502 || string(ae.Body) != "bad gateway" {
		t.Fatalf("err = %v, want the *APIError of the last 502 with its body", err)
	}
	var logged []time.Duration
	for _, m := range regexp.MustCompile(`msg="podqa: retrying".* wait=(\S+)`).FindAllStringSubmatch(logs.String(), -1) {
		d, err := time.ParseDuration(m[1])
		if err != nil {
			t.Fatal(err)
		}
		logged = append(logged, d)
	}
	slept := clk.Sleeps()
	if len(logged) != 3 || len(slept) != 3 {
		t.Fatalf("logged waits %v, slept %v: want 3 of each (4 attempts)", logged, slept)
	}
	for i := range logged {
		if logged[i] != slept[i] {
			t.Errorf("retry %d: logged wait %v, slept %v", i+1, logged[i], slept[i])
		}
	}
	if n := strings.Count(logs.String(), `why="attempts exhausted"`); n != 1 {
		t.Errorf("%d give-up lines for exhausted attempts, want 1:\n%s", n, logs.String())
	}
}

// TestErrorHandlerBrokenBodyLastAttempt: when the last attempt is a success whose body breaks
// off, the final error is the read error (go-retryablehttp saw a response, not an error).
func TestErrorHandlerBrokenBodyLastAttempt(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, "http://127.0.0.1:1")
	st := &call{c: c, op: "GET /api/rest/v1/me", exhausted: true, reason: "transport error",
		readErr: errors.New("reading the response: unexpected EOF")}
	resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}
	got, err := st.errorHandler(resp, nil, 4)
	if got != nil || err == nil || err.Error() != "podqa: GET /api/rest/v1/me: reading the response: unexpected EOF" {
		t.Fatalf("errorHandler = %v, %v; want no response and the wrapped read error", got, err)
	}
	var ae *APIError
	if errors.As(err, &ae) {
		t.Fatalf("err %v is an *APIError; want the read error", err)
	}
}

// TestNeverWaitingForRetryAfterStillBacksOff: MaxRetryAfter < 0 refuses a Retry-After only; an
// answer without one is retried after the backoff.
func TestNeverWaitingForRetryAfterStillBacksOff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		first    reply
		attempts int
	}{
		{"no Retry-After: retried", reply{status: 503, ct: "text/plain", body: "busy"}, 2},
		{"a Retry-After: returned", reply{status: 503, ct: "text/plain", body: "busy", header: map[string]string{"Retry-After": "5"}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := serve(t, tt.first, reply{status: 200, ct: "application/json", body: meJSON})
			c, _ := newTestClient(t, srv.URL, WithRetryPolicy(RetryPolicy{MaxAttempts: 2, MinBackoff: time.Nanosecond, MaxBackoff: time.Nanosecond, MaxRetryAfter: -1}))
			_, err := c.Me(context.Background())
			if got := len(s.Requests()); got != tt.attempts {
				t.Fatalf("%d attempts (err %v), want %d", got, err, tt.attempts)
			}
			if (err == nil) != (tt.attempts == 2) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}
