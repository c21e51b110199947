package core

import (
	"strings"
	"testing"
)

// TestFoldNameIsEqualFold: two names share a foldName exactly when strings.EqualFold holds, so
// the index of standards' names refuses the same duplicates the scan did.
func TestFoldNameIsEqualFold(t *testing.T) {
	t.Parallel()
	names := []string{"Loud", "LOUD", "loud", "Kelvin", "\u212Aelvin", "kelvin", "straße", "STRASSE", "Σίσυφος", "ΣΊΣΥΦΟΣ", "σίσυφοσ", "ǅ", "ǆ", "Ǆ", "\xff", "\xfe", "", "ﬀ", "ff"}
	for _, a := range names {
		for _, b := range names {
			if got, want := foldName(a) == foldName(b), strings.EqualFold(a, b); got != want {
				t.Errorf("%q, %q: same foldName %v, EqualFold %v", a, b, got, want)
			}
		}
	}
}
