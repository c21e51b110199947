package graphqlapi

import (
	"slices"
	"sync"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/podqa/podqa-go/fakeserver/internal/graphql/exec"
)

// Spec2021Locations are the directive locations of the October 2021 GraphQL specification
// (§3.13, DirectiveLocation). A client that builds its schema from introspection (graphql-js
// buildClientSchema, graphql-core build_client_schema) refuses any other value.
var Spec2021Locations = []ast.DirectiveLocation{
	ast.LocationQuery, ast.LocationMutation, ast.LocationSubscription, ast.LocationField,
	ast.LocationFragmentDefinition, ast.LocationFragmentSpread, ast.LocationInlineFragment,
	ast.LocationVariableDefinition,
	ast.LocationSchema, ast.LocationScalar, ast.LocationObject, ast.LocationFieldDefinition,
	ast.LocationArgumentDefinition, ast.LocationInterface, ast.LocationUnion, ast.LocationEnum,
	ast.LocationEnumValue, ast.LocationInputObject, ast.LocationInputFieldDefinition,
}

// ServedSchema is the schema the GraphQL endpoint executes and introspects: the generated
// executor's schema with each directive's locations limited to the October 2021 set.
// gqlparser's prelude declares @deprecated on DIRECTIVE_DEFINITION too (a later draft's
// location, which nothing in schema.graphql uses), and graphql-core 3.2 refuses the whole
// introspection answer for it. The copy shares every type definition with the executor's
// schema; only the directive map and the changed directive definitions are new. Computed once:
// the result is never modified, so every fake in the process shares it.
var ServedSchema = sync.OnceValue(func() *ast.Schema {
	generated := exec.NewExecutableSchema(exec.Config{}).Schema()
	return withSpecDirectiveLocations(generated)
})

// withSpecDirectiveLocations returns a shallow copy of s whose directives list only locations
// of Spec2021Locations; s itself is not modified.
func withSpecDirectiveLocations(s *ast.Schema) *ast.Schema {
	out := *s
	out.Directives = make(map[string]*ast.DirectiveDefinition, len(s.Directives))
	for name, d := range s.Directives {
		kept := slices.DeleteFunc(slices.Clone(d.Locations), func(l ast.DirectiveLocation) bool {
			return !slices.Contains(Spec2021Locations, l)
		})
		if len(kept) == len(d.Locations) {
			out.Directives[name] = d
			continue
		}
		fixed := *d
		fixed.Locations = kept
		out.Directives[name] = &fixed
	}
	return &out
}
