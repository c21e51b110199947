package clock

import "time"

// Hold runs fn while no task runs and no Advance or Set moves the clock: it waits for a running
// task to return and keeps the next from starting until fn returns. fn must not call Advance,
// Set or RunDue.
func (c *Clock) Hold(fn func()) {
	c.advancing.Lock()
	defer c.advancing.Unlock()
	fn()
}

// Clear drops every task not yet started and puts a manual clock back at start (a real clock
// keeps following the wall clock). Call it inside Hold so that no task is running meanwhile.
func (c *Clock) Clear(start time.Time) {
	c.mu.Lock()
	for _, t := range c.tasks {
		t.index = -1
	}
	c.tasks = nil
	if c.manual {
		c.now = start.UTC()
	}
	c.mu.Unlock()
	c.poke()
}
