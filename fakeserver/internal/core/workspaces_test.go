package core

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestOperationsReadIDsAsSent: every operation the Go API and the control API share takes its
// id as sent and reads it by the id rule, so that another spelling of a live id is not found,
// named as what it was to name, exactly as an id nothing holds; and the canonical id works.
func TestOperationsReadIDsAsSent(t *testing.T) {
	t.Parallel()
	c := newCore(t)
	ws := mustWorkspace(t, c, Personal, "Ada")
	rec, _ := mustKey(t, c, ws.ID, false)
	upper := func(s string) string { return strings.ToUpper(s) }
	ctx := context.Background()
	tests := []struct {
		name    string
		call    func(id string) error
		id      string
		missing string // the message of the 404
	}{
		{"MintAPIKey", func(id string) error { _, _, err := c.MintAPIKey(id, "d", false); return err }, ws.ID.String(), "Workspace not found."},
		{"SwitchAPIKey", func(id string) error { _, err := c.SwitchAPIKey(id, false); return err }, rec.ID.String(), "API key not found."},
		{"LogIn", func(id string) error { _, err := c.LogIn(id); return err }, ws.ID.String(), "Workspace not found."},
		{"EndpointsOf", func(id string) error { _, err := c.EndpointsOf(id); return err }, ws.ID.String(), "Workspace not found."},
		{"EmailLog", func(id string) error { _, err := c.EmailLog(id); return err }, ws.ID.String(), "Workspace not found."},
		{"SeedReportsIn", func(id string) error { _, err := c.SeedReportsIn(id, []BulkReport{{}}); return err }, ws.ID.String(), "Workspace not found."},
		{"WorkspaceListing", func(id string) error { _, _, err := c.WorkspaceListing(id, 1); return err }, ws.ID.String(), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(tt.id); err != nil {
				t.Fatalf("the canonical id: %v", err)
			}
			err := tt.call(upper(tt.id))
			var e *Error
			if tt.missing == "" {
				// A cursor in another spelling is no cursor at all.
				if !errors.As(err, &e) || e.Code != CodeValidation {
					t.Fatalf("upper-case cursor: %v, want a validation error", err)
				}
				return
			}
			if !errors.As(err, &e) || e.Code != CodeNotFound || e.Message != tt.missing {
				t.Fatalf("upper-case id: %v, want not_found %q", err, tt.missing)
			}
		})
	}
	if _, err := c.SendTestEventTo(ctx, "nope"); code(err) != CodeNotFound {
		t.Errorf("SendTestEventTo of no id: %v", err)
	}
	if _, err := c.ResendDeliveryNamed(ctx, "nope"); code(err) != CodeNotFound {
		t.Errorf("ResendDeliveryNamed of no id: %v", err)
	}
	if _, err := c.DeliveryLog("nope"); code(err) != CodeNotFound {
		t.Errorf("DeliveryLog of no id: %v", err)
	}
	if all, err := c.DeliveryLog(""); err != nil || all == nil {
		t.Errorf("DeliveryLog of every endpoint: %v, %v", all, err)
	}
	if err := c.DropOwners(upper(ws.ID.String())); code(err) != CodeNotFound {
		t.Errorf("DropOwners of an upper-case id: %v", err)
	}
	if _, err := c.SwitchAutomatedReporting("nope", true); code(err) != CodeNotFound {
		t.Errorf("SwitchAutomatedReporting of no id: %v", err)
	}
}

// TestOpenWorkspaceHoldsWholeCredits: a workspace opened through the Go API or the control API
// has a whole plan allowance, from 0 to MaxPlanCredits.
func TestOpenWorkspaceHoldsWholeCredits(t *testing.T) {
	t.Parallel()
	half, over, whole := 1.5, float64(MaxPlanCredits+1), 100.0
	tests := []struct {
		name      string
		allowance *float64
		refused   bool
	}{
		{"none given", nil, false},
		{"whole", &whole, false},
		{"a fraction", &half, true},
		{"past the bound", &over, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newCore(t)
			_, err := c.OpenWorkspace(NewWorkspace{Type: Personal, Name: "Ada", PlanAllowance: tt.allowance})
			if tt.refused != (code(err) == CodeValidation) || (!tt.refused && err != nil) {
				t.Fatalf("err = %v, refused %v", err, tt.refused)
			}
			if n := len(c.AllWorkspaces()); tt.refused && n != 0 {
				t.Fatalf("a refused workspace was made: %d workspaces", n)
			}
		})
	}
}
