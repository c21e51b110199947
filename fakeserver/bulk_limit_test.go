package fakeserver

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// TestOneBulkLimit: the Go API and the control call refuse a batch past core.MaxBulkReports, and
// the control contract documents the same bound.
func TestOneBulkLimit(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	_, err := srv.SeedReports(seed.WorkspaceID, make([]SeededReport, core.MaxBulkReports+1))
	var e *Error
	if !errors.As(err, &e) || e.Status != 400 || e.Code != "validation_error" {
		t.Fatalf("Go API past the limit: %v, want 400 validation_error", err)
	}
	status, _, body := call(t, srv, "GET", "/api/rest/v1/reports", bearer(seed.APIKey), "")
	var page struct{ Items []json.RawMessage }
	if status != 200 || json.Unmarshal(body, &page) != nil || len(page.Items) != 0 {
		t.Fatalf("a refused batch left %s", body)
	}

	doc, err := controlContract()
	if err != nil {
		t.Fatal(err)
	}
	op := doc.Paths.Find("/_fake/workspaces/{id}/reports").Post
	reports := op.RequestBody.Value.Content.Get("application/json").Schema.Value.Properties["reports"].Value
	if reports.MaxItems == nil || *reports.MaxItems != core.MaxBulkReports {
		t.Fatalf("control.openapi.json maxItems %v, want %d", reports.MaxItems, core.MaxBulkReports)
	}
}
