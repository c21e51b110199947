package core

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
)

// TestAnalysisPoolCapsMeasurementsAtOnce: however many workspaces queue measurements, at most
// the pool's size run at once, and every queued one runs once slots free.
func TestAnalysisPoolCapsMeasurementsAtOnce(t *testing.T) {
	t.Parallel()
	const size, workspaces, each = 3, 4, 5
	p := newAnalysisPoolSize(size)
	var running, most atomic.Int64
	var done sync.WaitGroup
	started := make(chan struct{}, workspaces*each)
	release := make(chan struct{})
	for range workspaces {
		ws := uuid.New()
		for range each {
			done.Add(1)
			p.run(ws, func() {
				defer done.Done()
				n := running.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				started <- struct{}{}
				<-release
				running.Add(-1)
			})
		}
	}
	for range size {
		<-started
	}
	if got := running.Load(); got != size {
		t.Errorf("%d measurements running once %d had started", got, size)
	}
	close(release)
	done.Wait()
	p.close()
	if got := most.Load(); got > size {
		t.Fatalf("%d measurements ran at once, more than %d", got, size)
	}
	if got := len(started); got != workspaces*each-size {
		t.Fatalf("%d of %d measurements ran", got+size, workspaces*each)
	}
}

// TestAnalysisPoolOneSlotPerWorkspace: with slots to spare, a workspace with many queued
// measurements still holds one slot; every other workspace that queues gets one at once while
// slots are free, and once all are taken, the next freed slot goes to a waiting workspace that
// holds none, never to one already running. Measurements block on the test until released, so
// the slots held are read from the pool itself, not from timing.
func TestAnalysisPoolOneSlotPerWorkspace(t *testing.T) {
	t.Parallel()
	p := newAnalysisPoolSize(3)
	t.Cleanup(p.close)
	held := func() map[uuid.UUID]int {
		p.mu.Lock()
		defer p.mu.Unlock()
		out := map[uuid.UUID]int{}
		for ws, n := range p.running {
			out[ws] = n
		}
		return out
	}
	release := map[uuid.UUID]chan struct{}{}
	// Run before p.close (cleanups run last first), so that a failing test ends too.
	t.Cleanup(func() {
		for _, r := range release {
			close(r)
		}
	})
	block := func(ws uuid.UUID) {
		if release[ws] == nil {
			release[ws] = make(chan struct{}, 8)
		}
		r := release[ws]
		p.run(ws, func() { <-r })
	}
	a, b, c, d := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	for range 4 {
		block(a) // a's queue: one runs, three wait although two slots are free
	}
	if got := held(); got[a] != 1 || len(got) != 1 {
		t.Fatalf("slots held %v, want a on one (size 3, nobody else waiting)", got)
	}
	block(b)
	block(c)
	block(d) // all three slots are taken: d waits
	if got := held(); got[a] != 1 || got[b] != 1 || got[c] != 1 || got[d] != 0 {
		t.Fatalf("slots held %v, want one each for a, b and c", got)
	}
	// a's measurement ends: a's turn came before d's (round robin, a queued first), so a runs
	// its next; it still holds one slot while d waits.
	release[a] <- struct{}{}
	waitFor(t, func() bool { m := held(); return m[a] == 1 && len(m) == 3 && p.busyNow() == 3 })
	if got := held(); got[d] != 0 {
		t.Fatalf("slots held %v, want d still waiting", got)
	}
	// b's ends: the slot goes to d, not to a's queue, though a queued before d.
	release[b] <- struct{}{}
	waitFor(t, func() bool { return held()[d] == 1 })
	if got := held(); got[a] != 1 || got[b] != 0 || got[c] != 1 || got[d] != 1 {
		t.Fatalf("slots held %v, want a, c and d on one each", got)
	}
}

// busyNow is how many slots are taken.
func (p *analysisPool) busyNow() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.busy
}

// waitFor waits until cond holds, yielding between looks; the pool's goroutines hand slots on
// when a measurement returns, off the test's goroutine. The bound counts looks, not time.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 1_000_000 {
		if cond() {
			return
		}
		runtime.Gosched()
	}
	t.Fatal("the pool never reached the state")
}
