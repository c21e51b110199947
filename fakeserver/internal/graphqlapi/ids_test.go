package graphqlapi

import (
	"strings"
	"testing"
)

// TestGraphQLIDsOnlyInCanonicalForm is GraphQL's part of the facade's TestIDsOnlyInCanonicalForm:
// an id argument is taken in the canonical 36-character form alone; the braced, URN and 32-digit
// forms of the same id are refused like any other text that is no id.
func TestGraphQLIDsOnlyInCanonicalForm(t *testing.T) {
	t.Parallel()
	const id = "3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e"
	forms := map[string]string{
		"braced":    "{" + id + "}",
		"urn":       "urn:uuid:" + id,
		"32 digits": strings.ReplaceAll(id, "-", ""),
	}
	for name, form := range forms {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := parseGraphQLID("id", form); err == nil {
				t.Error("GraphQL took the id")
			}
		})
	}
	// The canonical form passes.
	if _, err := parseGraphQLID("id", id); err != nil {
		t.Errorf("the canonical id in GraphQL: %v", err)
	}
}
