package core

// Current is p as the current state knows it (principalLocked): for an operation that reads
// only the principal itself (GraphQL's user and currentApiKey), so that one admitted before a
// reset is answered as the new state would answer it, its credential refused if the new state
// does not hold it, never from the state it was admitted against.
func (c *Core) Current(p Principal) (Principal, error) {
	c.mu.Lock() // readmitting may record the key's use
	defer c.mu.Unlock()
	q, _, err := c.principalLocked(p, c.clock.Now())
	return q, err
}
