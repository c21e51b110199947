// Package clock is the fake's source of time and its scheduler.
//
// Every time rule of the fake (analysis progress, rate-limit windows, expiries, feed checks,
// webhook retries, last_used_at) reads a Clock, so a test can move time on command. A real clock
// follows the wall clock and fires tasks from a timer; a manual clock stands still until Advance,
// which runs every task that falls due in the span in time order, each at its own instant.
package clock

import (
	"container/heap"
	"errors"
	"sync"
	"time"
)

// ErrNotManual is returned by Advance and Set on a clock that follows the wall clock.
var ErrNotManual = errors.New("clock: the fake runs on the real clock; start it with a manual clock to move time")

// ErrBackwards is returned by Set for an instant before the clock's current time.
var ErrBackwards = errors.New("clock: time cannot move backwards")

// Clock tells the time and runs scheduled tasks when their instant comes.
type Clock struct {
	manual bool

	mu      sync.Mutex
	now     time.Time // manual clocks only
	tasks   taskHeap
	seq     uint64
	wake    chan struct{}
	done    chan struct{}
	stopped bool

	// advancing serialises Advance calls so tasks run in one time order.
	advancing sync.Mutex
	wg        sync.WaitGroup
}

// NewManual returns a clock that starts at start and moves only through Advance and Set.
func NewManual(start time.Time) *Clock {
	return &Clock{manual: true, now: start.UTC()}
}

// NewReal returns a clock that follows the wall clock and runs tasks from a background goroutine
// until Close.
func NewReal() *Clock {
	c := &Clock{wake: make(chan struct{}, 1), done: make(chan struct{})}
	c.wg.Add(1)
	go c.loop()
	return c
}

// Manual reports whether the clock moves only on command.
func (c *Clock) Manual() bool { return c.manual }

// Now returns the clock's current instant in UTC.
func (c *Clock) Now() time.Time {
	if !c.manual {
		return time.Now().UTC()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Task is a handle on a scheduled function.
type Task struct {
	c *Clock
	t *task
}

// Cancel stops the task from running if it has not started yet. It reports whether it stopped it.
func (t Task) Cancel() bool {
	if t.c == nil {
		return false
	}
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.t.index < 0 {
		return false
	}
	heap.Remove(&t.c.tasks, t.t.index)
	return true
}

// At schedules fn to run at instant at (at once, on the next tick, when at is not in the future).
// Tasks due at the same instant run in the order they were scheduled. fn runs without any clock
// lock held, so it may read the clock and schedule further tasks.
func (c *Clock) At(at time.Time, fn func(now time.Time)) Task {
	c.mu.Lock()
	c.seq++
	t := &task{at: at.UTC(), seq: c.seq, fn: fn}
	heap.Push(&c.tasks, t)
	c.mu.Unlock()
	c.poke()
	return Task{c: c, t: t}
}

// After schedules fn to run d after the current instant.
func (c *Clock) After(d time.Duration, fn func(now time.Time)) Task {
	return c.At(c.Now().Add(d), fn)
}

// Advance moves a manual clock forward by d, running every task that falls due up to and
// including the new instant in time order; the clock reads each task's instant while it runs.
// It returns the new instant.
func (c *Clock) Advance(d time.Duration) (time.Time, error) {
	if !c.manual {
		return time.Time{}, ErrNotManual
	}
	if d < 0 {
		return time.Time{}, ErrBackwards
	}
	c.advancing.Lock()
	defer c.advancing.Unlock()
	target := c.Now().Add(d)
	return c.runUntil(target), nil
}

// Set moves a manual clock forward to instant to, like Advance.
func (c *Clock) Set(to time.Time) (time.Time, error) {
	if !c.manual {
		return time.Time{}, ErrNotManual
	}
	c.advancing.Lock()
	defer c.advancing.Unlock()
	if to.Before(c.Now()) {
		return time.Time{}, ErrBackwards
	}
	return c.runUntil(to.UTC()), nil
}

// RunDue runs the tasks due at the current instant of a manual clock without moving it.
func (c *Clock) RunDue() {
	if !c.manual {
		return
	}
	c.advancing.Lock()
	defer c.advancing.Unlock()
	c.runUntil(c.Now())
}

func (c *Clock) runUntil(target time.Time) time.Time {
	for {
		c.mu.Lock()
		if len(c.tasks) == 0 || c.tasks[0].at.After(target) {
			c.now = target
			c.mu.Unlock()
			return target
		}
		t := heap.Pop(&c.tasks).(*task)
		if t.at.After(c.now) {
			c.now = t.at
		}
		now := c.now
		c.mu.Unlock()
		t.fn(now)
	}
}

// Pending returns how many tasks wait to run.
func (c *Clock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.tasks)
}

// Close stops a real clock's background goroutine; tasks not yet run are dropped.
func (c *Clock) Close() {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return
	}
	c.stopped = true
	for _, t := range c.tasks {
		t.index = -1
	}
	c.tasks = nil
	c.mu.Unlock()
	if c.done != nil {
		close(c.done)
	}
	c.wg.Wait()
}

func (c *Clock) poke() {
	if c.wake == nil {
		return
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *Clock) loop() {
	defer c.wg.Done()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		c.mu.Lock()
		wait := time.Hour
		var due *task
		if len(c.tasks) > 0 {
			if d := time.Until(c.tasks[0].at); d <= 0 {
				due = heap.Pop(&c.tasks).(*task)
			} else {
				wait = d
			}
		}
		c.mu.Unlock()
		if due != nil {
			// Held like Advance holds it, so that Hold waits for a running task.
			c.advancing.Lock()
			due.fn(time.Now().UTC())
			c.advancing.Unlock()
			continue
		}
		timer.Reset(wait)
		select {
		case <-c.done:
			return
		case <-c.wake:
			// Since Go 1.23 Reset discards a stale tick, so no drain is needed.
		case <-timer.C:
		}
	}
}

type task struct {
	at    time.Time
	seq   uint64
	fn    func(time.Time)
	index int
}

type taskHeap []*task

func (h taskHeap) Len() int { return len(h) }
func (h taskHeap) Less(i, j int) bool {
	if h[i].at.Equal(h[j].at) {
		return h[i].seq < h[j].seq
	}
	return h[i].at.Before(h[j].at)
}
func (h taskHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *taskHeap) Push(x any) {
	t := x.(*task)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *taskHeap) Pop() any {
	old := *h
	n := len(old)
	t := old[n-1]
	old[n-1] = nil
	t.index = -1
	*h = old[:n-1]
	return t
}
