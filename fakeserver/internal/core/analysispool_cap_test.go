package core

import (
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
