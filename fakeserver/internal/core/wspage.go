package core

import (
	"sort"

	"github.com/google/uuid"
)

// WorkspacePage is one page of every workspace of the fake, oldest first: the limit
// workspaces created after the workspace after (nil: from the first), and whether more
// follow. A page costs what it holds (a binary search and a copy), however many workspaces
// there are. An after that names no workspace of this state (a reset ends every cursor) is not
// found.
func (c *Core) WorkspacePage(after *uuid.UUID, limit int) ([]Workspace, bool, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	start := 0
	if after != nil {
		ws := c.workspaces[*after]
		if ws == nil {
			return nil, false, errorf(CodeNotFound, "The cursor names no workspace of this state: a reset ends every cursor; start again without one.")
		}
		start = sort.Search(len(c.wsOrder), func(i int) bool { return c.wsOrder[i].seq > ws.seq })
	}
	end := min(start+max(limit, 0), len(c.wsOrder))
	out := make([]Workspace, 0, end-start)
	for _, ws := range c.wsOrder[start:end] {
		out = append(out, cloneWorkspace(ws))
	}
	return out, end < len(c.wsOrder), nil
}

// WorkspacesAfter is the ids of at most limit workspaces created after after (nil: from the
// first), oldest first, for listings that walk the workspaces in turn.
func (c *Core) WorkspacesAfter(after *uuid.UUID, limit int) []uuid.UUID {
	c.mu.RLock()
	defer c.mu.RUnlock()
	start := 0
	if after != nil {
		if ws := c.workspaces[*after]; ws != nil {
			start = sort.Search(len(c.wsOrder), func(i int) bool { return c.wsOrder[i].seq > ws.seq })
		} else {
			return nil
		}
	}
	end := min(start+max(limit, 0), len(c.wsOrder))
	out := make([]uuid.UUID, 0, end-start)
	for _, ws := range c.wsOrder[start:end] {
		out = append(out, ws.ID)
	}
	return out
}

// ListVisits is how many reports the listings' walks have read since the core began: tests
// bound a page's work by it.
func (c *Core) ListVisits() uint64 { return c.listVisits.Load() }
