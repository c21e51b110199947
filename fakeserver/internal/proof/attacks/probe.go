package main

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// perKeyMinute is how many requests the harness sends on one key a minute: under the
// service's 100 a minute, so that the attack and the probe meet no 429 of their own making.
const perKeyMinute = 90

// keysFor is how many keys spread n requests a minute under perKeyMinute each.
func keysFor(perMinute float64) int {
	return max(1, int(math.Ceil(perMinute/perKeyMinute)))
}

// probe is another tenant asking GET /me at a steady pace, one request at a time, recording
// each answer's latency under the phase of the moment ("baseline" before the attack, "attack"
// while it runs).
type probe struct {
	f     *fake
	keys  []string
	every time.Duration

	phase atomic.Pointer[string]
	mu    sync.Mutex
	took  map[string][]time.Duration
	other map[string]int // answers that were not 200, by phase and status
}

// newProbe makes the probing tenant with enough keys for its pace.
func newProbe(ctx context.Context, f *fake, every time.Duration) (*probe, error) {
	t, err := f.newTenant(ctx, "probe", keysFor(float64(time.Minute)/float64(every)))
	if err != nil {
		return nil, err
	}
	p := &probe{f: f, keys: t.Keys, every: every, took: map[string][]time.Duration{}, other: map[string]int{}}
	p.set("baseline")
	return p, nil
}

func (p *probe) set(phase string) { p.phase.Store(&phase) }

// run probes until ctx ends.
func (p *probe) run(ctx context.Context) {
	tick := time.NewTicker(p.every)
	defer tick.Stop()
	for i := 0; ; i++ {
		phase := *p.phase.Load()
		a := p.f.do(ctx, p.f.newRequest("GET", "/api/rest/v1/me", p.keys[i%len(p.keys)], nil), false)
		if ctx.Err() != nil {
			return
		}
		p.mu.Lock()
		if a.Status == http.StatusOK {
			p.took[phase] = append(p.took[phase], a.Took)
		} else {
			p.other[fmt.Sprintf("%s %d", phase, a.Status)]++
		}
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// start runs the probe until the returned stop is called, and stop returns its summary.
func (p *probe) start(ctx context.Context) (stop func() map[string]any) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); p.run(ctx) }()
	return func() map[string]any {
		cancel()
		<-done
		return p.summary()
	}
}

// summary is each phase's request count and p50/p99 in milliseconds, and the other answers.
func (p *probe) summary() map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]any{}
	for phase, d := range p.took {
		out[phase] = percentiles(d)
	}
	if len(p.other) > 0 {
		out["not_200"] = p.other
	}
	return out
}

// latency is the p50 and p99 of a set of request latencies, with how many there were.
type latency struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

// percentiles is the nearest-rank p50 and p99 of d.
func percentiles(d []time.Duration) latency {
	if len(d) == 0 {
		return latency{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	rank := func(q float64) time.Duration { return s[int(math.Ceil(q*float64(len(s))))-1] }
	ms := func(x time.Duration) float64 { return math.Round(float64(x)/1e4) / 100 }
	return latency{N: len(s), P50: ms(rank(0.50)), P99: ms(rank(0.99)), Max: ms(s[len(s)-1])}
}
