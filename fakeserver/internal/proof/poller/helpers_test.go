package pollerproof_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/poller"
)

// harness is a fake on its manual clock behind a counting proxy, and a client of it.
type harness struct {
	t    *testing.T
	srv  *fakeserver.Server
	seed fakeserver.DemoWorkspace
	c    *client.Client
	clk  *fakeClock

	mu       sync.Mutex
	list     int            // GET /reports requests
	paths    map[string]int // every request by "METHOD path"
	beforeFn func(list int) // runs before the list request number list (from 1) is served
	respond  func(w http.ResponseWriter, list int) bool
}

// newHarness starts a fake; the client retries 5xx at once (no wall-clock backoff) and never
// waits for a Retry-After itself, so that the poller's own waits run on the fake's clock.
func newHarness(t *testing.T, opts ...fakeserver.Option) *harness {
	t.Helper()
	srv, seed := fakeserver.NewTest(t, opts...)
	h := &harness{t: t, srv: srv, seed: seed, paths: map[string]int{}}
	h.clk = &fakeClock{srv: srv}
	ts := httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(ts.Close)
	c, err := client.New(seed.APIKey, client.WithBaseURL(ts.URL), client.WithHTTPClient(ts.Client()),
		client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 2, MinBackoff: time.Nanosecond, MaxBackoff: time.Nanosecond, MaxRetryAfter: -1}))
	if err != nil {
		t.Fatal(err)
	}
	h.c = c
	t.Cleanup(func() {
		for p, n := range h.requests() {
			if strings.HasSuffix(p, "/credits") {
				t.Errorf("%s was called %d times; the poller must never call it", p, n)
			}
		}
	})
	return h
}

func (h *harness) serve(w http.ResponseWriter, r *http.Request) {
	isList := r.Method == http.MethodGet && r.URL.Path == "/api/rest/v1/reports"
	h.mu.Lock()
	h.paths[r.Method+" "+r.URL.Path]++
	n := 0
	if isList {
		h.list++
		n = h.list
	}
	before, respond := h.beforeFn, h.respond
	h.mu.Unlock()
	if isList && before != nil {
		before(n)
	}
	if isList && respond != nil && respond(w, n) {
		return
	}
	h.srv.Handler().ServeHTTP(w, r)
}

// lists returns how many list requests reached the proxy.
func (h *harness) lists() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.list
}

func (h *harness) requests() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]int, len(h.paths))
	for k, v := range h.paths {
		out[k] = v
	}
	return out
}

// before sets the hook run before each list request is served.
func (h *harness) before(fn func(list int)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.beforeFn = fn
}

// advance moves the fake's clock. It reports failures with Errorf, since hooks call it from
// the proxy's goroutines, where Fatal is not allowed.
func (h *harness) advance(d time.Duration) {
	h.t.Helper()
	if _, err := h.srv.Advance(d); err != nil {
		h.t.Errorf("advance %s: %v", d, err)
	}
}

// seedReports creates reports completing after the given delays, oldest created first.
func (h *harness) seedReports(after ...time.Duration) []string {
	h.t.Helper()
	in := make([]fakeserver.SeededReport, len(after))
	for i, d := range after {
		in[i] = fakeserver.SeededReport{CompleteAfter: d}
	}
	ids, err := h.srv.SeedReports(h.seed.WorkspaceID, in)
	if err != nil {
		h.t.Fatal(err)
	}
	return ids
}

// newPoller makes a poller on the harness's client and clock, starting at the fake's now.
func (h *harness) newPoller(store poller.Store, opts ...poller.Option) *poller.Poller {
	h.t.Helper()
	if store == nil {
		store = poller.NewMemoryStore()
	}
	base := []poller.Option{poller.WithClock(h.clk), poller.WithStartTime(h.srv.Now())}
	p, err := poller.New(h.c, store, append(base, opts...)...)
	if err != nil {
		h.t.Fatal(err)
	}
	return p
}

// fakeClock is a poller.Clock on the fake's manual clock: sleeping advances the fake.
type fakeClock struct {
	srv *fakeserver.Server

	mu     sync.Mutex
	sleeps []time.Duration
	// onSleep, if set, runs after each sleep with the number of sleeps so far.
	onSleep func(n int)
}

func (c *fakeClock) Now() time.Time { return c.srv.Now() }

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	n, fn := len(c.sleeps), c.onSleep
	c.mu.Unlock()
	if _, err := c.srv.Advance(d); err != nil {
		return err
	}
	if fn != nil {
		fn(n)
	}
	return ctx.Err()
}

func (c *fakeClock) slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// recorder is a handler that counts deliveries per report.
type recorder struct {
	mu    sync.Mutex
	got   map[string]int
	order []string
	fail  func(c poller.Completion) error
}

func newRecorder() *recorder { return &recorder{got: map[string]int{}} }

func (r *recorder) handle(_ context.Context, c poller.Completion) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		if err := r.fail(c); err != nil {
			return err
		}
	}
	r.got[c.Item.ID]++
	r.order = append(r.order, c.Item.ID)
	return nil
}

// check fails the test unless exactly want were delivered, each once.
func (r *recorder) check(t *testing.T, want []string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	missing, twice := 0, 0
	for _, id := range want {
		switch n := r.got[id]; {
		case n == 0:
			missing++
		case n > 1:
			twice++
		}
	}
	if missing > 0 || twice > 0 || len(r.got) != len(want) {
		t.Fatalf("delivered %d distinct reports, want %d: %d missed, %d delivered more than once", len(r.got), len(want), missing, twice)
	}
}

func minutes(m ...float64) []time.Duration {
	out := make([]time.Duration, len(m))
	for i, v := range m {
		out[i] = time.Duration(v * float64(time.Minute))
	}
	return out
}
