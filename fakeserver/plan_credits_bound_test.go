package fakeserver

import (
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/faults"
)

// TestPlanCreditsBoundIsTheCores: the bound the Go API documents (MaxPlanCredits, the fixtures'
// own) is the one the core enforces for SetCredits, CreateWorkspace and the control API.
func TestPlanCreditsBoundIsTheCores(t *testing.T) {
	t.Parallel()
	if MaxPlanCredits != core.MaxPlanCredits {
		t.Errorf("MaxPlanCredits = %d, the core enforces %d", MaxPlanCredits, core.MaxPlanCredits)
	}
}

// TestFaultBoundsAreTheEngines: the latency bound the Go API documents (MaxFaultLatency) is the
// one internal/faults enforces for InjectFault and the control API.
func TestFaultBoundsAreTheEngines(t *testing.T) {
	t.Parallel()
	if MaxFaultLatency != faults.MaxLatency {
		t.Errorf("MaxFaultLatency = %v, internal/faults enforces %v", MaxFaultLatency, faults.MaxLatency)
	}
}
