package journal

import (
	"strconv"
	"testing"

	"github.com/google/uuid"
)

// TestJournalIDsFollowTheSequence checks the ids list makes against the sequence numbers the
// entries were added with, once the ring has grown, wrapped, dropped its oldest and been cleared.
func TestJournalIDsFollowTheSequence(t *testing.T) {
	t.Parallel()
	ns := uuid.MustParse("6ba7b811-9dad-11d1-80b4-00c04fd430c8")
	want := func(seq uint64) string { return uuid.NewSHA1(ns, strconv.AppendUint(nil, seq, 10)).String() }
	tests := []struct {
		name        string
		size, added int
	}{
		{"fewer than the ring", 300, 5},
		{"grown past the first allocation", 1000, 600},
		{"wrapped", 300, 1234},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			j := New(tt.size, testLimits, ns)
			for range 2 { // the second round after a clear numbers from 1 again
				epoch := j.began()
				for range tt.added {
					j.add(epoch, record{Entry: Entry{Method: "GET", Path: "/p"}})
				}
				got := j.List(Filter{Limit: tt.size})
				if n := min(tt.size, tt.added); len(got) != n {
					t.Fatalf("listed %d entries, want %d", len(got), n)
				}
				for k, e := range got { // newest first
					if w := want(uint64(tt.added - k)); e.ID != w {
						t.Fatalf("entry %d: id %s, want %s (sequence %d)", k, e.ID, w, tt.added-k)
					}
				}
				j.Clear()
			}
		})
	}
}
