package fakeserver

import (
	"slices"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/podqa/podqa-go/fakeserver/internal/graphql/exec"
	"github.com/podqa/podqa-go/fakeserver/internal/graphqlapi"
)

// TestGraphQLDirectiveLocations pins the directives the fake introspects and their locations:
// each is what the October 2021 specification defines (§3.13), so graphql-js and graphql-core
// build a client schema from the answer (.ci/introspection checks that with both).
func TestGraphQLDirectiveLocations(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	var got struct {
		Schema struct {
			Directives []struct {
				Name      string   `json:"name"`
				Locations []string `json:"locations"`
			} `json:"directives"`
		} `json:"__schema"`
	}
	gqlData(t, srv, "", `{ __schema { directives { name locations } } }`, nil, &got)
	served := map[string][]string{}
	for _, d := range got.Schema.Directives {
		served[d.Name] = d.Locations
	}
	tests := []struct {
		directive string
		locations []string
	}{
		{"deprecated", []string{"ARGUMENT_DEFINITION", "ENUM_VALUE", "FIELD_DEFINITION", "INPUT_FIELD_DEFINITION"}},
		{"include", []string{"FIELD", "FRAGMENT_SPREAD", "INLINE_FRAGMENT"}},
		{"skip", []string{"FIELD", "FRAGMENT_SPREAD", "INLINE_FRAGMENT"}},
		{"specifiedBy", []string{"SCALAR"}},
	}
	for _, tc := range tests {
		locs, ok := served[tc.directive]
		if !ok {
			t.Errorf("@%s is not in the introspection answer", tc.directive)
			continue
		}
		locs = slices.Sorted(slices.Values(locs))
		if !slices.Equal(locs, tc.locations) {
			t.Errorf("@%s locations = %v, want %v", tc.directive, locs, tc.locations)
		}
	}
	for name, locs := range served {
		for _, l := range locs {
			if !slices.Contains(graphqlapi.Spec2021Locations, ast.DirectiveLocation(l)) {
				t.Errorf("@%s lists %s, which is not a DirectiveLocation of the October 2021 specification", name, l)
			}
		}
	}
}

// TestServedSchemaLeavesGeneratedSchemaAlone: the served copy drops DIRECTIVE_DEFINITION from
// @deprecated without changing the generated executor's schema, which other code may share.
func TestServedSchemaLeavesGeneratedSchemaAlone(t *testing.T) {
	t.Parallel()
	generated := exec.NewExecutableSchema(exec.Config{}).Schema()
	if !slices.Contains(generated.Directives["deprecated"].Locations, ast.LocationDirectiveDefinition) {
		t.Fatal("gqlparser's prelude no longer declares @deprecated on DIRECTIVE_DEFINITION: graphqlapi.ServedSchema's filter and this test may go")
	}
	served := graphqlapi.ServedSchema()
	if slices.Contains(served.Directives["deprecated"].Locations, ast.LocationDirectiveDefinition) {
		t.Errorf("served @deprecated still lists DIRECTIVE_DEFINITION: %v", served.Directives["deprecated"].Locations)
	}
	if served.Types["ReportType"] != generated.Types["ReportType"] || served.Query != generated.Query {
		t.Error("the served schema should share the generated type definitions")
	}
}
