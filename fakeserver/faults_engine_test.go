package fakeserver

import (
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/faults"
)

// TestFaultResetsAreTheEngines: the resets a Fault names are the ones the engine below the
// facade acts on, so that a validated reset is never let through and then ignored.
func TestFaultResetsAreTheEngines(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ facade, engine string }{
		{ResetBeforeBody, faults.ResetBeforeBody},
		{ResetAfterBody, faults.ResetAfterBody},
	} {
		if tt.facade != tt.engine {
			t.Errorf("fakeserver's reset %q is the engine's %q", tt.facade, tt.engine)
		}
	}
}
