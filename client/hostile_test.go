package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRetryAfterUnusableFallsBackToBackoff: a Retry-After the client cannot use (negative, zero,
// past, overflowing, garbage) must not turn the retries into a burst; the normal backoff applies.
func TestRetryAfterUnusableFallsBackToBackoff(t *testing.T) {
	t.Parallel()
	past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Format(http.TimeFormat)
	for _, v := range []string{"-5", "0", "-9223372036854775808", "99999999999999999999999", past, "soon", "1.5"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			srv, s := serve(t, rateLimited(v))
			p := RetryPolicy{MaxAttempts: 4, MinBackoff: 100 * time.Millisecond, MaxBackoff: 400 * time.Millisecond, MaxRetryAfter: time.Minute}
			c, clk := newTestClient(t, srv.URL, WithRetryPolicy(p))
			if _, err := c.Me(context.Background()); !errors.Is(err, ErrRateLimited) {
				t.Fatalf("err = %v, want ErrRateLimited", err)
			}
			if n := len(s.Requests()); n != 4 {
				t.Fatalf("attempts = %d, want 4", n)
			}
			checkBackoff(t, clk.Sleeps(), 100*time.Millisecond, 200*time.Millisecond, 400*time.Millisecond)
		})
	}
}

// TestSuccessBodyCapped: a success body larger than MaxResponseBody is refused with
// ErrResponseTooLarge, after reading at most that much, on REST and on Do alike.
func TestSuccessBodyCapped(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("reads 64 MiB through the JSON decoder (about 27 s of CPU under -race): -short skips it, the full suite (CI) runs it")
	}
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		// A JSON string that never ends: a hostile or broken server.
		n, _ := io.WriteString(w, `{"workspace":{"name":"`)
		chunk := strings.Repeat("a", 1<<20)
		for range MaxResponseBody/len(chunk) + 8 {
			m, err := io.WriteString(w, chunk)
			n += m
			if err != nil {
				break
			}
		}
		sent.Add(int64(n))
	}))
	t.Cleanup(srv.Close)
	// No attempt timeout: reading 64 MiB under -race on a busy machine can outlast the default
	// minute, and the cap, not the clock, must end the read.
	c, _ := newTestClient(t, srv.URL, WithRetryPolicy(RetryPolicy{MaxAttempts: 1}), WithHTTPClient(&http.Client{}))
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"REST", func() error { _, err := c.Me(context.Background()); return err }},
		{"Do", func() error {
			_, err := c.Do(context.Background(), RawRequest{Method: "POST", Path: "/api/graphql", Body: []byte(`{"query":"{x}"}`), Idempotent: true})
			return err
		}},
	} {
		err := tc.run()
		if !errors.Is(err, ErrResponseTooLarge) {
			t.Fatalf("%s: err = %v, want ErrResponseTooLarge", tc.name, err)
		}
		if !strings.Contains(err.Error(), "67108864") {
			t.Errorf("%s: error %q does not name the limit", tc.name, err)
		}
	}
}

// redirector answers every request with a redirect to target + the request's path.
func redirector(status int, target string, hits *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, target+r.URL.Path, status)
	})
}

// TestRedirectToAnotherOriginCarriesNoKey: the hostile server sends the client to the same host
// on another port (and to another scheme); the key must not follow, and a POST must never be
// replayed there. Redirects within the origin still work.
func TestRedirectToAnotherOriginCarriesNoKey(t *testing.T) {
	t.Parallel()
	type seen struct {
		hits  atomic.Int32
		auth  atomic.Value
		posts atomic.Int32
	}
	newCatcher := func(t *testing.T) (*httptest.Server, *seen) {
		s := &seen{}
		s.auth.Store("")
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.hits.Add(1)
			if a := r.Header.Get("Authorization"); a != "" {
				s.auth.Store(a)
			}
			if r.Method == http.MethodPost {
				s.posts.Add(1)
			}
			w.Header().Set("Content-Type", "application/json")
			if r.Method == http.MethodPost {
				w.WriteHeader(201)
				_, _ = io.WriteString(w, createdJSON)
				return
			}
			_, _ = io.WriteString(w, meJSON)
		}))
		t.Cleanup(srv.Close)
		return srv, s
	}
	for _, tc := range []struct {
		name   string
		status int
		op     operation
		// catcher's scheme: "http" (same scheme, other port) or "https" (other scheme)
		tls bool
	}{
		{"GET 302 to another port", http.StatusFound, opGet, false},
		{"GET 307 to another port", http.StatusTemporaryRedirect, opGet, false},
		{"GET 308 to another scheme", http.StatusPermanentRedirect, opGet, true},
		{"POST 307 to another port", http.StatusTemporaryRedirect, opPost, false},
		{"POST 308 to another port", http.StatusPermanentRedirect, opPost, false},
		{"POST 302 to another port", http.StatusFound, opPost, false},
		{"webhook POST 307 to another port", http.StatusTemporaryRedirect, opWebhook, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var catcher *httptest.Server
			var s *seen
			if tc.tls {
				s = &seen{}
				s.auth.Store("")
				catcher = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					s.hits.Add(1)
					if a := r.Header.Get("Authorization"); a != "" {
						s.auth.Store(a)
					}
				}))
				t.Cleanup(catcher.Close)
			} else {
				catcher, s = newCatcher(t)
			}
			var hits atomic.Int32
			front := httptest.NewServer(redirector(tc.status, catcher.URL, &hits))
			t.Cleanup(front.Close)
			hc := &http.Client{Transport: catcher.Client().Transport}
			c, _ := newTestClient(t, front.URL, WithHTTPClient(hc))
			err := tc.op.run(context.Background(), c)
			if a := s.auth.Load().(string); a != "" {
				t.Fatalf("the other origin received Authorization %q", a)
			}
			if n := s.posts.Load(); n != 0 {
				t.Fatalf("the POST was replayed to the other origin %d times", n)
			}
			var ae *APIError
			if !errors.As(err, &ae) || ae.StatusCode != tc.status {
				t.Fatalf("err = %v, want an *APIError with status %d", err, tc.status)
			}
			if !strings.Contains(ae.Message, "another origin") {
				t.Errorf("message %q does not say the redirect leaves the origin", ae.Message)
			}
		})
	}
}

// TestRedirectWithinOriginFollowed: a redirect to the same origin keeps working, and a
// user-supplied CheckRedirect is still consulted.
func TestRedirectWithinOriginFollowed(t *testing.T) {
	t.Parallel()
	var auth atomic.Value
	auth.Store("")
	mux := http.NewServeMux()
	mux.HandleFunc("/old/api/rest/v1/me", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/api/rest/v1/me", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/api/rest/v1/me", func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, meJSON)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	var userChecks atomic.Int32
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { userChecks.Add(1); return nil }}
	c, _ := newTestClient(t, srv.URL+"/old", WithHTTPClient(hc))
	if _, err := c.Me(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a := auth.Load().(string); a != "Bearer "+testKey {
		t.Fatalf("Authorization after a same-origin redirect = %q", a)
	}
	if userChecks.Load() != 1 {
		t.Fatalf("the user's CheckRedirect ran %d times, want 1", userChecks.Load())
	}
	if hc.CheckRedirect == nil || c.http == hc {
		t.Fatal("the user's http.Client was modified or used without the origin check")
	}
}
