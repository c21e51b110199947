package core

import "github.com/google/uuid"

// This file holds the lookups an API adapter makes on behalf of a caller. Each applies the
// membership rule (Belongs, CanSee, ActAs in membership.go) itself, so that no adapter has to
// remember to.

// SelectWorkspace returns p acting in the workspace a request reads: p's own personal workspace
// when organisation is nil, else that organisation when p's account belongs to it. A caller
// without a working credential gets ErrInvalidAPIKey; an organisation p does not belong to, or
// one that does not exist, is ErrNotFound("Organisation") either way.
func (c *Core) SelectWorkspace(p Principal, organisation *uuid.UUID) (Principal, error) {
	if p.Account.ID == uuid.Nil {
		return Principal{}, ErrInvalidAPIKey()
	}
	// One read of the state, so that a reset cannot fall between the membership check and
	// the workspace read; a principal admitted before one is admitted again (principalLocked).
	c.mu.RLock()
	defer c.mu.RUnlock()
	p, _, err := c.principalLocked(p, c.clock.Now())
	if err != nil {
		return Principal{}, err
	}
	target := p.Account.Personal
	if organisation != nil {
		if ws, ok := c.workspaces[*organisation]; !ok || ws.Type != Organisation || !c.belongsLocked(p.Account.ID, ws.ID) {
			return Principal{}, ErrNotFound("Organisation")
		}
		target = *organisation
	}
	ws, ok := c.workspaces[target]
	if !ok {
		return Principal{}, ErrNotFound("Workspace")
	}
	p.Workspace = cloneWorkspace(ws)
	return p, nil
}

// SeenSeries is a show as a caller sees it.
type SeenSeries struct {
	Series
	// History has one point per report of the show, oldest first; a point names its report
	// and verdict only when the caller may see the show's workspace.
	History []ScorePoint
}

// ScorePoint is one report in a show's score history.
type ScorePoint struct {
	// Report is the report's id; uuid.Nil when the caller may not see it.
	Report uuid.UUID
	// Passed and RequiredFailures are the verdict of a complete report the caller may see;
	// nil otherwise.
	Passed           *bool
	RequiredFailures *int
}

// SeriesFor returns any show by id, whatever its workspace (GraphQL's series(id)), with its
// history as p sees it.
func (c *Core) SeriesFor(p Principal, id uuid.UUID) (SeenSeries, bool) {
	s, ok := c.SeriesByID(id)
	if !ok {
		return SeenSeries{}, false
	}
	return c.seen(s, c.CanSee(p, s.Workspace)), true
}

// SeriesByTitleFor lists the shows of the workspace p acts in by title (see SeriesByTitle):
// they are p's own, so their history is visible.
func (c *Core) SeriesByTitleFor(p Principal, limit, offset int) Page[SeenSeries] {
	page := c.SeriesByTitle(p.Workspace.ID, limit, offset)
	out := Page[SeenSeries]{Items: make([]SeenSeries, 0, len(page.Items)), Limit: page.Limit, Offset: page.Offset, HasMore: page.HasMore}
	for _, s := range page.Items {
		out.Items = append(out.Items, c.seen(s, true))
	}
	return out
}

// ActInSeriesWorkspace returns p acting in the workspace of show id, when p may see that
// workspace; ok is false for a show that does not exist or that p may not see.
func (c *Core) ActInSeriesWorkspace(p Principal, id uuid.UUID) (_ Principal, ok bool, _ error) {
	s, found := c.SeriesByID(id)
	if !found || !c.CanSee(p, s.Workspace) {
		return Principal{}, false, nil
	}
	acting, err := c.ActAs(p, s.Workspace)
	if err != nil {
		return Principal{}, false, err
	}
	return acting, true, nil
}

func (c *Core) seen(s Series, visible bool) SeenSeries {
	out := SeenSeries{Series: s, History: []ScorePoint{}}
	for _, r := range c.SeriesReports(s.ID) {
		var point ScorePoint
		if visible {
			point.Report = r.ID
			if r.Status == StatusComplete && r.Stats != nil {
				passed, failures := r.Stats.Passed, r.Stats.RequiredFailures
				point.Passed, point.RequiredFailures = &passed, &failures
			}
		}
		out.History = append(out.History, point)
	}
	return out
}
