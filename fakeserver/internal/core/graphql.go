package core

import (
	"cmp"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// This file holds the reads the GraphQL adapter needs beyond REST's: GraphQL chooses its
// workspace per request among every workspace the acting account belongs to, reads reports and
// series by id across workspaces, and orders series by title.

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
// caller has checked that p's account belongs to it.
func (c *Core) ActAs(p Principal, workspace uuid.UUID) (Principal, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	ws, ok := c.workspaces[workspace]
	if !ok {
		return Principal{}, ErrNotFound("Workspace")
	}
	p.Workspace = cloneWorkspace(ws)
	return p, nil
}

// SeriesByTitle lists a workspace's shows ordered by title: case-insensitively, then exactly,
// then in the order they were added; shows without a title come last.
func (c *Core) SeriesByTitle(workspace uuid.UUID, limit, offset int) Page[Series] {
	c.mu.RLock()
	defer c.mu.RUnlock()
	cat := c.catalogs[workspace]
	if cat == nil {
		return window(0, limit, offset, func(int) Series { return Series{} })
	}
	shows := make([]*Series, 0, len(cat.order))
	for _, id := range cat.order {
		shows = append(shows, c.series[id])
	}
	slices.SortStableFunc(shows, func(a, b *Series) int {
		switch {
		case a.Title == nil && b.Title == nil:
			return 0
		case a.Title == nil:
			return 1
		case b.Title == nil:
			return -1
		}
		return cmp.Or(cmp.Compare(strings.ToLower(*a.Title), strings.ToLower(*b.Title)), cmp.Compare(*a.Title, *b.Title))
	})
	return window(len(shows), limit, offset, func(i int) Series { return *shows[i] })
}

// ReportByID returns a report whatever its workspace: GraphQL's report(id) treats report ids as
// share links.
func (c *Core) ReportByID(id uuid.UUID) (Report, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.reports[id]
	if !ok {
		return Report{}, false
	}
	out := *r
	if out.Name == nil && out.Status != StatusComplete {
		out.Name = c.reportNameLocked(r)
	}
	return out, true
}

// SeriesReports lists the reports of one show, oldest first: the show's score history.
func (c *Core) SeriesReports(seriesID uuid.UUID) []Report {
	c.mu.RLock()
	defer c.mu.RUnlock()
	s, ok := c.series[seriesID]
	if !ok {
		return nil
	}
	idx := c.reportIdx[s.Workspace]
	if idx == nil {
		return nil
	}
	var out []Report
	for _, r := range idx.created {
		if r.Series != nil && *r.Series == seriesID {
			out = append(out, *r)
		}
	}
	return out
}

// TranscriptIncluded reports whether a report's standard keeps the transcript, as recorded at
// creation: the built-in standards keep it, a custom standard says.
func TranscriptIncluded(std Standard) bool {
	return std.TranscriptIncluded
}
