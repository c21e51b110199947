package core

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestCoreImportsNoSender: the core owns the delivery ladder and reads nothing from the HTTP
// sender; it imports only the leaf wire package of what an attempt is (DESIGN.md), so the
// sender can change without the core, and never the other way round.
func TestCoreImportsNoSender(t *testing.T) {
	t.Parallel()
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	const wire = "github.com/podqa/podqa-go/fakeserver/internal/webhooks/wire"
	if !slices.Contains(deps, wire) {
		t.Fatalf("go list -deps . does not list %s: %q", wire, deps)
	}
	for _, pkg := range []string{"github.com/podqa/podqa-go/fakeserver/internal/webhooks", "github.com/podqa/podqa-go/fakeserver"} {
		if slices.Contains(deps, pkg) {
			t.Errorf("the core imports %s", pkg)
		}
	}
}
