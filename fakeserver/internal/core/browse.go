package core

import (
	"slices"
	"sort"
	"time"

	"github.com/google/uuid"
)

// StatusStep is one status a report took, when on the fake's clock, and why (the failure
// reason of FAILED, the balance and cost of OUT_OF_QUOTA; empty otherwise).
type StatusStep struct {
	Status string
	At     time.Time
	Reason string
}

// countKey names one of the counts a workspace's report index keeps: every report of a
// status (Series zero), of a series (Status empty), of both, or all of them (both zero).
type countKey struct {
	series uuid.UUID
	status string
}

// countLocked moves the counts of a report of series and status by delta.
func (idx *reportIndex) countLocked(series *uuid.UUID, status string, delta int) {
	if idx.counts == nil {
		idx.counts = map[countKey]int{}
	}
	idx.counts[countKey{}] += delta
	idx.counts[countKey{status: status}] += delta
	if series != nil {
		idx.counts[countKey{series: *series}] += delta
		idx.counts[countKey{series: *series, status: status}] += delta
	}
}

// setStatusLocked moves a report to status to, at now, for reason, keeping its workspace's
// counts and the report's timeline true. It does not touch updated_at (callers do).
func (c *Core) setStatusLocked(r *Report, to, reason string, now time.Time) {
	if idx := c.reportIdx[r.Workspace]; idx != nil && r.Status != to {
		idx.countLocked(r.Series, r.Status, -1)
		idx.countLocked(r.Series, to, +1)
	}
	r.Status = to
	r.Timeline = append(r.Timeline, StatusStep{Status: to, At: now, Reason: reason})
	switch to {
	case StatusComplete, StatusFailed, StatusOutOfQuota:
		// Told by reportFinishedLocked, which knows the verdict and the charge.
	default:
		c.noticeLocked(Notice{Kind: NoticeReportStatus, At: now, Workspace: r.Workspace, Report: r.ID, Status: to})
	}
}

// AllWorkspaces returns every workspace, oldest first.
func (c *Core) AllWorkspaces() []Workspace {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]Workspace, 0, len(c.workspaces))
	for _, ws := range c.workspaces {
		out = append(out, cloneWorkspace(ws))
	}
	slices.SortFunc(out, func(a, b Workspace) int {
		if a.seq != b.seq {
			if a.seq < b.seq {
				return -1
			}
			return 1
		}
		return slices.Compare(a.ID[:], b.ID[:])
	})
	return out
}

// BrowseQuery selects a page of one workspace's reports for BrowseReports.
type BrowseQuery struct {
	Workspace uuid.UUID
	// Status and Series narrow the reports when set.
	Status string
	Series *uuid.UUID
	// After is the last report of the previous page; nil starts at the newest.
	After *uuid.UUID
	Limit int
}

// BrowsePage is a page of BrowseReports: newest first, whether more follow, and how many
// reports match the query in all.
type BrowsePage struct {
	Reports []Report
	More    bool
	Total   int
}

// BrowseReports pages through a workspace's reports newest first by creation, for the fake's
// own pages. It reads from the cursor back in the workspace's creation index, so a page costs
// what it holds (and the reports it skips for a filter), not what the workspace holds; the total
// comes from counts the index keeps.
func (c *Core) BrowseReports(q BrowseQuery) (BrowsePage, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if _, ok := c.workspaces[q.Workspace]; !ok {
		return BrowsePage{}, ErrNotFound("Workspace")
	}
	var after *Report
	if q.After != nil {
		after = c.reports[*q.After]
		if after == nil || after.Workspace != q.Workspace {
			return BrowsePage{}, ErrValidation("after names no report of this workspace.")
		}
	}
	idx := c.reportIdx[q.Workspace]
	if idx == nil {
		return BrowsePage{Reports: []Report{}}, nil
	}
	end := len(idx.created) // reports before end are still to read, newest last
	if after != nil {
		end = sort.Search(len(idx.created), func(i int) bool { return idx.created[i].seq >= after.seq })
	}
	key := countKey{status: q.Status}
	if q.Series != nil {
		key.series = *q.Series
	}
	page := BrowsePage{Reports: make([]Report, 0, min(q.Limit, end)), Total: idx.counts[key]}
	for i := end - 1; i >= 0; i-- {
		r := idx.created[i]
		if (q.Status != "" && r.Status != q.Status) || (q.Series != nil && (r.Series == nil || *r.Series != *q.Series)) {
			continue
		}
		if len(page.Reports) == q.Limit {
			page.More = true
			break
		}
		page.Reports = append(page.Reports, *r)
	}
	return page, nil
}
