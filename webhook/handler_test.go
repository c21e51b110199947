package webhook

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
)

var handlerStart = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// recorder collects the events a Handler callback receives and fails on demand.
type recorder struct {
	mu       sync.Mutex
	events   []Event
	delivery []Delivery
	fail     error
}

func (r *recorder) fn(ctx context.Context, e Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, _ := DeliveryFromContext(ctx)
	r.delivery = append(r.delivery, d)
	if r.fail != nil {
		return r.fail
	}
	r.events = append(r.events, e)
	return nil
}

func (r *recorder) calls() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.delivery)
}

func (r *recorder) setFail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fail = err
}

type hookCall struct {
	status int
	err    error
}

// newTestHandler builds a Handler on refSecret with a manual clock and collects hook calls.
func newTestHandler(t *testing.T, clock *client.ManualClock, fn func(context.Context, Event) error, opts ...HandlerOption) (http.Handler, *[]hookCall) {
	t.Helper()
	var mu sync.Mutex
	hooks := &[]hookCall{}
	base := []HandlerOption{
		WithVerifierOptions(WithClock(clock)),
		WithErrorHook(func(_ *http.Request, status int, err error) {
			mu.Lock()
			defer mu.Unlock()
			*hooks = append(*hooks, hookCall{status, err})
		}),
	}
	h, err := NewHandler(refSecret, fn, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return h, hooks
}

// deliver sends body signed now with id, as the service's sender would.
func deliver(t *testing.T, h http.Handler, clock *client.ManualClock, id, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/hooks/podqa", strings.NewReader(body))
	for k, v := range signedHeader(t, refSecret, id, clock.Now(), []byte(body)) {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestHandlerDelivers(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(handlerStart)
	var rec recorder
	h, hooks := newTestHandler(t, clock, rec.fn)
	resp := deliver(t, h, clock, "msg_1", payloadEpisodeCreated)
	if resp.Code != http.StatusOK || strings.TrimSpace(resp.Body.String()) != "ok" {
		t.Fatalf("status %d %q", resp.Code, resp.Body)
	}
	if len(rec.events) != 1 || rec.events[0].EpisodeCreated == nil || rec.events[0].EpisodeCreated.Episode.GUID != "ep-44" {
		t.Fatalf("events = %+v", rec.events)
	}
	want := Delivery{ID: "msg_1", Timestamp: handlerStart}
	if rec.delivery[0] != want {
		t.Errorf("DeliveryFromContext = %+v, want %+v", rec.delivery[0], want)
	}
	if len(*hooks) != 0 {
		t.Errorf("error hook called on success: %+v", *hooks)
	}
	if _, ok := DeliveryFromContext(context.Background()); ok {
		t.Error("DeliveryFromContext outside a callback reports ok")
	}
}

// TestHandlerRetryLadder follows one delivery through a failing callback and the sender's
// retries: a failure must not be remembered, a success must be.
func TestHandlerRetryLadder(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(handlerStart)
	var rec recorder
	h, hooks := newTestHandler(t, clock, rec.fn)
	rec.setFail(errors.New("database down: do not tell the sender"))

	resp := deliver(t, h, clock, "msg_retry", payloadCompleted)
	if resp.Code != http.StatusInternalServerError {
		t.Fatalf("failing callback: status %d, want 500", resp.Code)
	}
	if strings.Contains(resp.Body.String(), "database") {
		t.Errorf("callback error leaked to the sender: %q", resp.Body)
	}
	if len(*hooks) != 1 || !errors.Is((*hooks)[0].err, ErrCallback) || (*hooks)[0].status != 500 {
		t.Errorf("hook calls = %+v", *hooks)
	}

	// First retry ten minutes later, freshly signed: the callback runs again and succeeds.
	clock.Advance(10 * time.Minute)
	rec.setFail(nil)
	if resp := deliver(t, h, clock, "msg_retry", payloadCompleted); resp.Code != http.StatusOK {
		t.Fatalf("retry after failure: status %d %q, want 200", resp.Code, resp.Body)
	}
	// A later redelivery (the sender missed the 200) is acknowledged without a call.
	clock.Advance(20 * time.Minute)
	resp = deliver(t, h, clock, "msg_retry", payloadCompleted)
	if resp.Code != http.StatusOK || !strings.Contains(resp.Body.String(), "duplicate") {
		t.Fatalf("duplicate: status %d %q", resp.Code, resp.Body)
	}
	if rec.calls() != 2 || len(rec.events) != 1 {
		t.Fatalf("callback calls = %d, successes = %d; want 2, 1", rec.calls(), len(rec.events))
	}
	// Another delivery with the same body but its own id is a different delivery.
	if resp := deliver(t, h, clock, "msg_other", payloadCompleted); resp.Code != http.StatusOK || len(rec.events) != 2 {
		t.Fatalf("new id: status %d, events %d", resp.Code, len(rec.events))
	}
}

func TestHandlerDedupExpiresWithClock(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(handlerStart)
	var rec recorder
	h, _ := newTestHandler(t, clock, rec.fn)
	deliver(t, h, clock, "msg_old", payloadFeedBroken)
	clock.Advance(29 * time.Hour)
	deliver(t, h, clock, "msg_old", payloadFeedBroken)
	if rec.calls() != 1 {
		t.Fatalf("redelivery within the TTL ran the callback: %d calls", rec.calls())
	}
	clock.Advance(time.Hour + time.Second)
	deliver(t, h, clock, "msg_old", payloadFeedBroken)
	if rec.calls() != 2 {
		t.Fatalf("id not forgotten after the default TTL: %d calls", rec.calls())
	}
}

func TestHandlerTestEvents(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(handlerStart)

	var kept recorder
	h, _ := newTestHandler(t, clock, kept.fn)
	if resp := deliver(t, h, clock, "msg_test", payloadTest); resp.Code != http.StatusOK {
		t.Fatalf("status %d", resp.Code)
	}
	if len(kept.events) != 1 || !kept.events[0].Test {
		t.Fatalf("by default a test event reaches the callback with Test set: %+v", kept.events)
	}

	var ignored recorder
	h, _ = newTestHandler(t, clock, ignored.fn, WithIgnoreTestEvents())
	resp := deliver(t, h, clock, "msg_test", payloadTest)
	if resp.Code != http.StatusOK || !strings.Contains(resp.Body.String(), "test") {
		t.Fatalf("ignored test event: status %d %q", resp.Code, resp.Body)
	}
	if ignored.calls() != 0 {
		t.Fatal("callback called for an ignored test event")
	}
	if resp := deliver(t, h, clock, "msg_real", payloadCompleted); resp.Code != http.StatusOK || ignored.calls() != 1 {
		t.Fatalf("real event after ignored test: status %d calls %d", resp.Code, ignored.calls())
	}
	// An ignored test event must still be authentic.
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(payloadTest))
	req.Header = signedHeader(t, otherSecret, "msg_forged", clock.Now(), []byte(payloadTest))
	r := httptest.NewRecorder()
	h.ServeHTTP(r, req)
	if r.Code != http.StatusUnauthorized {
		t.Fatalf("forged test event: status %d, want 401", r.Code)
	}
}

func TestHandlerRejects(t *testing.T) {
	t.Parallel()
	body := payloadCompleted
	tests := []struct {
		name    string
		method  string
		body    string
		header  func(t *testing.T, now time.Time) http.Header
		opts    []HandlerOption
		status  int
		wantErr error
	}{
		{
			name: "GET", method: http.MethodGet, status: http.StatusMethodNotAllowed, wantErr: ErrMethodNotAllowed,
		},
		{
			name: "PUT", method: http.MethodPut, status: http.StatusMethodNotAllowed, wantErr: ErrMethodNotAllowed,
		},
		{
			name: "no headers", header: func(*testing.T, time.Time) http.Header { return http.Header{} },
			status: http.StatusBadRequest, wantErr: ErrMissingHeaders,
		},
		{
			name: "timestamp not seconds",
			header: func(t *testing.T, now time.Time) http.Header {
				h := signedHeader(t, refSecret, "m", now, []byte(body))
				h.Set(HeaderTimestamp, now.Format(time.RFC3339))
				return h
			},
			status: http.StatusBadRequest, wantErr: ErrInvalidTimestamp,
		},
		{
			name: "wrong secret",
			header: func(t *testing.T, now time.Time) http.Header {
				return signedHeader(t, otherSecret, "m", now, []byte(body))
			},
			status: http.StatusUnauthorized, wantErr: ErrInvalidSignature,
		},
		{
			name: "body changed after signing",
			body: strings.Replace(body, `"passed": true`, `"passed": false`, 1),
			header: func(t *testing.T, now time.Time) http.Header {
				return signedHeader(t, refSecret, "m", now, []byte(body))
			},
			status: http.StatusUnauthorized, wantErr: ErrInvalidSignature,
		},
		{
			name: "replayed after 6 minutes",
			header: func(t *testing.T, now time.Time) http.Header {
				return signedHeader(t, refSecret, "m", now.Add(-6*time.Minute), []byte(body))
			},
			status: http.StatusUnauthorized, wantErr: ErrTimestampTooOld,
		},
		{
			name: "from 6 minutes in the future",
			header: func(t *testing.T, now time.Time) http.Header {
				return signedHeader(t, refSecret, "m", now.Add(6*time.Minute), []byte(body))
			},
			status: http.StatusUnauthorized, wantErr: ErrTimestampTooNew,
		},
		{
			name: "signed but not an event",
			body: `{"hello":"world"}`,
			header: func(t *testing.T, now time.Time) http.Header {
				return signedHeader(t, refSecret, "m", now, []byte(`{"hello":"world"}`))
			},
			status: http.StatusBadRequest, wantErr: ErrMalformedPayload,
		},
		{
			name: "body over the limit",
			opts: []HandlerOption{WithMaxBodyBytes(int64(len(body) - 1))},
			header: func(t *testing.T, now time.Time) http.Header {
				return signedHeader(t, refSecret, "m", now, []byte(body))
			},
			status: http.StatusRequestEntityTooLarge, wantErr: ErrBodyTooLarge,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := client.NewManualClock(handlerStart)
			var rec recorder
			h, hooks := newTestHandler(t, clock, rec.fn, tt.opts...)
			method := http.MethodPost
			if tt.method != "" {
				method = tt.method
			}
			reqBody := body
			if tt.body != "" {
				reqBody = tt.body
			}
			req := httptest.NewRequest(method, "/", strings.NewReader(reqBody))
			if tt.header != nil {
				req.Header = tt.header(t, clock.Now())
			}
			resp := httptest.NewRecorder()
			h.ServeHTTP(resp, req)
			if resp.Code != tt.status {
				t.Fatalf("status %d %q, want %d", resp.Code, resp.Body, tt.status)
			}
			if rec.calls() != 0 {
				t.Fatal("callback called for a rejected request")
			}
			if len(*hooks) != 1 || (*hooks)[0].status != tt.status || !errors.Is((*hooks)[0].err, tt.wantErr) {
				t.Fatalf("hook calls = %+v, want one with %d and %v", *hooks, tt.status, tt.wantErr)
			}
			if tt.status == http.StatusMethodNotAllowed && resp.Header().Get("Allow") != http.MethodPost {
				t.Errorf("Allow = %q", resp.Header().Get("Allow"))
			}
		})
	}
}

func TestHandlerBodyAtLimit(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(handlerStart)
	var rec recorder
	h, _ := newTestHandler(t, clock, rec.fn, WithMaxBodyBytes(int64(len(payloadCompleted))))
	if resp := deliver(t, h, clock, "msg", payloadCompleted); resp.Code != http.StatusOK {
		t.Fatalf("body exactly at the limit: status %d", resp.Code)
	}
}

// TestHandlerInFlight sends a redelivery while the first attempt is still in the callback.
func TestHandlerInFlight(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(handlerStart)
	entered := make(chan struct{})
	release := make(chan struct{})
	var calls sync.Map
	fn := func(ctx context.Context, e Event) error {
		d, _ := DeliveryFromContext(ctx)
		if _, loaded := calls.LoadOrStore(d.ID, true); !loaded {
			close(entered)
			<-release
		}
		return nil
	}
	h, hooks := newTestHandler(t, clock, fn)
	first := make(chan int)
	go func() { first <- deliver(t, h, clock, "msg_slow", payloadCompleted).Code }()
	<-entered
	if resp := deliver(t, h, clock, "msg_slow", payloadCompleted); resp.Code != http.StatusConflict || resp.Header().Get("Retry-After") != "120" {
		t.Fatalf("concurrent duplicate: status %d, Retry-After %q; want 409, 120", resp.Code, resp.Header().Get("Retry-After"))
	}
	close(release)
	if code := <-first; code != http.StatusOK {
		t.Fatalf("first attempt: status %d", code)
	}
	if resp := deliver(t, h, clock, "msg_slow", payloadCompleted); resp.Code != http.StatusOK || !strings.Contains(resp.Body.String(), "duplicate") {
		t.Fatalf("after the first finished: status %d %q", resp.Code, resp.Body)
	}
	if len(*hooks) != 1 || !errors.Is((*hooks)[0].err, ErrInFlight) {
		t.Fatalf("hooks = %+v", *hooks)
	}
}

func TestHandlerTimeout(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(handlerStart)
	var deadline time.Time
	var hasDeadline bool
	fn := func(ctx context.Context, e Event) error {
		deadline, hasDeadline = ctx.Deadline()
		return nil
	}
	h, _ := newTestHandler(t, clock, fn, WithTimeout(8*time.Second))
	before := time.Now()
	deliver(t, h, clock, "msg", payloadCompleted)
	if !hasDeadline || deadline.Before(before.Add(8*time.Second)) || deadline.After(time.Now().Add(8*time.Second)) {
		t.Fatalf("deadline = %v (set %v), want about 8s after the request", deadline, hasDeadline)
	}

	h, _ = newTestHandler(t, clock, fn)
	deliver(t, h, clock, "msg", payloadCompleted)
	if hasDeadline {
		t.Fatal("deadline set without WithTimeout")
	}
}

// failingStore is a DedupStore whose methods fail on demand.
type failingStore struct {
	claimErr, completeErr, releaseErr error
	status                            ClaimStatus
	completed, released               []string
}

func (s *failingStore) Claim(context.Context, string, time.Duration) (ClaimStatus, string, error) {
	if s.claimErr != nil {
		return 0, "", s.claimErr
	}
	if s.status != 0 {
		return s.status, "", nil
	}
	return Claimed, "tok", nil
}

func (s *failingStore) Complete(_ context.Context, id string) error {
	if s.completeErr != nil {
		return s.completeErr
	}
	s.completed = append(s.completed, id)
	return nil
}

func (s *failingStore) Release(_ context.Context, id, token string) error {
	if s.releaseErr != nil {
		return s.releaseErr
	}
	s.released = append(s.released, id+"/"+token)
	return nil
}

func TestHandlerDedupStoreFailures(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(handlerStart)

	var rec recorder
	store := &failingStore{claimErr: errors.New("redis: connection refused")}
	h, hooks := newTestHandler(t, clock, rec.fn, WithDedupStore(store))
	resp := deliver(t, h, clock, "msg", payloadCompleted)
	if resp.Code != http.StatusInternalServerError || rec.calls() != 0 || strings.Contains(resp.Body.String(), "redis") {
		t.Fatalf("Claim failure: status %d %q, calls %d", resp.Code, resp.Body, rec.calls())
	}
	if len(*hooks) != 1 || !errors.Is((*hooks)[0].err, ErrDedupStore) {
		t.Fatalf("hooks = %+v", *hooks)
	}

	// The callback succeeded, so the event is handled even if it cannot be recorded.
	store = &failingStore{completeErr: errors.New("redis: read-only replica")}
	h, hooks = newTestHandler(t, clock, rec.fn, WithDedupStore(store))
	resp = deliver(t, h, clock, "msg", payloadCompleted)
	if resp.Code != http.StatusOK || rec.calls() != 1 {
		t.Fatalf("Complete failure: status %d, calls %d; want 200, 1", resp.Code, rec.calls())
	}
	if len(*hooks) != 1 || (*hooks)[0].status != http.StatusOK || !errors.Is((*hooks)[0].err, ErrDedupStore) {
		t.Fatalf("hooks = %+v", *hooks)
	}

	// A failed callback releases its claim with its token and never completes.
	store = &failingStore{}
	rec.setFail(errors.New("nope"))
	h, _ = newTestHandler(t, clock, rec.fn, WithDedupStore(store))
	deliver(t, h, clock, "msg_fail", payloadCompleted)
	rec.setFail(nil)
	deliver(t, h, clock, "msg_ok", payloadCompleted)
	if len(store.completed) != 1 || store.completed[0] != "msg_ok" || len(store.released) != 1 || store.released[0] != "msg_fail/tok" {
		t.Fatalf("completed = %v, released = %v; want msg_ok, msg_fail/tok", store.completed, store.released)
	}

	// A failed release is reported; the answer stays 500 (the callback failed).
	store = &failingStore{releaseErr: errors.New("redis: i/o timeout")}
	rec.setFail(errors.New("nope"))
	h, hooks = newTestHandler(t, clock, rec.fn, WithDedupStore(store))
	resp = deliver(t, h, clock, "msg_fail", payloadCompleted)
	rec.setFail(nil)
	if resp.Code != http.StatusInternalServerError || len(*hooks) != 2 || !errors.Is((*hooks)[0].err, ErrDedupStore) || !errors.Is((*hooks)[1].err, ErrCallback) {
		t.Fatalf("Release failure: status %d, hooks %+v; want the release's error, then the callback's", resp.Code, *hooks)
	}

	// A store answering an unknown status is a store failure, and the callback does not run.
	store = &failingStore{status: ClaimStatus(42)}
	h, hooks = newTestHandler(t, clock, rec.fn, WithDedupStore(store))
	before := rec.calls()
	resp = deliver(t, h, clock, "msg_odd", payloadCompleted)
	if resp.Code != http.StatusInternalServerError || rec.calls() != before || len(*hooks) != 1 || !errors.Is((*hooks)[0].err, ErrDedupStore) {
		t.Fatalf("unknown status: %d, calls %d→%d, hooks %+v", resp.Code, before, rec.calls(), *hooks)
	}
}

// TestHandlerPanicReleases: a callback that panics leaves no claim behind, so the retry runs.
func TestHandlerPanicReleases(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(handlerStart)
	panicked := false
	var rec recorder
	fn := func(ctx context.Context, e Event) error {
		if !panicked {
			panicked = true
			panic("boom")
		}
		return rec.fn(ctx, e)
	}
	h, _ := newTestHandler(t, clock, fn)
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the callback's panic did not reach net/http")
			}
		}()
		deliver(t, h, clock, "msg", payloadCompleted)
	}()
	if resp := deliver(t, h, clock, "msg", payloadCompleted); resp.Code != http.StatusOK || rec.calls() != 1 {
		t.Fatalf("retry after a panic: status %d, calls %d", resp.Code, rec.calls())
	}
}

