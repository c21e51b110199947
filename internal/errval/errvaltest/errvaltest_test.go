package errvaltest

import (
	"slices"
	"testing"
)

// ExportedErrVars finds every exported error variable, by name, declared type or constructor,
// and skips unexported ones, other variables and test files.
func TestExportedErrVars(t *testing.T) {
	t.Parallel()
	got := ExportedErrVars(t, "testdata/pkg")
	want := []string{"ErrA", "ErrB", "ErrC", "Timeout", "Wrapped"}
	if !slices.Equal(got, want) {
		t.Fatalf("ExportedErrVars = %q, want %q", got, want)
	}
}
