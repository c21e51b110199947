package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// operation is a call under test, by retry class.
type operation struct {
	name string
	run  func(ctx context.Context, c *Client) error
}

var (
	opGet = operation{"GET /me", func(ctx context.Context, c *Client) error {
		_, err := c.Me(ctx)
		return err
	}}
	opPost = operation{"POST /reports (feed)", func(ctx context.Context, c *Client) error {
		_, err := c.CreateReportFromFeed(ctx, "https://feeds.example.org/show.rss", CreateReportParams{})
		return err
	}}
	opUpload = operation{"POST /reports (upload)", func(ctx context.Context, c *Client) error {
		_, err := c.CreateReportFromUpload(ctx, reportID1, "episode.mp3", 37*time.Minute)
		return err
	}}
	opWebhook = operation{"POST /webhook/subscribe", func(ctx context.Context, c *Client) error {
		_, err := c.SubscribeWebhook(ctx, WebhookSubscribeParams{URL: "https://hooks.example.com/x", Events: []WebhookEvent{EventReportCompleted}})
		return err
	}}
)

// TestRetryMatrix drives every retry rule with a scripted server and counts attempts.
func TestRetryMatrix(t *testing.T) {
	t.Parallel()
	ok200 := jsonReply(200, meJSON)
	created := jsonReply(201, createdJSON)
	hook := jsonReply(201, `{"id":"c4b3a291-8f7e-4d6c-9b5a-493827160f5e","secret":"whsec_abc"}`)
	html502 := reply{status: 502, ct: "text/html", body: "<html><body>Bad gateway</body></html>"}
	tests := []struct {
		name         string
		op           operation
		replies      []reply
		wantAttempts int
		wantErr      error           // nil: success
		wantSleeps   []time.Duration // nil: not checked
	}{
		// Reads: connection errors, 5xx (not 501) and 429 are retried.
		{"GET JSON 500 retried", opGet, []reply{apiErr(500, CodeInternalError), ok200}, 2, nil, nil},
		{"GET non-JSON 503 retried", opGet, []reply{plain503(), plain503(), ok200}, 3, nil, nil},
		{"GET HTML 502 retried", opGet, []reply{html502, ok200}, 2, nil, nil},
		{"GET 501 not retried", opGet, []reply{{status: 501, ct: "text/plain", body: "Not Implemented"}}, 1, ErrUnexpectedResponse, nil},
		{"GET 5xx until attempts run out", opGet, []reply{apiErr(500, CodeInternalError)}, 4, ErrInternal, nil},
		{"GET hang-up retried", opGet, []reply{{hangUp: true}, ok200}, 2, nil, nil},
		{"GET 429 waits exactly Retry-After", opGet, []reply{rateLimited("7"), ok200}, 2, nil, []time.Duration{7 * time.Second}},
		{"GET 429 Retry-After equal to the maximum waits", opGet, []reply{rateLimited("60"), ok200}, 2, nil, []time.Duration{time.Minute}},
		{"GET 429 Retry-After over the maximum returns at once", opGet, []reply{rateLimited("61"), ok200}, 1, ErrRateLimited, []time.Duration{}},
		{"GET 400 not retried", opGet, []reply{apiErr(400, CodeValidationError)}, 1, ErrValidation, nil},
		{"GET 401 not retried", opGet, []reply{apiErr(401, CodeInvalidAPIKey)}, 1, ErrInvalidAPIKey, nil},
		{"GET 403 not retried", opGet, []reply{apiErr(403, CodeForbidden)}, 1, ErrForbidden, nil},
		{"GET 404 not retried", opGet, []reply{apiErr(404, CodeNotFound)}, 1, ErrNotFound, nil},
		{"GET 405 not retried", opGet, []reply{apiErr(405, CodeMethodNotAllowed)}, 1, ErrMethodNotAllowed, nil},
		{"GET 409 not retried", opGet, []reply{apiErr(409, CodeConflict)}, 1, ErrConflict, nil},

		// Writes: only what cannot have been carried out.
		{"POST non-JSON 503 retried", opPost, []reply{plain503(), created}, 2, nil, nil},
		{"POST 429 retried after Retry-After", opPost, []reply{rateLimited("3"), created}, 2, nil, []time.Duration{3 * time.Second}},
		{"POST 429 over the maximum returns at once", opPost, []reply{rateLimited("3600"), created}, 1, ErrRateLimited, []time.Duration{}},
		{"POST JSON 500 not retried", opPost, []reply{apiErr(500, CodeInternalError), created}, 1, ErrInternal, nil},
		{"POST JSON 503 not retried", opPost, []reply{apiErr(503, CodeInternalError), created}, 1, ErrUnavailable, nil},
		{"POST HTML 502 not retried", opPost, []reply{html502, created}, 1, ErrUnexpectedResponse, nil},
		{"POST hang-up not retried", opPost, []reply{{hangUp: true}, created}, 1, errTransport, nil},
		{"POST 400 not retried", opPost, []reply{apiErr(400, CodeValidationError)}, 1, ErrValidation, nil},
		{"POST 402 not retried", opPost, []reply{apiErr(402, CodeInsufficientCredits)}, 1, ErrInsufficientCredits, nil},
		{"POST 403 plan limit not retried", opPost, []reply{apiErr(403, CodePlanLimitReached)}, 1, ErrPlanLimitReached, nil},
		{"POST 409 not retried", opPost, []reply{apiErr(409, CodeConflict)}, 1, ErrConflict, nil},
		{"webhook non-JSON 503 retried", opWebhook, []reply{plain503(), hook}, 2, nil, nil},
		{"webhook flat 429 retried", opWebhook, []reply{{status: 429, ct: "application/json", body: `{"error":"Rate limit exceeded: 100 per minute"}`, header: map[string]string{"Retry-After": "2"}}, hook}, 2, nil, []time.Duration{2 * time.Second}},
		{"webhook flat 500 not retried", opWebhook, []reply{jsonReply(500, `{"error":"boom"}`), hook}, 1, ErrInternal, nil},

		// The idempotent upload form retries 5xx and lost answers too.
		{"upload JSON 500 retried", opUpload, []reply{apiErr(500, CodeInternalError), created}, 2, nil, nil},
		{"upload hang-up retried", opUpload, []reply{{hangUp: true}, created}, 2, nil, nil},
		{"upload 409 on the first attempt is a conflict", opUpload, []reply{apiErr(409, CodeConflict)}, 1, ErrConflict, nil},
		{"upload 409 after a 429 is a conflict", opUpload, []reply{rateLimited("1"), apiErr(409, CodeConflict)}, 2, ErrConflict, nil},
		{"upload 409 after a non-JSON 503 is a conflict", opUpload, []reply{plain503(), apiErr(409, CodeConflict)}, 2, ErrConflict, nil},
		{"upload 404 not retried", opUpload, []reply{apiErr(404, CodeNotFound)}, 1, ErrNotFound, nil},
	}
	for _, tt := range tests {
		t.Run(tt.op.name+"/"+tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := serve(t, tt.replies...)
			c, clk := newTestClient(t, srv.URL)
			err := tt.op.run(context.Background(), c)
			if got := len(s.Requests()); got != tt.wantAttempts {
				t.Errorf("attempts = %d, want %d", got, tt.wantAttempts)
			}
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("err = %v, want success", err)
			case tt.wantErr == errTransport:
				var ae *APIError
				if err == nil || errors.As(err, &ae) {
					t.Fatalf("err = %v, want a transport error", err)
				}
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.wantSleeps != nil {
				if got := clk.Sleeps(); !equalDurations(got, tt.wantSleeps) {
					t.Errorf("sleeps = %v, want %v", got, tt.wantSleeps)
				}
			}
		})
	}
}

