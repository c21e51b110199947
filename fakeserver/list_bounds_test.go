package fakeserver

import (
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// TestListBoundsAreTheCores: the listing bounds the Go API documents are the ones the core
// enforces for the Go API and the control API alike.
func TestListBoundsAreTheCores(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		documented int
		enforced   int
	}{
		{"DefaultListLimit", DefaultListLimit, core.DefaultListLimit},
		{"MaxListLimit", MaxListLimit, core.MaxListLimit},
		{"MaxWorkspacesPerReportPage", MaxWorkspacesPerReportPage, core.MaxWorkspacesPerReportPage},
		{"DefaultReportPageSize", DefaultReportPageSize, core.DefaultReportPageSize},
		{"MaxReportPageSize", MaxReportPageSize, core.MaxReportPageSize},
	}
	for _, tt := range tests {
		if tt.documented != tt.enforced {
			t.Errorf("%s = %d, the core enforces %d", tt.name, tt.documented, tt.enforced)
		}
	}
}
