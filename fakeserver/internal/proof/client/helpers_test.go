package clientproof_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
)

// fakeClock is the client's clock in these tests: sleeps are recorded and move the clock, never
// the wall clock.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	sleeps []time.Duration
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sleeps = append(f.sleeps, d)
	f.t = f.t.Add(d)
	return ctx.Err()
}

// Sleeps returns the pauses slept so far.
func (f *fakeClock) Sleeps() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.sleeps...)
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)}
}

// tinyPolicy retries quickly; with a fakeClock nothing is slept anyway.
var tinyPolicy = client.RetryPolicy{MaxAttempts: 4, MinBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond, MaxRetryAfter: time.Minute}

// newTestClient returns a client of key for baseURL with tinyPolicy and a fake clock; opts come
// after the defaults and can override them (all but the clock).
func newTestClient(t testing.TB, baseURL, key string, opts ...client.Option) (*client.Client, *fakeClock) {
	t.Helper()
	clk := newFakeClock()
	all := append([]client.Option{client.WithBaseURL(baseURL), client.WithRetryPolicy(tinyPolicy)}, opts...)
	c, err := client.New(key, append(all, client.WithClock(clk))...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, clk
}
