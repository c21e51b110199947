package fakeserver

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"testing"
	"time"
)

func TestWorkspacesOldestFirst(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	var want []string
	for i := range 3 {
		ws, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: fmt.Sprintf("W%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, ws.ID)
	}
	got := srv.Workspaces()
	if len(got) != 4 || got[0].ID != seed.WorkspaceID {
		t.Fatalf("workspaces: %+v, want the demo one first", got)
	}
	for i, id := range want {
		if got[i+1].ID != id || got[i+1].Name != fmt.Sprintf("W%d", i) {
			t.Errorf("workspace %d: %+v, want %s", i+1, got[i+1], id)
		}
	}
}

func TestReportsPages(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	// 7 complete at once, 5 stay IN_PROGRESS until an hour passes.
	var specs []SeededReport
	for i := range 12 {
		after := time.Duration(0)
		if i%2 == 1 && i < 10 {
			after = time.Hour
		}
		specs = append(specs, SeededReport{FileName: fmt.Sprintf("r%02d.wav", i), CompleteAfter: after})
	}
	ids, err := srv.SeedReports(seed.WorkspaceID, specs)
	if err != nil {
		t.Fatal(err)
	}
	collect := func(f ReportFilter) (got []string, total int) {
		t.Helper()
		for pages := 0; ; pages++ {
			if pages > len(ids) {
				t.Fatal("the cursor does not advance")
			}
			page, err := srv.Reports(seed.WorkspaceID, f)
			if err != nil {
				t.Fatal(err)
			}
			if f.After == "" {
				total = page.Total
			} else if page.Total != total {
				t.Errorf("total changed between pages: %d then %d", total, page.Total)
			}
			if f.Limit > 0 && len(page.Reports) > f.Limit {
				t.Fatalf("page of %d for limit %d", len(page.Reports), f.Limit)
			}
			for _, r := range page.Reports {
				if f.Status != "" && r.Status != f.Status {
					t.Errorf("%s is %s, filter %s", r.ID, r.Status, f.Status)
				}
				if r.WorkspaceID != seed.WorkspaceID || r.Source != "seeded" {
					t.Errorf("summary %+v", r)
				}
				got = append(got, r.ID)
			}
			if page.Next == "" {
				return got, total
			}
			f.After = page.Next
		}
	}
	newestFirst := func(keep func(i int) bool) []string {
		var out []string
		for i := len(ids) - 1; i >= 0; i-- {
			if keep(i) {
				out = append(out, ids[i])
			}
		}
		return out
	}
	inProgress := func(i int) bool { return i%2 == 1 && i < 10 }
	tests := []struct {
		name string
		f    ReportFilter
		want []string
	}{
		{"all in one page", ReportFilter{}, newestFirst(func(int) bool { return true })},
		{"pages of 5", ReportFilter{Limit: 5}, newestFirst(func(int) bool { return true })},
		{"pages of 1", ReportFilter{Limit: 1}, newestFirst(func(int) bool { return true })},
		{"in progress, pages of 2", ReportFilter{Status: "IN_PROGRESS", Limit: 2}, newestFirst(inProgress)},
		{"complete, pages of 3", ReportFilter{Status: "COMPLETE", Limit: 3}, newestFirst(func(i int) bool { return !inProgress(i) })},
		{"failed: none", ReportFilter{Status: "FAILED"}, nil},
	}
	for _, tt := range tests {
		got, total := collect(tt.f)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) || total != len(tt.want) {
			t.Errorf("%s: %d reports (total %d), want %d in order", tt.name, len(got), total, len(tt.want))
		}
	}
	// Completion moves the counts of each status.
	if _, err := srv.Advance(time.Hour); err != nil {
		t.Fatal(err)
	}
	if got, total := collect(ReportFilter{Status: "COMPLETE"}); len(got) != 12 || total != 12 {
		t.Errorf("after the hour: %d complete (total %d), want 12", len(got), total)
	}
	if page, _ := srv.Reports(seed.WorkspaceID, ReportFilter{Status: "IN_PROGRESS"}); page.Total != 0 || len(page.Reports) != 0 {
		t.Errorf("after the hour: %+v in progress", page)
	}
}

func TestReportsBadInput(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	other, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := srv.SeedReports(other.ID, []SeededReport{{}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		ws     string
		f      ReportFilter
		status int
	}{
		{"unknown workspace", "00000000-0000-4000-8000-000000000000", ReportFilter{}, http.StatusNotFound},
		{"malformed workspace", "nope", ReportFilter{}, http.StatusNotFound},
		{"negative limit", seed.WorkspaceID, ReportFilter{Limit: -1}, http.StatusBadRequest},
		{"limit past the maximum", seed.WorkspaceID, ReportFilter{Limit: MaxReportPageSize + 1}, http.StatusBadRequest},
		{"unknown status", seed.WorkspaceID, ReportFilter{Status: "DONE"}, http.StatusBadRequest},
		{"malformed series", seed.WorkspaceID, ReportFilter{SeriesID: "s1"}, http.StatusBadRequest},
		{"malformed cursor", seed.WorkspaceID, ReportFilter{After: "x"}, http.StatusBadRequest},
		{"another workspace's cursor", seed.WorkspaceID, ReportFilter{After: ids[0]}, http.StatusBadRequest},
	}
	for _, tt := range tests {
		_, err := srv.Reports(tt.ws, tt.f)
		var e *Error
		if !errors.As(err, &e) || e.Status != tt.status {
			t.Errorf("%s: %v, want a %d *Error", tt.name, err, tt.status)
		}
	}
	if page, err := srv.Reports(seed.WorkspaceID, ReportFilter{Limit: MaxReportPageSize}); err != nil || len(page.Reports) != 0 || page.Next != "" || page.Reports == nil {
		t.Errorf("empty workspace: %+v, %v", page, err)
	}
}

func TestEventRecordKeepsTheNewest(t *testing.T) {
	t.Parallel()
	rec := newEventRecord(slog.New(slog.DiscardHandler), 3)
	at := TestStart()
	for i := range 5 {
		rec.raise(at.Add(time.Duration(i)*time.Second), slog.LevelInfo, EventClockAdvanced, fmt.Sprint(i), "", "")
	}
	got := rec.list(EventFilter{})
	if len(got) != 3 || got[0].Message != "2" || got[2].Message != "4" || got[2].Seq != 5 {
		t.Fatalf("record: %+v", got)
	}
	if got := rec.list(EventFilter{AfterSeq: 4}); len(got) != 1 || got[0].Message != "4" {
		t.Errorf("after seq 4: %+v", got)
	}
	if got := rec.list(EventFilter{Since: at.Add(3 * time.Second), Limit: 1}); len(got) != 1 || got[0].Message != "4" {
		t.Errorf("since 3 s, limit 1: %+v", got)
	}
	if got := rec.list(EventFilter{Kind: EventReportCreated}); len(got) != 0 {
		t.Errorf("kind filter: %+v", got)
	}
	rec.clear()
	if got := rec.list(EventFilter{}); len(got) != 0 {
		t.Errorf("after clear: %+v", got)
	}
	if off := newEventRecord(slog.New(slog.DiscardHandler), 0); true {
		off.raise(at, slog.LevelInfo, EventReset, "x", "", "")
		if got := off.list(EventFilter{}); len(got) != 0 {
			t.Errorf("size 0 kept %+v", got)
		}
	}
}
