package core

import (
	"math"
	"math/bits"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Listings (GET /reports, GraphQL reports, the control API's and the dashboard's report pages)
// all read one walk over a report list kept in creation order: the workspace's list, or one of
// its series' lists. Each list carries a tree of blocks of 32 reports that counts the reports
// of each status and keeps the latest updated_at of each status, and each block a mask of its
// reports of each status, so that a walk
//
//   - finds the page's first report by counting (status and created_since filters, and the
//     part of an updated_since listing created after the bound) instead of reading the reports
//     above it,
//   - skips the reports a filter leaves out by mask and a block at a time, and
//   - resumes where the previous page of the same listing ended (see listCursor), so that a
//     poller paging through a listing reads each report once however deep its offsets go.
//
// A page therefore reads about what it holds, whatever the workspace holds.

// listBlock is the number of reports a leaf of a list's tree covers: one bit each in the
// block's status masks.
const listBlock = 32

// statusOrder numbers the report statuses for the trees' per-status counts.
var statusOrder = [...]string{StatusPending, StatusScheduled, StatusInProgress, StatusComplete, StatusFailed, StatusOutOfQuota}

const numStatuses = len(statusOrder)

// statusNumber is status's place in statusOrder, or -1 for a status no report has.
func statusNumber(status string) int {
	for i, s := range statusOrder {
		if s == status {
			return i
		}
	}
	return -1
}

// nanos is t in Unix nanoseconds, saturated outside what an int64 holds, so that comparisons
// with any report's instant keep the order of time.Time.After.
func nanos(t time.Time) int64 {
	switch {
	case t.Before(minNanos):
		return math.MinInt64
	case t.After(maxNanos):
		return math.MaxInt64
	}
	return t.UnixNano()
}

var (
	minNanos = time.Unix(0, math.MinInt64)
	maxNanos = time.Unix(0, math.MaxInt64)
)

// listNode sums a range of a list: how many reports of each status it holds and the latest
// updated_at (Unix nanoseconds) of each status among them. latest never falls below the truth
// (a walk checks each report it reads), so a status change leaving a block recomputes it.
type listNode struct {
	count  [numStatuses]int32
	latest [numStatuses]int64
}

func emptyNode() listNode {
	var n listNode
	for i := range n.latest {
		n.latest[i] = math.MinInt64
	}
	return n
}

// reportList is a list of reports in creation order (oldest first) with its tree: nodes[1] is
// the root, nodes[leaves+b] sums block b (reports [b*listBlock, (b+1)*listBlock)), and each
// other node the two below it. masks[b][st] has bit j set when report b*listBlock+j has status
// number st, so that a walk reads only the reports of the status it lists.
type reportList struct {
	reports []*Report
	// created is each report's created_at in Unix nanoseconds, so that the _since bounds'
	// binary searches read one compact array and not a report per step.
	created []int64
	nodes   []listNode
	leaves  int
	masks   [][numStatuses]uint32
}

// listSide says which list of its workspace a listing reads: the workspace's or a series'.
type listSide bool

const (
	workspaceSide listSide = false
	seriesSide    listSide = true
)

// pos is the position of r in the list of side s.
func (s listSide) pos(r *Report) int {
	if s == seriesSide {
		return r.seriesPos
	}
	return r.pos
}

// add appends r, the newest report of the list.
func (l *reportList) add(r *Report, side listSide) {
	if side == seriesSide {
		r.seriesPos = len(l.reports)
	} else {
		r.pos = len(l.reports)
	}
	l.reports = append(l.reports, r)
	l.created = append(l.created, nanos(r.CreatedAt))
	b := (len(l.reports) - 1) / listBlock
	st := statusNumber(r.Status)
	if b == len(l.masks) {
		l.masks = append(l.masks, [numStatuses]uint32{})
	}
	l.masks[b][st] |= 1 << ((len(l.reports) - 1) % listBlock)
	if b >= l.leaves {
		l.grow(b + 1)
		return // grow summed r already
	}
	t := nanos(r.UpdatedAt)
	for i := l.leaves + b; i >= 1; i /= 2 {
		l.nodes[i].count[st]++
		l.nodes[i].latest[st] = max(l.nodes[i].latest[st], t)
	}
}

// grow doubles the tree until it has blocks leaves at least, and sums every block again: a
// cost of about one read per report each time the list doubles.
func (l *reportList) grow(blocks int) {
	leaves := max(1, l.leaves)
	for leaves < blocks {
		leaves *= 2
	}
	l.leaves = leaves
	l.nodes = make([]listNode, 2*leaves)
	for i := range l.nodes {
		l.nodes[i] = emptyNode()
	}
	for b := 0; b*listBlock < len(l.reports); b++ {
		l.nodes[leaves+b] = l.sumBlock(b)
	}
	for i := leaves - 1; i >= 1; i-- {
		l.nodes[i] = merge(l.nodes[2*i], l.nodes[2*i+1])
	}
}

func (l *reportList) sumBlock(b int) listNode {
	n := emptyNode()
	for _, r := range l.reports[b*listBlock : min(len(l.reports), (b+1)*listBlock)] {
		st := statusNumber(r.Status)
		n.count[st]++
		n.latest[st] = max(n.latest[st], nanos(r.UpdatedAt))
	}
	return n
}

func merge(a, b listNode) listNode {
	var n listNode
	for i := range n.count {
		n.count[i] = a.count[i] + b.count[i]
		n.latest[i] = max(a.latest[i], b.latest[i])
	}
	return n
}

// statusChanged moves the report at pos from status from to its status now, and sums again
// its block and the nodes above it (the latest updated_at of the status it left may fall).
func (l *reportList) statusChanged(pos int, from string) {
	b, bit := pos/listBlock, uint32(1)<<(pos%listBlock)
	l.masks[b][statusNumber(from)] &^= bit
	l.masks[b][statusNumber(l.reports[pos].Status)] |= bit
	l.nodes[l.leaves+b] = l.sumBlock(b)
	for i := (l.leaves + b) / 2; i >= 1; i /= 2 {
		l.nodes[i] = merge(l.nodes[2*i], l.nodes[2*i+1])
	}
}

// touched raises the latest updated_at above r, at pos, to r's.
func (l *reportList) touched(r *Report, pos int) {
	st := statusNumber(r.Status)
	t := nanos(r.UpdatedAt)
	for i := l.leaves + pos/listBlock; i >= 1; i /= 2 {
		l.nodes[i].latest[st] = max(l.nodes[i].latest[st], t)
	}
}

// total is the number of the list's reports of status number st (-1: any).
func (l *reportList) total(st int) int {
	if len(l.nodes) == 0 {
		return 0
	}
	return l.nodes[1].countOf(st)
}

func (n *listNode) countOf(st int) int {
	if st >= 0 {
		return int(n.count[st])
	}
	sum := 0
	for _, c := range n.count {
		sum += int(c)
	}
	return sum
}

// listWalk is one walk's question and its bookkeeping: the status number (-1: any), the
// updated_since bound (hasSince false: none) and the reports read.
type listWalk struct {
	l        *reportList
	st       int
	hasSince bool
	since    time.Time
	sinceNs  int64
	visited  int
}

// candidates are the reports of block b of the walk's status, as a mask.
func (w *listWalk) candidates(b int) uint32 {
	m := &w.l.masks[b]
	if w.st >= 0 {
		return m[w.st]
	}
	var all uint32
	for _, s := range m {
		all |= s
	}
	return all
}

// nodeMay reports whether node i may hold a match: exactly for counts, and at worst too
// eagerly for updated_since.
func (w *listWalk) nodeMay(i int) bool {
	n := &w.l.nodes[i]
	if !w.hasSince {
		return n.countOf(w.st) > 0
	}
	if w.st >= 0 {
		return n.latest[w.st] > w.sinceNs
	}
	for _, t := range n.latest {
		if t > w.sinceNs {
			return true
		}
	}
	return false
}

// lowBits is a mask of the bits below bit n (n in 0..32).
func lowBits(n int) uint32 { return uint32(uint64(1)<<n - 1) }

// prev returns the newest match at a position in [lo, hi), or -1. It steps only to reports of
// the walk's status (each counted as visited), and reads those for updated_since.
func (w *listWalk) prev(lo, hi int) int {
	for hi > lo {
		b := (hi - 1) / listBlock
		m := w.candidates(b) & lowBits(hi-b*listBlock)
		if lo > b*listBlock {
			m &^= lowBits(lo - b*listBlock)
		}
		for m != 0 {
			j := bits.Len32(m) - 1
			q := b*listBlock + j
			w.visited++ // a report stepped to, read for updated_since
			if !w.hasSince || w.l.reports[q].UpdatedAt.After(w.since) {
				return q
			}
			m &^= 1 << j
		}
		if b*listBlock <= lo {
			return -1
		}
		nb := w.rightmost(1, 0, w.l.leaves, lo/listBlock, b-1)
		if nb < 0 {
			return -1
		}
		hi = (nb + 1) * listBlock
	}
	return -1
}

// rightmost is the highest block in [a, z] under node i (covering blocks [nlo, nlo+width))
// that may hold a match, or -1.
func (w *listWalk) rightmost(i, nlo, width, a, z int) int {
	if nlo > z || nlo+width <= a || !w.nodeMay(i) {
		return -1
	}
	if width == 1 {
		return nlo
	}
	half := width / 2
	if b := w.rightmost(2*i+1, nlo+half, half, a, z); b >= 0 {
		return b
	}
	return w.rightmost(2*i, nlo, half, a, z)
}

// below counts the reports of the walk's status at positions before p (updated_since is not
// counted: below serves the part of a listing where it holds for every report).
func (w *listWalk) below(p int) int {
	b := p / listBlock
	if b >= w.l.leaves {
		return w.l.total(w.st)
	}
	sum := 0
	// The blocks before b: the left siblings on the way from block b's leaf to the root.
	for i := w.l.leaves + b; i > 1; i /= 2 {
		if i%2 == 1 {
			sum += w.l.nodes[i-1].countOf(w.st)
		}
	}
	if b < len(w.l.masks) {
		sum += bits.OnesCount32(w.candidates(b) & lowBits(p-b*listBlock))
	}
	return sum
}

// nth returns the position of the report of the walk's status of rank k (0: the oldest).
func (w *listWalk) nth(k int) int {
	i := 1
	for i < w.l.leaves {
		if left := w.l.nodes[2*i].countOf(w.st); k < left {
			i = 2 * i
		} else {
			k -= left
			i = 2*i + 1
		}
	}
	b := i - w.l.leaves
	m := w.candidates(b)
	for range k {
		m &= m - 1 // drop the lowest
	}
	w.visited++
	return b*listBlock + bits.TrailingZeros32(m)
}

// listQuery is a listing: which list, which reports of it, and from where.
type listQuery struct {
	side   listSide
	series uuid.UUID
	st     int // -1: any status
	// createdSince and updatedSince are the _since bounds (has*: set).
	hasCreated, hasUpdated     bool
	createdSince, updatedSince time.Time
}

// matches reports whether r is one of q's reports (the walk reads the same from its list).
func (q listQuery) matches(r *Report) bool {
	return (q.side == workspaceSide || (r.Series != nil && *r.Series == q.series)) &&
		(q.st < 0 || r.Status == statusOrder[q.st]) &&
		(!q.hasCreated || r.CreatedAt.After(q.createdSince)) &&
		(!q.hasUpdated || r.UpdatedAt.After(q.updatedSince))
}

// firstAfter is the first position of l created after t (the list is in created_at order).
func firstAfter(l *reportList, t time.Time, w *listWalk) int {
	lo, hi, tn := 0, len(l.created), nanos(t)
	for lo < hi {
		m := int(uint(lo+hi) / 2)
		w.visited++
		if l.created[m] > tn {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// walk reads the matches of q in l newest first, below position hi, skipping skip of them, and
// hands up to take to yield with their positions. Reports created after updated_since were
// updated after it too (updated_at never precedes created_at), so in that part of the list the
// walk counts its way to the first match; below it, it jumps from match to match.
func (l *reportList) walk(q listQuery, hi, skip, take int, yield func(r *Report, pos int)) (visited int) {
	if take <= 0 || len(l.reports) == 0 {
		return 0
	}
	w := &listWalk{l: l, st: q.st}
	lo := 0
	if q.hasCreated {
		lo = firstAfter(l, q.createdSince, w)
	}
	exact := lo // [exact, len) is where updated_since holds for every report
	if q.hasUpdated {
		exact = max(lo, firstAfter(l, q.updatedSince, w))
	}
	pos := min(hi, len(l.reports))
	if pos > exact {
		above := w.below(pos)
		if n := above - w.below(exact); skip < n {
			p := w.nth(above - 1 - skip)
			skip = 0
			for p >= 0 && take > 0 {
				yield(l.reports[p], p)
				take--
				pos = p
				p = w.prev(exact, p)
			}
			if take == 0 {
				return w.visited
			}
		} else {
			skip -= n
		}
		pos = exact
	}
	w.hasSince, w.since, w.sinceNs = q.hasUpdated, q.updatedSince, nanos(q.updatedSince)
	for take > 0 && pos > lo {
		p := w.prev(lo, pos)
		if p < 0 {
			break
		}
		if skip > 0 {
			skip--
		} else {
			yield(l.reports[p], p) // prev read it already
			take--
		}
		pos = p
	}
	return w.visited
}

// listCursor is where a page of a listing ended: the position in the list of its last report
// and how many of the listing's reports are at that position or above. It is kept true as
// reports are added and change (see cursorSet.before), so the next page resumes there.
type listCursor struct {
	q     listQuery
	pos   int
	above int
	used  uint64 // for eviction: the cursor least recently used goes first
	live  bool
}

// listCursors is how many ended pages a workspace keeps for listings to resume.
const listCursors = 8

// cursorSet holds a workspace's ended pages. Listings run under the core's read lock, so the
// set has its own lock; changes to reports hold the core's write lock and take it too.
type cursorSet struct {
	mu   sync.Mutex
	tick uint64
	c    [listCursors]listCursor
}

// best returns where a page of q at offset starts: below position hi of the list, skip
// matches further; from the ended page with the least left to skip (slot >= 0), else from the
// top of the list (top).
func (cs *cursorSet) best(q listQuery, offset, top int) (hi, skip, slot int) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	hi, skip, slot = top, offset, -1
	for i := range cs.c {
		c := &cs.c[i]
		if c.live && c.q == q && c.above <= offset && offset-c.above < skip {
			hi, skip, slot = c.pos, offset-c.above, i
		}
	}
	return hi, skip, slot
}

// keep records that q has above matches at position pos or above, in slot (the page this one
// continues, which will not be read again) or else in a free or the least recently used slot.
func (cs *cursorSet) keep(q listQuery, pos, above, slot int) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if slot < 0 || !cs.c[slot].live || cs.c[slot].q != q {
		slot = 0
		for i := range cs.c {
			if !cs.c[i].live {
				slot = i
				break
			}
			if cs.c[i].used < cs.c[slot].used {
				slot = i
			}
		}
	}
	cs.tick++
	cs.c[slot] = listCursor{q: q, pos: pos, above: above, used: cs.tick, live: true}
}

// before tells which kept pages' listings r, at or above their position, belongs to; a change
// to r calls it first and after with its answer once r has changed.
func (cs *cursorSet) before(r *Report) uint {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.matchMaskLocked(r)
}

func (cs *cursorSet) matchMaskLocked(r *Report) (mask uint) {
	for i := range cs.c {
		c := &cs.c[i]
		if c.live && c.q.side.pos(r) >= c.pos && c.q.matches(r) {
			mask |= 1 << i
		}
	}
	return mask
}

// after moves the kept pages' ranks for a change to r, which belonged to the listings in
// before (see before; a report just added belonged to none).
func (cs *cursorSet) after(r *Report, before uint) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	after := cs.matchMaskLocked(r)
	for i := range cs.c {
		switch bit := uint(1) << i; {
		case after&bit != 0 && before&bit == 0:
			cs.c[i].above++
		case after&bit == 0 && before&bit != 0:
			cs.c[i].above--
		}
	}
}
