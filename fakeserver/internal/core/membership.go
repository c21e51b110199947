package core

import (
	"cmp"
	"slices"

	"github.com/google/uuid"
)

// This file holds the membership rule: which workspaces an account acts in and whose shows
// and reports a caller may see. GraphQL chooses its workspace per request by it.

// Belongs reports whether account may act in workspace: its own personal workspace, or an
// organisation it owns. (The fake has no plain members: everyone in an organisation is an
// owner, who sees every show.)
func (c *Core) Belongs(account, workspace uuid.UUID) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.belongsLocked(account, workspace)
}

func (c *Core) belongsLocked(account, workspace uuid.UUID) bool {
	ws, ok := c.workspaces[workspace]
	return ok && slices.Contains(ws.Owners, account)
}

// CanSee reports whether p may see the shows and reports of workspace (their report ids, verdicts
// and history): p acts in it, or p's account belongs to it. An anonymous caller sees none.
func (c *Core) CanSee(p Principal, workspace uuid.UUID) bool {
	if p.Account.ID == uuid.Nil {
		return false
	}
	if workspace == p.Workspace.ID {
		return true
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.belongsLocked(p.Account.ID, workspace)
}

// Organisations lists the organisations account belongs to, by name (then id).
func (c *Core) Organisations(account uuid.UUID) []Workspace {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []Workspace
	for _, ws := range c.workspaces {
		if ws.Type == Organisation && slices.Contains(ws.Owners, account) {
			out = append(out, cloneWorkspace(ws))
		}
	}
	slices.SortFunc(out, func(a, b Workspace) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID.String(), b.ID.String()))
	})
	return out
}

// ActAs returns p acting in workspace instead of its own, keeping its account and key. The
// caller has checked that p's account belongs to it; a reset since p was admitted has p
// admitted again (see principalLocked), and then its account must still belong to workspace.
func (c *Core) ActAs(p Principal, workspace uuid.UUID) (Principal, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if p.gen != c.gen {
		q, _, err := c.principalLocked(p, c.clock.Now())
		if err != nil {
			return Principal{}, err
		}
		if workspace != q.Workspace.ID && !c.belongsLocked(q.Account.ID, workspace) {
			return Principal{}, ErrNotFound("Workspace")
		}
		p = q
	}
	ws, ok := c.workspaces[workspace]
	if !ok {
		return Principal{}, ErrNotFound("Workspace")
	}
	p.Workspace = cloneWorkspace(ws)
	return p, nil
}
