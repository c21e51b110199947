package fakeserver

import (
	"net/http"
	"strings"
	"testing"
)

// TestPlanCreditsAreWhole is a leftover of issue 32: the control API refused a fractional or
// huge plan allowance only in fixtures. Every door (control API, Go API) now takes whole credits
// from 0 to MaxPlanCredits, answers anything else 400 naming the field, and changes nothing.
func TestPlanCreditsAreWhole(t *testing.T) {
	t.Parallel()
	srv, demo := NewTest(t)
	tests := []struct {
		name, method, path, body, field string
	}{
		{"fractional allowance", "POST", "/_fake/workspaces", `{"type":"personal","name":"A","plan_allowance":1.5}`, "plan_allowance"},
		{"huge allowance", "POST", "/_fake/workspaces", `{"type":"personal","name":"A","plan_allowance":1e30}`, "plan_allowance"},
		{"fractional allowance change", "PATCH", "/_fake/workspaces/" + demo.WorkspaceID + "/credits", `{"plan_allowance":2.5}`, "plan_allowance"},
		{"fractional used", "PATCH", "/_fake/workspaces/" + demo.WorkspaceID + "/credits", `{"plan_used":0.5}`, "plan_used"},
		{"huge used", "PATCH", "/_fake/workspaces/" + demo.WorkspaceID + "/credits", `{"plan_used":1000000001}`, "plan_used"},
	}
	bearer := http.Header{"Authorization": {"Bearer " + demo.APIKey}}
	_, _, before := call(t, srv, "GET", "/api/rest/v1/credits", bearer, "")
	for _, tt := range tests {
		status, _, body := call(t, srv, tt.method, tt.path, admin(srv), tt.body)
		if status != http.StatusBadRequest || !strings.Contains(string(body), `"validation_error"`) || !strings.Contains(string(body), tt.field) {
			t.Errorf("%s: %d %s, want 400 naming %s", tt.name, status, body, tt.field)
		}
	}
	half := 0.5
	if _, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "B", PlanAllowance: &half}); err == nil {
		t.Error("the Go API took half a credit of allowance")
	}
	if _, _, after := call(t, srv, "GET", "/api/rest/v1/credits", bearer, ""); string(after) != string(before) {
		t.Errorf("credits after the refusals %s, before %s", after, before)
	}
	whole := 1_000_000_000.0
	if _, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "C", PlanAllowance: &whole}); err != nil {
		t.Errorf("the largest allowance: %v", err)
	}
}
