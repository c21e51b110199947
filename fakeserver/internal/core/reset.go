package core

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
	"github.com/podqa/podqa-go/fakeserver/internal/seeded"
)

// Reset empties the core: every workspace, account, key, session, show, report, reservation,
// custom standard, endpoint, delivery, email, tracked feed and rate-limit window goes, and the
// clock's pending tasks with them; a manual clock goes back to start. Work in flight when it
// runs (a measurement on a real clock, a webhook attempt) finds on return that its report or
// delivery belongs to an older generation and records nothing, so nothing of the old state
// leaks into the new one.
func (c *Core) Reset(start time.Time) {
	// An empty staged core schedules nothing, so Adopt cannot refuse it.
	_ = c.Adopt(c.Stage(start, c.rand), start, nil)
}

// Stage returns an empty core to build a start state in (fixtures, the Demo workspace) while c
// goes on serving its own, for Adopt to swap in whole: requests then see the old state or the
// new, never a state half rebuilt. The staged core shares c's configuration (dependencies,
// standards, webhook wiring, analysis pool, upload budget, rate-limit switch) and mints ids
// from src. Its clock is a manual one standing at start (at c's present instant when c
// follows the wall clock), so that the new state's times are the start's; nothing built there
// may schedule work, since such work would belong to the staged core. Only Adopt may use it
// once built.
func (c *Core) Stage(start time.Time, src *seeded.Source) *Core {
	at := start
	if !c.clock.Manual() {
		at = c.clock.Now()
	}
	n := &Core{clock: clock.NewManual(at), deps: c.deps, rand: src, analyses: c.analyses, standards: c.standards, inflight: newInflight()}
	c.mu.RLock()
	n.heldBudget, n.heldShare, n.wh.cfg = c.heldBudget, c.heldShare, c.wh.cfg
	n.claimedBy, n.uploadNow = map[uuid.UUID]int64{}, c.uploadNow
	c.mu.RUnlock()
	n.limits.off = c.limits.off
	n.initStateLocked()
	return n
}

// Adopt makes the state built in n (from Stage) c's in one change, under c's lock and while no
// clock task runs: the clock's pending tasks go, a manual clock goes back to start, and the
// generation moves on, so that work in flight from the old state (a measurement, a webhook
// attempt, an upload's body) records nothing into the new one, and a request admitted against
// the old state is admitted again by the new one (principalLocked). The old state's webhook
// attempts still on the wire are cancelled, and Adopt returns once they have returned. also,
// when not nil, runs within the same change, for the state kept beside the core (hosted feeds,
// the journal).
//
// The held upload bytes become those of the uploads still being read: their buffers exist
// until the read ends, whichever state they were claimed in.
func (c *Core) Adopt(n *Core, start time.Time, also func()) error {
	if p := n.clock.Pending(); p > 0 {
		return fmt.Errorf("core: the staged state scheduled %d tasks, which would not run", p)
	}
	var old *inflight
	c.clock.Hold(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.clock.Clear(start)
		c.gen++
		old, c.inflight = c.inflight, newInflight()
		n.mu.Lock()
		c.adoptLocked(n)
		n.mu.Unlock()
		if also != nil {
			also()
		}
	})
	// The old state's attempts still on the wire (a real clock's, to slow receivers) are
	// cancelled and waited for, outside the lock they record under: none outlives its state.
	old.end()
	return nil
}

// adoptLocked takes every piece of n's state; the webhook wiring stays c's.
func (c *Core) adoptLocked(n *Core) {
	c.stds = n.stds
	c.catalogs = n.catalogs
	c.series = n.series
	c.episodes = n.episodes
	c.reports = n.reports
	c.reportIdx = n.reportIdx
	c.reportSeq = n.reportSeq
	c.ledgers = n.ledgers
	c.reservations = n.reservations
	c.held = c.claimed // the uploads held went with the reservations and reports
	c.heldBy = maps.Clone(c.claimedBy)
	c.accounts = n.accounts
	c.workspaces = n.workspaces
	c.wsOrder = n.wsOrder
	c.keys = n.keys
	c.keyDigests = n.keyDigests
	c.sessions = n.sessions
	cfg := c.wh.cfg
	c.wh = n.wh
	c.wh.cfg = cfg
	c.limits.mu.Lock()
	c.limits.windows, c.limits.nextSweep = nil, time.Time{}
	c.limits.mu.Unlock()
}

// initStateLocked sets every piece of state to empty; the webhook wiring stays.
func (c *Core) initStateLocked() {
	c.stds = newStandardState()
	c.catalogs = map[uuid.UUID]*catalog{}
	c.series = map[uuid.UUID]*Series{}
	c.episodes = map[uuid.UUID]*Episode{}
	c.reports = map[uuid.UUID]*Report{}
	c.reportIdx = map[uuid.UUID]*reportIndex{}
	c.reportSeq = 0
	c.ledgers = map[uuid.UUID]*ledger{}
	c.reservations = map[uuid.UUID]*Reservation{}
	c.held = c.claimed
	c.heldBy = maps.Clone(c.claimedBy)
	c.accounts = map[uuid.UUID]*Account{}
	c.workspaces = map[uuid.UUID]*Workspace{}
	c.wsOrder = nil
	c.keys = map[uuid.UUID]*APIKey{}
	c.keyDigests = map[[sha256.Size]byte]uuid.UUID{}
	c.sessions = map[[sha256.Size]byte]uuid.UUID{}
	c.wh = webhookState{cfg: c.wh.cfg}
	c.wh.init()
	c.limits.mu.Lock()
	c.limits.windows, c.limits.nextSweep = nil, time.Time{}
	c.limits.mu.Unlock()
}
