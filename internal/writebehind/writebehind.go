// Package writebehind writes keys to a database behind their callers, in batches of one round
// trip each, for the shared de-duplication stores: a completion is queued, the caller goes on,
// and one goroutine writes whatever has queued meanwhile.
//
// The goroutine runs only while there is something to write, so an idle queue holds none and
// needs no Close; Flush waits for what was queued. A failed batch is reported (to the hook and
// to the next Flush) and dropped, not retried: the caller has gone on, and a completion that
// never lands costs what a failed synchronous one costs, the claim it replaces expiring.
package writebehind

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// DefaultMaxPending bounds the keys queued or being written; Add waits past it.
const DefaultMaxPending = 4096

// WriteTimeout bounds one batch's write: the callers have gone on, so no context of theirs
// applies.
const WriteTimeout = 10 * time.Second

// Queue is a write-behind queue of distinct keys. The zero value is not usable; use New.
type Queue struct {
	write   func(ctx context.Context, keys []string) error
	onError func(error)
	max     int

	mu      sync.Mutex
	pending map[string]struct{} // queued or being written
	queue   []string
	running bool
	added   uint64        // keys queued so far
	written uint64        // keys whose batch finished; batches finish in queue order
	space   chan struct{} // closed when a batch finishes, for Add and Flush to look again
	errs    []error       // failures since the last Flush, the first maxErrs of them
	dropped int           // failures past maxErrs
}

// maxErrs bounds the failures kept for Flush when nobody calls it.
const maxErrs = 16

// New returns a queue whose batches write calls with distinct keys. onError, if not nil, is
// called with each failed batch's error, from the writing goroutine.
func New(write func(ctx context.Context, keys []string) error, onError func(error), maxPending int) *Queue {
	if maxPending <= 0 {
		maxPending = DefaultMaxPending
	}
	return &Queue{write: write, onError: onError, max: maxPending, pending: make(map[string]struct{}), space: make(chan struct{})}
}

// Add queues key and returns; a key already queued or being written is not queued twice. With
// maxPending keys pending it waits for a batch to finish, or for ctx.
func (q *Queue) Add(ctx context.Context, key string) error {
	q.mu.Lock()
	for {
		if _, ok := q.pending[key]; ok {
			q.mu.Unlock()
			return nil
		}
		if len(q.pending) < q.max {
			break
		}
		if err := q.awaitBatch(ctx); err != nil {
			return err
		}
	}
	q.pending[key] = struct{}{}
	q.queue = append(q.queue, key)
	q.added++
	if !q.running {
		q.running = true
		go q.run()
	}
	q.mu.Unlock()
	return nil
}

// Pending reports whether key is queued or being written.
func (q *Queue) Pending(key string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	_, ok := q.pending[key]
	return ok
}

// Flush waits until every key queued before it is written (or its batch failed), or for ctx,
// and returns the failures since the previous Flush.
func (q *Queue) Flush(ctx context.Context) error {
	q.mu.Lock()
	target := q.added
	for q.written < target {
		if err := q.awaitBatch(ctx); err != nil {
			return err
		}
	}
	errs := q.errs
	if q.dropped > 0 {
		errs = append(errs, fmt.Errorf("and %d more failed batches", q.dropped))
	}
	q.errs, q.dropped = nil, 0
	q.mu.Unlock()
	return errors.Join(errs...)
}

// awaitBatch, called and returning with q.mu held, waits for the next batch to finish; on ctx's
// end it returns its cause with q.mu released.
func (q *Queue) awaitBatch(ctx context.Context) error {
	space := q.space
	q.mu.Unlock()
	select {
	case <-space:
		q.mu.Lock()
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (q *Queue) run() {
	for {
		q.mu.Lock()
		batch := q.queue
		q.queue = nil
		if len(batch) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()

		ctx, cancel := context.WithTimeout(context.Background(), WriteTimeout)
		err := q.write(ctx, batch)
		cancel()

		q.mu.Lock()
		for _, k := range batch {
			delete(q.pending, k)
		}
		q.written += uint64(len(batch))
		switch {
		case err == nil:
		case len(q.errs) < maxErrs:
			q.errs = append(q.errs, err)
		default:
			q.dropped++
		}
		close(q.space)
		q.space = make(chan struct{})
		q.mu.Unlock()
		if err != nil && q.onError != nil {
			q.onError(err)
		}
	}
}
