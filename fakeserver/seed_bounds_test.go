package fakeserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// TestSeededReportBoundsOnBothPaths: a seeded report completes at most 366 days ahead and
// measures at most 24 hours, from Go and over the control call alike; past a bound the call is
// refused whole with 400 validation_error (an *Error for errors.As), and the control contract
// documents the core's bounds.
func TestSeededReportBoundsOnBothPaths(t *testing.T) {
	t.Parallel()
	year := core.MaxSeededCompleteAfter
	goTests := []struct {
		name    string
		entry   SeededReport
		message string // empty: admitted
	}{
		{"366 days", SeededReport{CompleteAfter: year}, ""},
		{"past 366 days", SeededReport{CompleteAfter: year + time.Nanosecond}, "reports[1]: complete_after must be at most 366 days."},
		{"far past 366 days", SeededReport{CompleteAfter: 1 << 62}, "reports[1]: complete_after must be at most 366 days."},
		{"negative delay", SeededReport{CompleteAfter: -time.Second}, "reports[1]: complete_after must not be negative."},
		{"24 hours", SeededReport{Duration: core.MaxSeededDuration}, ""},
		{"past 24 hours", SeededReport{Duration: core.MaxSeededDuration + time.Nanosecond}, "reports[1]: duration must be above 0 and at most 24 hours."},
	}
	for _, tt := range goTests {
		t.Run("go/"+tt.name, func(t *testing.T) {
			t.Parallel()
			srv, seed := NewTest(t)
			ids, err := srv.SeedReports(seed.WorkspaceID, []SeededReport{{}, tt.entry})
			if tt.message == "" {
				if err != nil || len(ids) != 2 || countListedReports(t, srv, seed.APIKey) != 2 {
					t.Fatalf("admitted entry: %v, %v", ids, err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Status != 400 || e.Code != "validation_error" || e.Message != tt.message {
				t.Fatalf("err = %v, want 400 validation_error %q", err, tt.message)
			}
			if n := countListedReports(t, srv, seed.APIKey); ids != nil || n != 0 {
				t.Fatalf("a refused call returned %v and left %d reports", ids, n)
			}
		})
	}

	httpTests := []struct {
		name   string
		entry  string
		status int
	}{
		{"366 days", fmt.Sprintf(`{"complete_after_s":%d}`, int64(year/time.Second)), 201},
		{"past 366 days", fmt.Sprintf(`{"complete_after_s":%d}`, int64(year/time.Second)+1), 400},
		{"24 hours", fmt.Sprintf(`{"duration_s":%d}`, int64(core.MaxSeededDuration/time.Second)), 201},
		{"past 24 hours", fmt.Sprintf(`{"duration_s":%d}`, int64(core.MaxSeededDuration/time.Second)+1), 400},
	}
	for _, tt := range httpTests {
		t.Run("http/"+tt.name, func(t *testing.T) {
			t.Parallel()
			srv, seed := NewTest(t)
			status, _, body := call(t, srv, "POST", "/_fake/workspaces/"+seed.WorkspaceID+"/reports", admin(srv), `{"reports":[{},`+tt.entry+`]}`)
			var refusal struct{ Error struct{ Code string } }
			switch {
			case status != tt.status:
				t.Fatalf("%d %s, want %d", status, body, tt.status)
			case status == 400 && (json.Unmarshal(body, &refusal) != nil || refusal.Error.Code != "validation_error"):
				t.Fatalf("refusal %s, want validation_error", body)
			}
			want := map[int]int{201: 2, 400: 0}[tt.status]
			if n := countListedReports(t, srv, seed.APIKey); n != want {
				t.Fatalf("%d reports after %d, want %d", n, status, want)
			}
		})
	}

	doc, err := controlContract()
	if err != nil {
		t.Fatal(err)
	}
	op := doc.Paths.Find("/_fake/workspaces/{id}/reports").Post
	entry := op.RequestBody.Value.Content.Get("application/json").Schema.Value.Properties["reports"].Value.Items.Value
	for field, bound := range map[string]time.Duration{"complete_after_s": year, "duration_s": core.MaxSeededDuration} {
		switch m := entry.Properties[field].Value.Max; {
		case m == nil:
			t.Errorf("control.openapi.json gives %s no maximum, want the core's %v s", field, bound.Seconds())
		case *m != bound.Seconds():
			t.Errorf("control.openapi.json %s maximum %v, want the core's %v s", field, *m, bound.Seconds())
		}
	}
}

// countListedReports counts the reports the key's workspace lists.
func countListedReports(t *testing.T, srv *Server, key string) int {
	t.Helper()
	status, _, body := call(t, srv, "GET", "/api/rest/v1/reports?limit=100", bearer(key), "")
	var page struct{ Items []json.RawMessage }
	if status != 200 || json.Unmarshal(body, &page) != nil {
		t.Fatalf("list: %d %s", status, body)
	}
	return len(page.Items)
}
