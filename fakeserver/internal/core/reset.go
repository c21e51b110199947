package core

import (
	"crypto/sha256"
	"time"

	"github.com/google/uuid"
)

// Reset empties the core: every workspace, account, key, session, show, report, reservation,
// custom standard, endpoint, delivery, email, tracked feed and rate-limit window goes, and the
// clock's pending tasks with them; a manual clock goes back to start. Work in flight when it
// runs (a measurement on a real clock, a webhook attempt) finds on return that its report or
// delivery belongs to an older generation and records nothing, so nothing of the old state
// leaks into the new one.
func (c *Core) Reset(start time.Time) {
	c.clock.Hold(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.clock.Clear(start)
		c.gen++
		c.initStateLocked()
	})
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
	c.held = 0 // the uploads held went with the reservations and reports
	c.accounts = map[uuid.UUID]*Account{}
	c.workspaces = map[uuid.UUID]*Workspace{}
	c.keys = map[uuid.UUID]*APIKey{}
	c.keyDigests = map[[sha256.Size]byte]uuid.UUID{}
	c.sessions = map[[sha256.Size]byte]uuid.UUID{}
	c.wh = webhookState{cfg: c.wh.cfg}
	c.wh.init()
	c.limits.mu.Lock()
	c.limits.windows, c.limits.nextSweep = nil, time.Time{}
	c.limits.mu.Unlock()
}
