package core

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestReportListingPagesEveryWorkspace: paging ReportListing through every workspace by its
// cursors gives each report once, each workspace's newest first and the workspaces oldest
// first, every one named; the filters and cursors it refuses are validation errors.
func TestReportListingPagesEveryWorkspace(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Minute, NewWorkspace{})
	other := mustWorkspace(t, f.c, Personal, "Grace")
	var want []string
	for _, seed := range []struct {
		ws string
		n  int
	}{{f.ws.ID.String(), 3}, {other.ID.String(), 2}} {
		out, err := f.c.SeedReportsIn(seed.ws, make([]BulkReport, seed.n))
		if err != nil {
			t.Fatal(err)
		}
		for i := len(out) - 1; i >= 0; i-- {
			want = append(want, out[i].ID.String())
		}
	}
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > len(want) {
			t.Fatalf("no last page after %d pages: %v", pages, got)
		}
		heads, next, err := f.c.ReportListing(ReportListQuery{Cursor: cursor, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range heads {
			if h.Name == "" {
				t.Errorf("report %s listed without a name", h.ID)
			}
			got = append(got, h.ID.String())
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if !slices.Equal(got, want) {
		t.Fatalf("listed %v, want %v", got, want)
	}
	refused := []ReportListQuery{
		{Limit: MaxListLimit + 1},
		{Status: "DONE"},
		{WorkspaceID: strings.ToUpper(f.ws.ID.String())},
		{Cursor: "not-a-cursor"},
		{WorkspaceID: other.ID.String(), Cursor: want[0]}, // a cursor of another workspace
	}
	for _, q := range refused {
		if _, _, err := f.c.ReportListing(q); code(err) != CodeValidation {
			t.Errorf("ReportListing(%+v): %v, want a validation error", q, err)
		}
	}
}

// TestListLimit: 0 is the default page, 1 to MaxListLimit as asked, anything else refused.
func TestListLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want int
		refused  bool
	}{
		{0, DefaultListLimit, false},
		{1, 1, false},
		{MaxListLimit, MaxListLimit, false},
		{MaxListLimit + 1, 0, true},
		{-1, 0, true},
	}
	for _, tt := range tests {
		got, err := ListLimit(tt.in)
		if got != tt.want || (err != nil) != tt.refused {
			t.Errorf("ListLimit(%d) = %d, %v; want %d, refused %v", tt.in, got, err, tt.want, tt.refused)
		}
	}
}
