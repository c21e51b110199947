package core

import (
	"context"
	"sync"
)

// inflight is the webhook attempts one state has on the wire, off the clock's goroutine (a
// real clock's dispatches and retry sweeps): a reset ends them and waits for them to go, so
// that nothing of an old state (its goroutines, the deliveries and bodies they hold) outlives
// it however slow its receivers are. A manual clock's attempts run inside Advance, which a
// reset waits for anyway.
type inflight struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newInflight() *inflight {
	ctx, cancel := context.WithCancel(context.Background())
	return &inflight{ctx: ctx, cancel: cancel}
}

// startLocked counts one more batch of attempts of the current state; the caller holds the
// core's lock, so that a reset either comes after it (and waits for the batch) or before it.
func (c *Core) startLocked() *inflight {
	w := c.inflight
	w.wg.Add(1)
	return w
}

// end cancels every attempt of the state w belongs to and waits for them to return; the
// caller holds no lock of the core's (the attempts record their outcomes under it).
func (w *inflight) end() {
	w.cancel()
	w.wg.Wait()
}
