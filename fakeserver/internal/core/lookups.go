package core

import (
	"cmp"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// Reads across a workspace's boundary or in an order REST does not offer: a report or a show
// by id whatever its workspace, and shows ordered by title. They apply no membership rule;
// adapters read through the scoped lookups of scoped.go, which do.

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
	return c.shownLocked(r), true
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
	if idx == nil || idx.series[seriesID] == nil {
		return nil
	}
	var out []Report
	for _, r := range idx.series[seriesID].reports {
		out = append(out, *r)
	}
	return out
}

// TranscriptIncluded reports whether a report's standard keeps the transcript, as recorded at
// creation: the built-in standards keep it, a custom standard says.
func TranscriptIncluded(std Standard) bool {
	return std.TranscriptIncluded
}
