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

// setStatusLocked moves a report to status to, at now, for reason, keeping its workspace's
// report lists and the report's timeline true. It does not touch updated_at (callers do).
func (c *Core) setStatusLocked(r *Report, to, reason string, now time.Time) {
	if idx := c.reportIdx[r.Workspace]; idx != nil && r.Status != to {
		before, from := idx.cursors.before(r), r.Status
		r.Status = to
		idx.all.statusChanged(r.pos, from)
		if r.Series != nil {
			idx.series[*r.Series].statusChanged(r.seriesPos, from)
		}
		idx.cursors.after(r, before)
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
	Reports []ReportHead
	More    bool
	Total   int
}

// ReportHead is what a list shows of a report.
type ReportHead struct {
	ID, Workspace        uuid.UUID
	Series               *uuid.UUID
	Source, Status       string
	CreatedAt, UpdatedAt time.Time
	// Name is the report's name (see NameOf); Verdict its judgement (see VerdictOf).
	Name    string
	Verdict Verdict
}

func (c *Core) headOfLocked(r *Report) ReportHead {
	h := ReportHead{ID: r.ID, Workspace: r.Workspace, Source: r.Source, Status: r.Status, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		Name: c.nameLocked(r), Verdict: VerdictOf(r)}
	if r.Series != nil {
		s := *r.Series
		h.Series = &s
	}
	return h
}

// BrowseReports pages through a workspace's reports newest first by creation, for the fake's
// own pages. It is the walk of ListReports from the cursor down (see listing.go), so a page
// costs about what it holds, not what the workspace holds; the total comes from the counts the
// lists keep.
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
	page := BrowsePage{Reports: []ReportHead{}}
	idx := c.reportIdx[q.Workspace]
	if idx == nil {
		return page, nil
	}
	lq, l := idx.queryLocked(q.Series, q.Status)
	if l == nil {
		return page, nil
	}
	page.Total = l.total(lq.st)
	page.Reports = make([]ReportHead, 0, min(max(q.Limit, 0), page.Total))
	hi := len(l.reports)
	if after != nil {
		if lq.side == seriesSide && (after.Series == nil || *after.Series != lq.series) {
			// A cursor outside the series: the page starts below it in creation order.
			hi = sort.Search(len(l.reports), func(i int) bool { return l.reports[i].seq >= after.seq })
		} else {
			hi = lq.side.pos(after)
		}
	}
	visited := l.walk(lq, hi, 0, max(q.Limit, 0)+1, func(r *Report, _ int) {
		if len(page.Reports) == q.Limit {
			page.More = true
			return
		}
		page.Reports = append(page.Reports, c.headOfLocked(r))
	})
	c.listVisits.Add(uint64(visited))
	return page, nil
}
