package core

import "time"

// This file holds the rule for a request that a reset overtakes: admitted (Enter) against one
// state, its operation runs once the next state is in place. Every operation of a principal
// goes through principalLocked under the lock it changes or reads the state under, so that
// the request either finishes against the state it was admitted against or is answered as if
// it had come after the reset; never half of each.

// principalLocked returns p as the current state knows it, and the workspace it acts in.
//
// A principal admitted against the current state comes back as it is. One admitted before a
// reset (its generation is older) presents its credential again to the new state, as a
// request sent after the reset would: a key or browser session the new state does not hold
// (or holds disabled, or owner-less) is refused with a *CredentialRefusal (401
// invalid_api_key); one it holds (a fixture key, whose ids repeat) acts as the new state's
// record of it. A principal acting in an organisation (ActAs) keeps acting there only if its
// account still belongs to it, else the organisation is not found, as SelectWorkspace answers.
// The request is not counted again against the new state's rate limits.
func (c *Core) principalLocked(p Principal, now time.Time) (Principal, *Workspace, error) {
	if p.gen != c.gen {
		q, err := c.readmitLocked(p, now)
		if err != nil {
			return Principal{}, nil, err
		}
		if p.Workspace.ID != q.Workspace.ID {
			if !c.belongsLocked(q.Account.ID, p.Workspace.ID) {
				return Principal{}, nil, ErrNotFound("Organisation")
			}
			q.Workspace = cloneWorkspace(c.workspaces[p.Workspace.ID])
		}
		p = q
	}
	ws, ok := c.workspaces[p.Workspace.ID]
	if !ok {
		// Workspaces are never removed within a state; a principal made by hand may name none.
		return Principal{}, nil, ErrInvalidAPIKey()
	}
	return p, ws, nil
}

// readmitLocked resolves p's credential in the current state.
func (c *Core) readmitLocked(p Principal, now time.Time) (Principal, error) {
	switch {
	case p.Key != nil:
		q, _, refusal := c.resolveKeyLocked(p.Key.digest, now)
		if refusal != nil {
			refusal.MaskedKey = p.Key.MaskedKey
			return Principal{}, refusal
		}
		return q, nil
	case p.session != [len(p.session)]byte{}:
		q, refusal := c.resolveSessionLocked(p.session)
		if refusal != nil {
			return Principal{}, refusal
		}
		return q, nil
	default:
		// The anonymous principal, or one made by hand: no credential to present again.
		return Principal{}, &CredentialRefusal{Reason: RefusalMissing}
	}
}