// errTransport marks a case that must fail with a transport error, not an *APIError.
var errTransport = errors.New("transport error")

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRetryAfterOverMaximumSetsRetryAfter(t *testing.T) {
	t.Parallel()
	srv, s := serve(t, rateLimited("120"))
	c, clk := newTestClient(t, srv.URL)
	_, err := c.Me(context.Background())
	var ae *APIError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want *APIError", err)
	}
	if ae.StatusCode != 429 || ae.Code != CodeRateLimited || ae.RetryAfter != 2*time.Minute {
		t.Fatalf("APIError = %+v", ae)
	}
	if n := len(s.Requests()); n != 1 || len(clk.Sleeps()) != 0 {
		t.Fatalf("attempts %d, sleeps %v: want one attempt and no wait", n, clk.Sleeps())
	}
}

func TestNegativeMaxRetryAfterNeverWaits(t *testing.T) {
	t.Parallel()
	srv, s := serve(t, rateLimited("1"), jsonReply(200, meJSON))
	c, _ := newTestClient(t, srv.URL, WithRetryPolicy(RetryPolicy{MaxRetryAfter: -1}))
	if _, err := c.Me(context.Background()); !errors.Is(err, ErrRateLimited) {
		t.Fatalf("err = %v, want ErrRateLimited", err)
	}
	if n := len(s.Requests()); n != 1 {
		t.Fatalf("attempts = %d", n)
	}
}

