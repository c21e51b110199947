package core

import (
	"context"
	"runtime"
	"sync"
)

// analysisPool runs measurements off the clock's goroutine when the clock is real: one long
// analysis must not hold back every other timer (webhook retries, other reports, rate-limit
// windows). At most size measurements run at once; the rest wait for a slot. On a manual clock
// the pool is not used: measurements run inside Advance, so results stay deterministic and
// Advance returns only once the work due by the new instant is done.
type analysisPool struct {
	sem    chan struct{}
	wg     sync.WaitGroup
	ctx    context.Context
	cancel context.CancelFunc
}

func newAnalysisPool() *analysisPool {
	ctx, cancel := context.WithCancel(context.Background())
	return &analysisPool{sem: make(chan struct{}, max(2, runtime.GOMAXPROCS(0))), ctx: ctx, cancel: cancel}
}

// run starts fn once a slot is free; fn is dropped when the pool closes before it starts.
func (p *analysisPool) run(fn func()) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		select {
		case p.sem <- struct{}{}:
		case <-p.ctx.Done():
			return
		}
		defer func() { <-p.sem }()
		fn()
	}()
}

// close cancels the measurements' context and waits for those running to return.
func (p *analysisPool) close() {
	p.cancel()
	p.wg.Wait()
}

// Close stops the core's background analyses: their context is cancelled and Close waits for
// them to return. Call it after stopping the clock.
func (c *Core) Close() { c.analyses.close() }
