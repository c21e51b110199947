package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestProgramLeavesOutTestOnlyPackages keeps packages that only tests need out of the program,
// whose cold build (go run from a fresh clone) compiles every package it imports.
func TestProgramLeavesOutTestOnlyPackages(t *testing.T) {
	t.Parallel()
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/podqa/podqa-go/fakeserver") {
		t.Fatalf("go list -deps . does not list the fake itself: %q", deps)
	}
	for _, pkg := range []string{"testing", "net/http/httptest"} {
		if slices.Contains(deps, pkg) {
			t.Errorf("the program imports %s, which only tests need", pkg)
		}
	}
}
