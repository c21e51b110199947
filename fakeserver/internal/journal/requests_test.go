package journal

import "testing"

// TestRequestsDefaults: Requests lists at most the limits' Listed entries when the filter sets
// no Limit, the filter's own Limit otherwise, and matches a method in any case.
func TestRequestsDefaults(t *testing.T) {
	t.Parallel()
	limits := testLimits
	limits.Listed = 3
	j := New(100, limits, [16]byte{1})
	for i := range 10 {
		method := "GET"
		if i%2 == 1 {
			method = "POST"
		}
		j.add(0, record{Entry: Entry{Method: method, Path: "/api/rest/v1/reports", Status: 200 + i}})
	}
	tests := []struct {
		name string
		f    Filter
		want []int // statuses, newest first
	}{
		{"no limit: Listed", Filter{}, []int{209, 208, 207}},
		{"own limit", Filter{Limit: 5}, []int{209, 208, 207, 206, 205}},
		{"method in lower case", Filter{Method: "post", Limit: 2}, []int{209, 207}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := j.Requests(tt.f)
			if len(got) != len(tt.want) {
				t.Fatalf("%d entries, want %d", len(got), len(tt.want))
			}
			for i, e := range got {
				if e.Status != tt.want[i] {
					t.Errorf("entry %d: status %d, want %d", i, e.Status, tt.want[i])
				}
			}
		})
	}
}
