package fakeserver

// MaxEventScan is how many events of the record one page of EventPage reads at most: a page
// of a rare kind may hold fewer than its limit (even none) and still have a next cursor, so
// that a page costs the same whatever the record holds.
const MaxEventScan = 10_000

// page reads the record after the event numbered afterSeq, oldest first: the events of kind
// and reportID ("" for any) until limit of them or MaxEventScan read. It returns them, the
// Seq of the last event read, how many it read, and whether more follow it. Seqs in the ring are consecutive,
// so the first event to read is found by arithmetic, not by a walk.
func (r *eventRecord) page(kind, reportID string, afterSeq uint64, limit int) (out []Event, last uint64, read int, more bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.ring)
	last = afterSeq
	if n == 0 {
		return nil, last, 0, false
	}
	oldest := r.seq - uint64(n) + 1
	skip := 0
	if afterSeq >= oldest {
		skip = int(min(afterSeq-oldest+1, uint64(n)))
	}
	start := 0
	if n == r.size {
		start = r.next // a full ring's oldest event is where the next one goes
	}
	for i := skip; i < n; i++ {
		if len(out) == limit || read == MaxEventScan {
			return out, last, read, true
		}
		e := r.ring[(start+i)%n]
		read++
		last = e.Seq
		if (kind == "" || e.Kind == kind) && (reportID == "" || e.ReportID == reportID) {
			out = append(out, e)
		}
	}
	return out, last, read, false
}