func TestBackoffWithoutRetryAfter(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t, plain503(), plain503(), plain503(), jsonReply(200, meJSON))
	p := RetryPolicy{MaxAttempts: 4, MinBackoff: 100 * time.Millisecond, MaxBackoff: 300 * time.Millisecond, MaxRetryAfter: time.Minute}
	c, clk := newTestClient(t, srv.URL, WithRetryPolicy(p))
	if _, err := c.Me(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Exponential, capped, equal jitter: [d/2, d] for d = 100, 200, 300 ms.
	checkBackoff(t, clk.Sleeps(), 100*time.Millisecond, 200*time.Millisecond, 300*time.Millisecond)
}

// checkBackoff checks that each sleep is the equal-jitter backoff of its bound: within [d/2, d].
func checkBackoff(t *testing.T, sleeps []time.Duration, bounds ...time.Duration) {
	t.Helper()
	if len(sleeps) != len(bounds) {
		t.Fatalf("sleeps = %v, want %d backoff waits", sleeps, len(bounds))
	}
	for i, d := range sleeps {
		if d < bounds[i]/2 || d > bounds[i] {
			t.Errorf("sleep %d = %v, want the backoff within [%v, %v]", i, d, bounds[i]/2, bounds[i])
		}
	}
}

func TestMaxAttemptsOneDisablesRetries(t *testing.T) {
	t.Parallel()
	srv, s := serve(t, plain503(), jsonReply(200, meJSON))
	c, _ := newTestClient(t, srv.URL, WithRetryPolicy(RetryPolicy{MaxAttempts: 1}))
	_, err := c.Me(context.Background())
	if !errors.Is(err, ErrUnavailable) || len(s.Requests()) != 1 {
		t.Fatalf("err = %v after %d attempts", err, len(s.Requests()))
	}
}

// TestNonJSON503IsRawAPIError checks the shape of a front-end 503, on GET and POST, once
// retries are spent.
func TestNonJSON503IsRawAPIError(t *testing.T) {
	t.Parallel()
	for _, op := range []operation{opGet, opPost} {
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			srv, s := serve(t, plain503())
			c, _ := newTestClient(t, srv.URL)
			err := op.run(context.Background(), c)
			var ae *APIError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v", err)
			}
			if ae.StatusCode != 503 || ae.Code != "" || string(ae.Body) != "Service Unavailable" || ae.Message != "Service Unavailable" {
				t.Fatalf("APIError = %+v", ae)
			}
			if !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrUnexpectedResponse) {
				t.Fatalf("sentinels do not match %v", err)
			}
			if n := len(s.Requests()); n != tinyPolicy.MaxAttempts {
				t.Fatalf("attempts = %d, want %d", n, tinyPolicy.MaxAttempts)
			}
		})
	}
}

// TestBodyRewoundPerAttempt checks that every attempt of a POST carries the whole body.
func TestBodyRewoundPerAttempt(t *testing.T) {
	t.Parallel()
	srv, s := serve(t, plain503(), plain503(), jsonReply(201, createdJSON))
	c, _ := newTestClient(t, srv.URL)
	if _, err := c.CreateReportFromFeed(context.Background(), "https://feeds.example.org/show.rss", CreateReportParams{EpisodeIndex: 3}); err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("attempts = %d", len(reqs))
	}
	want := `{"episode_index":3,"feed_url":"https://feeds.example.org/show.rss"}`
	for i, r := range reqs {
		if r.body != want || r.contentType != "application/json" || r.method != http.MethodPost || r.path != "/api/rest/v1/reports" {
			t.Errorf("attempt %d: %s %s %q body %s", i, r.method, r.path, r.contentType, r.body)
		}
	}
}

// dialFailures returns a transport whose first n dials fail as a refused connection would.
func dialFailures(n int) (*http.Transport, *atomic.Int32) {
	var dials atomic.Int32
	d := &net.Dialer{}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) <= int32(n) {
			return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
		}
		return d.DialContext(ctx, network, addr)
	}}
	return tr, &dials
}

func TestDialErrorsRetried(t *testing.T) {
	t.Parallel()
	for _, op := range []operation{opGet, opPost, opUpload, opWebhook} {
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			ok := jsonReply(200, meJSON)
			if op.name != opGet.name {
				ok = jsonReply(201, `{"id":"`+reportID1+`","status":"PENDING","secret":"whsec_x"}`)
			}
			srv, s := serve(t, ok)
			tr, dials := dialFailures(2)
			t.Cleanup(tr.CloseIdleConnections)
			c, _ := newTestClient(t, srv.URL, WithHTTPClient(&http.Client{Transport: tr}))
			if err := op.run(context.Background(), c); err != nil {
				t.Fatalf("err = %v", err)
			}
			if dials.Load() != 3 || len(s.Requests()) != 1 {
				t.Fatalf("dials %d, requests %d; want 3 and 1", dials.Load(), len(s.Requests()))
			}
		})
	}
}

