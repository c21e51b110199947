package fakeserver

import (
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// TestPlanCreditsBoundIsTheCores: the bound the Go API documents (MaxPlanCredits, the fixtures'
// own) is the one the core enforces for SetCredits, CreateWorkspace and the control API.
func TestPlanCreditsBoundIsTheCores(t *testing.T) {
	t.Parallel()
	if MaxPlanCredits != core.MaxPlanCredits {
		t.Errorf("MaxPlanCredits = %d, the core enforces %d", MaxPlanCredits, core.MaxPlanCredits)
	}
}