// TestHandlerOverHTTP runs the handler behind a real loopback server, with a chunked body of
// unknown length over the limit.
func TestHandlerOverHTTP(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(handlerStart)
	var rec recorder
	h, _ := newTestHandler(t, clock, rec.fn, WithMaxBodyBytes(1024))
	srv := httptest.NewServer(h)
	defer srv.Close()

	post := func(id string, body []byte, chunked bool) int {
		t.Helper()
		var rd interface{ Read([]byte) (int, error) } = bytes.NewReader(body)
		if chunked {
			rd = struct{ *bytes.Reader }{bytes.NewReader(body)} // hides the length
		}
		req, err := http.NewRequest(http.MethodPost, srv.URL, rd)
		if err != nil {
			t.Fatal(err)
		}
		req.Header = signedHeader(t, refSecret, id, clock.Now(), body)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("msg_a", []byte(payloadFeedBroken), false); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	big := []byte(`{"type":"x.y","timestamp":"2026-01-05T09:00:00Z","data":"` + strings.Repeat("a", 2000) + `"}`)
	if code := post("msg_b", big, true); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("chunked oversize body: status %d, want 413", code)
	}
	if rec.calls() != 1 {
		t.Fatalf("calls = %d", rec.calls())
	}
}

func TestHandlerErrors(t *testing.T) {
	t.Parallel()
	fn := func(context.Context, Event) error { return nil }
	tests := []struct {
		name   string
		secret string
		fn     func(context.Context, Event) error
		opts   []HandlerOption
		want   error
	}{
		{"bad secret", "whsec_", fn, nil, ErrInvalidSecret},
		{"nil callback", refSecret, nil, nil, ErrInvalidOption},
		{"zero body limit", refSecret, fn, []HandlerOption{WithMaxBodyBytes(0)}, ErrInvalidOption},
		{"zero timeout", refSecret, fn, []HandlerOption{WithTimeout(0)}, ErrInvalidOption},
		{"zero claim TTL", refSecret, fn, []HandlerOption{WithClaimTTL(0)}, ErrInvalidOption},
		{"timeout not below the claim TTL", refSecret, fn, []HandlerOption{WithTimeout(time.Minute), WithClaimTTL(time.Minute)}, ErrInvalidOption},
		{"negative timeout", refSecret, fn, []HandlerOption{WithTimeout(-time.Second)}, ErrInvalidOption},
		{"nil store", refSecret, fn, []HandlerOption{WithDedupStore(nil)}, ErrInvalidOption},
		{"bad tolerance", refSecret, fn, []HandlerOption{WithVerifierOptions(WithTolerance(0))}, ErrInvalidOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, err := NewHandler(tt.secret, tt.fn, tt.opts...)
			if !errors.Is(err, tt.want) || h != nil {
				t.Fatalf("Handler = %v, %v; want nil, %v", h, err, tt.want)
			}
		})
	}
}

// The delivery's timestamp header is parsed for DeliveryFromContext exactly as verified.
func TestHandlerDeliveryTimestamp(t *testing.T) {
	t.Parallel()
	clock := client.NewManualClock(time.Unix(refTimestamp, 0))
	var rec recorder
	h, _ := newTestHandler(t, clock, rec.fn)
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(payloadUnknown))
	req.Header = signedHeader(t, refSecret, refID, clock.Now().Add(-time.Minute), []byte(payloadUnknown))
	resp := httptest.NewRecorder()
	h.ServeHTTP(resp, req)
	if resp.Code != http.StatusOK {
		t.Fatalf("status %d", resp.Code)
	}
	if got := rec.delivery[0].Timestamp.Unix(); got != refTimestamp-60 {
		t.Fatalf("Delivery.Timestamp = %d", got)
	}
	if rec.events[0].Type != "series.renamed" {
		t.Fatalf("unknown event type not passed on: %+v", rec.events[0])
	}
}