func TestDialErrorsExhausted(t *testing.T) {
	t.Parallel()
	tr, dials := dialFailures(100)
	c, _ := newTestClient(t, "http://127.0.0.1:9", WithHTTPClient(&http.Client{Transport: tr}))
	_, err := c.Me(context.Background())
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("err = %v, want the wrapped dial error", err)
	}
	if dials.Load() != int32(tinyPolicy.MaxAttempts) {
		t.Fatalf("dials = %d", dials.Load())
	}
}

// lostAnswer is a transport that carries the first n requests out and then reports a timeout
// instead of their answers, as when a response is lost after the server acted.
type lostAnswer struct {
	next http.RoundTripper
	n    atomic.Int32
}

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout (simulated)" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

func (l *lostAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if l.n.Add(-1) >= 0 {
		resp.Body.Close()
		return nil, timeoutError{}
	}
	return resp, nil
}

// uploadServer acts like the service for the upload form: the first POST creates the report,
// later ones get 409; GET returns it.
func uploadServer(t *testing.T, firstReply *reply) (*httptest.Server, *atomic.Int32, *atomic.Int32) {
	var posts, gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/api/rest/v1/reports":
			n := posts.Add(1)
			if n == 1 && firstReply != nil {
				w.WriteHeader(firstReply.status)
				_, _ = w.Write([]byte(firstReply.body))
				return
			}
			if n > 1 {
				w.WriteHeader(409)
				_, _ = w.Write([]byte(`{"error":{"code":"conflict","message":"This upload has already been used."}}`))
				return
			}
			w.WriteHeader(201)
			_, _ = w.Write([]byte(`{"id":"` + reportID1 + `","status":"PENDING","estimated_credits":370}`))
		case r.Method == http.MethodGet && r.URL.Path == "/api/rest/v1/reports/"+reportID1:
			gets.Add(1)
			_, _ = w.Write([]byte(`{"id":"` + reportID1 + `","status":"IN_PROGRESS","original_filename":"episode.mp3","personal_report":true}`))
		default:
			w.WriteHeader(404)
			_, _ = w.Write([]byte(`{"error":{"code":"not_found","message":"Not found."}}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &posts, &gets
}

func TestUploadConflictAfterOwnRetryIsSuccess(t *testing.T) {
	t.Parallel()
	t.Run("answer lost to a timeout", func(t *testing.T) {
		t.Parallel()
		srv, posts, gets := uploadServer(t, nil)
		tr := &lostAnswer{next: http.DefaultTransport}
		tr.n.Store(1)
		c, _ := newTestClient(t, srv.URL, WithHTTPClient(&http.Client{Transport: tr}))
		got, err := c.CreateReportFromUpload(context.Background(), reportID1, "episode.mp3", 37*time.Minute)
		if err != nil {
			t.Fatalf("err = %v", err)
		}
		if got.ID != reportID1 || got.Status != StatusInProgress || got.EstimatedCredits != nil {
			t.Fatalf("got %+v", got)
		}
		if posts.Load() != 2 || gets.Load() != 1 {
			t.Fatalf("posts %d, gets %d", posts.Load(), gets.Load())
		}
	})
	t.Run("JSON 500 then 409", func(t *testing.T) {
		t.Parallel()
		r500 := apiErr(500, CodeInternalError)
		srv, posts, gets := uploadServer(t, &r500)
		c, _ := newTestClient(t, srv.URL)
		got, err := c.CreateReportFromUpload(context.Background(), reportID1, "episode.mp3", 37*time.Minute)
		if err != nil || got.ID != reportID1 || got.Status != StatusInProgress {
			t.Fatalf("got %+v, %v", got, err)
		}
		if posts.Load() != 2 || gets.Load() != 1 {
			t.Fatalf("posts %d, gets %d", posts.Load(), gets.Load())
		}
	})
	t.Run("first answer kept", func(t *testing.T) {
		t.Parallel()
		srv, posts, gets := uploadServer(t, nil)
		c, _ := newTestClient(t, srv.URL)
		got, err := c.CreateReportFromUpload(context.Background(), reportID1, "episode.mp3", 37*time.Minute)
		if err != nil || got.EstimatedCredits == nil || *got.EstimatedCredits != 370 {
			t.Fatalf("got %+v, %v", got, err)
		}
		if posts.Load() != 1 || gets.Load() != 0 {
			t.Fatalf("posts %d, gets %d", posts.Load(), gets.Load())
		}
	})
}

// TestPostTimeoutNotRetried: a write whose answer is lost may have been carried out.
func TestPostTimeoutNotRetried(t *testing.T) {
	t.Parallel()
	srv, s := serve(t, jsonReply(201, createdJSON))
	tr := &lostAnswer{next: http.DefaultTransport}
	tr.n.Store(1)
	c, _ := newTestClient(t, srv.URL, WithHTTPClient(&http.Client{Transport: tr}))
	_, err := c.CreateReportFromFeed(context.Background(), "https://feeds.example.org/show.rss", CreateReportParams{})
	var te interface{ Timeout() bool }
	if !errors.As(err, &te) || !te.Timeout() {
		t.Fatalf("err = %v, want the timeout", err)
	}
	if n := len(s.Requests()); n != 1 {
		t.Fatalf("requests = %d", n)
	}
}

// TestCancelDuringWait cancels the context while the client waits out a Retry-After, on the
// real sleep: the call must end at once with context.Canceled. "At once" is the sleep's own
// answer: it returns the context's error only when the context ended it, and nil after the
// hour of the Retry-After.
func TestCancelDuringWait(t *testing.T) {
	t.Parallel()
	srv, s := serve(t, rateLimited("3600"), jsonReply(200, meJSON))
	policy := tinyPolicy
	policy.MaxRetryAfter = 2 * time.Hour
	c, err := New(testKey, WithBaseURL(srv.URL), WithRetryPolicy(policy))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	waiting, slept := make(chan time.Duration, 1), make(chan error, 1)
	c.clock = notifyingClock{notify: waiting, slept: slept} // sleeps on the wall clock, as in production
	go func() {
		<-waiting
		cancel()
	}()
	_, err = c.Me(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if err := <-slept; !errors.Is(err, context.Canceled) {
		t.Fatalf("the sleep ended with %v, want context.Canceled: the wait was not interrupted", err)
	}
	if n := len(s.Requests()); n != 1 {
		t.Fatalf("requests = %d", n)
	}
}

// TestWaitBeyondDeadlineNotStarted: a Retry-After longer than the context has left returns the
// 429 instead of sleeping into a DeadlineExceeded.
func TestWaitBeyondDeadlineNotStarted(t *testing.T) {
	t.Parallel()
	srv, s := serve(t, rateLimited("30"), jsonReply(200, meJSON))
	c, clk := newTestClient(t, srv.URL)
	// Whatever the machine's speed, less than 20 s is left when the 30 s Retry-After arrives.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := c.Me(ctx)
	var ae *APIError
	if !errors.As(err, &ae) || ae.RetryAfter != 30*time.Second {
		t.Fatalf("err = %v", err)
	}
	if len(s.Requests()) != 1 || len(clk.Sleeps()) != 0 {
		t.Fatalf("requests %d, sleeps %v", len(s.Requests()), clk.Sleeps())
	}
}

func TestDeadlineExceededWrapped(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t, jsonReply(200, meJSON))
	c, _ := newTestClient(t, srv.URL)
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err := c.Me(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if !strings.Contains(err.Error(), "GET /api/rest/v1/me") {
		t.Fatalf("err = %v does not name the request", err)
	}
}

// TestConcurrentCalls runs calls with retries from many goroutines (for -race): every report id
// fails its odd-numbered requests with a front-end 503, so each call needs exactly one retry.
func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path]++
		n := seen[r.URL.Path]
		mu.Unlock()
		if n%2 == 1 {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(503)
			return
		}
		id := strings.TrimPrefix(r.URL.Path, "/api/rest/v1/reports/")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"` + id + `","status":"COMPLETE"}`))
	}))
	t.Cleanup(srv.Close)
	c, _ := newTestClient(t, srv.URL)
	var wg sync.WaitGroup
	for g := range 16 {
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", g)
		wg.Go(func() {
			for range 10 {
				r, err := c.GetReport(context.Background(), id)
				if err != nil || r.ID != id {
					t.Errorf("GetReport(%s) = %+v, %v", id, r, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for path, n := range seen {
		if n != 20 {
			t.Errorf("%s: %d requests, want 20", path, n)
		}
	}
}

// notifyingClock is the wall clock, telling each sleep to notify before it starts.
type notifyingClock struct {
	SystemClock
	notify chan<- time.Duration
	slept  chan<- error // receives what each sleep returned
}

func (n notifyingClock) Sleep(ctx context.Context, d time.Duration) error {
	n.notify <- d
	err := n.SystemClock.Sleep(ctx, d)
	n.slept <- err
	return err
}
