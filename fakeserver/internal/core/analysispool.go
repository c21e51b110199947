package core

import (
	"context"
	"runtime"
	"sync"

	"github.com/google/uuid"
)

// analysisPool runs measurements off the clock's goroutine when the clock is real: one long
// analysis must not hold back every other timer (webhook retries, other reports, rate-limit
// windows). At most size measurements run at once; the rest wait in one queue per workspace.
// Slots are handed out round-robin between the workspaces that wait, and one workspace holds
// at most one of them, so one workspace never holds a second slot while another waits: its
// slow analyses (long files, files up to the ceilings) cannot starve another's, whose next
// measurement starts at once when a slot is free, or as soon as any slot frees. One analysis
// already decodes on every core (the segment pipelines), so one workspace's queue loses
// little by running one at a time. On a manual
// clock the pool is not used: measurements run inside Advance, so results stay deterministic
// and Advance returns only once the work due by the new instant is done.
type analysisPool struct {
	size, perWorkspace int

	mu      sync.Mutex
	running map[uuid.UUID]int      // measurements running, by workspace
	queued  map[uuid.UUID][]func() // measurements waiting, by workspace
	turn    []uuid.UUID            // workspaces with queued measurements, in round-robin order
	busy    int

	wg sync.WaitGroup
	// ctx, the measurements' context, and the maps above are made by the first measurement
	// (most fakes measure nothing); closed, set by close, makes a later ctx a cancelled one.
	ctx    context.Context
	cancel context.CancelFunc
	closed bool
}

func newAnalysisPool() *analysisPool { return newAnalysisPoolSize(max(2, runtime.GOMAXPROCS(0))) }

func newAnalysisPoolSize(size int) *analysisPool {
	return &analysisPool{size: size, perWorkspace: 1}
}

// startLocked makes the pool's context and maps on first use.
func (p *analysisPool) startLocked() {
	if p.ctx != nil {
		return
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.running, p.queued = map[uuid.UUID]int{}, map[uuid.UUID][]func(){}
	if p.closed {
		p.cancel()
	}
}

// context is the measurements' context, which close cancels.
func (p *analysisPool) context() context.Context {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.startLocked()
	return p.ctx
}

// run queues fn for workspace ws and starts it once a slot is free and it is ws's turn; fn is
// dropped when the pool closes before it starts.
func (p *analysisPool) run(ws uuid.UUID, fn func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.startLocked()
	if p.ctx.Err() != nil {
		return
	}
	if len(p.queued[ws]) == 0 {
		p.turn = append(p.turn, ws)
	}
	p.queued[ws] = append(p.queued[ws], fn)
	p.dispatchLocked()
}

// dispatchLocked starts queued measurements while slots are free, taking workspaces in turn and
// skipping one that holds its share of the slots.
func (p *analysisPool) dispatchLocked() {
	for p.busy < p.size && p.ctx.Err() == nil {
		i := 0
		for i < len(p.turn) && p.running[p.turn[i]] >= p.perWorkspace {
			i++
		}
		if i == len(p.turn) {
			return
		}
		ws := p.turn[i]
		q := p.queued[ws]
		fn := q[0]
		q[0] = nil
		p.turn = append(p.turn[:i], p.turn[i+1:]...)
		if len(q) > 1 {
			p.queued[ws] = q[1:]
			p.turn = append(p.turn, ws) // back of the line
		} else {
			delete(p.queued, ws)
		}
		p.busy++
		p.running[ws]++
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			fn()
			p.mu.Lock()
			defer p.mu.Unlock()
			p.busy--
			if p.running[ws]--; p.running[ws] == 0 {
				delete(p.running, ws)
			}
			p.dispatchLocked()
		}()
	}
}

// close cancels the measurements' context, drops those not started and waits for those running
// to return.
func (p *analysisPool) close() {
	p.mu.Lock()
	p.closed = true
	if p.cancel != nil {
		p.cancel()
	}
	p.queued, p.turn = nil, nil
	p.mu.Unlock()
	p.wg.Wait()
}

// Close stops the core's background analyses: their context is cancelled and Close waits for
// them to return. Call it after stopping the clock.
func (c *Core) Close() { c.analyses.close() }
