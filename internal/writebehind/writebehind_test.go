package writebehind

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// gatedWriter records batches and holds each until the test lets it finish.
type gatedWriter struct {
	mu      sync.Mutex
	batches [][]string
	started chan []string // each batch as it starts
	finish  chan error    // what the held batch returns
}

func newGatedWriter() *gatedWriter {
	return &gatedWriter{started: make(chan []string, 100), finish: make(chan error)}
}

func (w *gatedWriter) write(_ context.Context, keys []string) error {
	w.mu.Lock()
	w.batches = append(w.batches, slices.Clone(keys))
	w.mu.Unlock()
	w.started <- slices.Clone(keys)
	return <-w.finish
}

func TestBatchesAndPending(t *testing.T) {
	t.Parallel()
	w := newGatedWriter()
	q := New(w.write, nil, 0)
	ctx := context.Background()
	if err := q.Add(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if got := <-w.started; !slices.Equal(got, []string{"a"}) {
		t.Fatalf("first batch %v", got)
	}
	// While "a" is written, more queue up: "a" again is not queued twice.
	for _, k := range []string{"b", "a", "c", "b"} {
		if err := q.Add(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"a", "b", "c"} {
		if !q.Pending(k) {
			t.Fatalf("%q not pending", k)
		}
	}
	w.finish <- nil
	if got := <-w.started; !slices.Equal(got, []string{"b", "c"}) {
		t.Fatalf("second batch %v, want [b c]", got)
	}
	if q.Pending("a") || !q.Pending("b") {
		t.Fatal("a written batch's keys must leave pending, and only those")
	}
	w.finish <- nil
	if err := q.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if q.Pending("b") || q.Pending("c") {
		t.Fatal("pending after Flush")
	}
	q.mu.Lock()
	running := q.running
	q.mu.Unlock()
	if running {
		t.Fatal("the writer still runs with nothing to write")
	}
}

func TestFailuresReachFlushAndHook(t *testing.T) {
	t.Parallel()
	w := newGatedWriter()
	hooked := make(chan error, maxErrs+3)
	q := New(w.write, func(err error) { hooked <- err }, 0)
	ctx := context.Background()
	boom := errors.New("server down")
	for i := range maxErrs + 3 {
		if err := q.Add(ctx, fmt.Sprint("k", i)); err != nil {
			t.Fatal(err)
		}
		<-w.started
		w.finish <- fmt.Errorf("batch %d: %w", i, boom)
	}
	err := q.Flush(ctx)
	if !errors.Is(err, boom) {
		t.Fatalf("Flush = %v, want the failures", err)
	}
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != maxErrs+1 {
		t.Fatalf("Flush joined %v, want %d kept failures and a count of the rest", err, maxErrs)
	}
	for range maxErrs + 3 { // the hook sees every failure, kept or not
		if err := <-hooked; !errors.Is(err, boom) {
			t.Fatalf("hook got %v", err)
		}
	}
	if err := q.Flush(ctx); err != nil {
		t.Fatalf("second Flush = %v, want the failures reported once", err)
	}
}

func TestAddWaitsPastMax(t *testing.T) {
	t.Parallel()
	w := newGatedWriter()
	q := New(w.write, nil, 2)
	ctx := context.Background()
	for _, k := range []string{"a", "b"} {
		if err := q.Add(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	<-w.started // "a", or "a" and "b"

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := q.Add(canceled, "c"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Add past the bound with a canceled context = %v", err)
	}
	if q.Pending("c") {
		t.Fatal("a refused Add queued its key")
	}

	added := make(chan error)
	go func() { added <- q.Add(ctx, "c") }()
	w.finish <- nil // frees room
	if err := <-added; err != nil {
		t.Fatal(err)
	}
	// Let every remaining batch through.
	done := make(chan error)
	go func() { done <- q.Flush(ctx) }()
	for {
		select {
		case <-w.started:
		case w.finish <- nil:
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			w.mu.Lock()
			defer w.mu.Unlock()
			for _, b := range w.batches {
				all = append(all, b...)
			}
			slices.Sort(all)
			if !slices.Equal(all, []string{"a", "b", "c"}) {
				t.Fatalf("written %v", all)
			}
			return
		}
	}
}

func TestFlushHonoursContext(t *testing.T) {
	t.Parallel()
	w := newGatedWriter()
	q := New(w.write, nil, 0)
	if err := q.Add(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	<-w.started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := q.Flush(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Flush = %v, want canceled", err)
	}
	w.finish <- nil
	if err := q.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}
