package contract_test

import (
	"maps"
	"slices"
	"sort"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// strictAdmitsNull tells whether null validates against sr in a strict reading of OpenAPI
// 3.0.3, the one validating proxies such as Prism make: nullable adds null only to the type
// written beside it in the same Schema Object, and every other keyword keeps its meaning, so
// an allOf branch that names a type without nullable refuses null even when the schema holding
// the allOf says nullable. (kin-openapi is more lenient: a nullable schema accepts null before
// it looks at its allOf, which is why the fake's own checks never saw the problem.)
func strictAdmitsNull(sr *openapi3.SchemaRef) bool {
	if sr == nil || sr.Value == nil {
		return true
	}
	s := sr.Value
	if s.Type != nil && len(*s.Type) > 0 && !s.Nullable {
		return false
	}
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, nil) {
		return false
	}
	for _, m := range s.AllOf {
		if !strictAdmitsNull(m) {
			return false
		}
	}
	if len(s.AnyOf) > 0 && !slices.ContainsFunc(s.AnyOf, strictAdmitsNull) {
		return false
	}
	if len(s.OneOf) > 0 {
		n := 0
		for _, m := range s.OneOf {
			if strictAdmitsNull(m) {
				n++
			}
		}
		if n != 1 {
			return false
		}
	}
	if s.Not != nil && strictAdmitsNull(s.Not) {
		return false
	}
	return true
}

// TestOpenAPINullableStrict: every property and array item of openapi.json admits null in a
// strict OpenAPI 3.0.3 reading exactly when the contract declares it nullable at that place.
// A nullable object is written {type: object, nullable: true, allOf: [{$ref}]} over a
// component that is itself nullable (a strict validator otherwise refuses the null in the
// allOf branch); a component so made nullable is referenced, where null is not allowed, as
// {type: object, allOf: [{$ref}]}, whose own type refuses the null again.
func TestOpenAPINullableStrict(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	names := make([]string, 0, len(doc.Components.Schemas))
	for name := range doc.Components.Schemas {
		names = append(names, name)
	}
	sort.Strings(names)
	sites := 0
	nullSites := 0
	check := func(where string, p *openapi3.SchemaRef) {
		if p.Ref == "" && p.Value.IsEmpty() {
			return // {}: any value, null included, by design (the items of a free-form array)
		}
		sites++
		want := oasNullable(p)
		if want {
			nullSites++
		}
		if got := strictAdmitsNull(p); got != want {
			if want {
				t.Errorf("%s: declared nullable, but a strict OpenAPI 3.0.3 validator refuses null there", where)
			} else {
				t.Errorf("%s: not declared nullable, but a strict OpenAPI 3.0.3 validator accepts null there", where)
			}
		}
	}
	seen := map[*openapi3.Schema]bool{}
	for _, name := range names {
		oasSchemaWalk(doc.Components.Schemas[name], name, seen, func(path string, s *openapi3.Schema) {
			for _, prop := range slices.Sorted(maps.Keys(s.Properties)) {
				check(path+"."+prop, s.Properties[prop])
			}
			if s.Items != nil {
				check(path+"[]", s.Items)
			}
		})
	}
	// The walk must have reached the contract's fields, among them the nullable objects of
	// issue #39 (stats, file_info, metadata, cover_image, series, episode, key, standard).
	t.Logf("%d fields, %d nullable", sites, nullSites)
	if sites < 200 || nullSites < 40 {
		t.Errorf("checked only %d fields (%d nullable); the walk missed the contract", sites, nullSites)
	}
	for _, name := range []string{"Report", "ReportListItem", "Me", "WebhookReport"} {
		s := doc.Components.Schemas[name]
		if s == nil {
			t.Fatalf("no component %s", name)
		}
		found := false
		for prop, p := range s.Value.Properties {
			if len(p.Value.AllOf) == 1 && p.Value.Nullable {
				found = true
				if !strictAdmitsNull(p) {
					t.Errorf("%s.%s: null refused", name, prop)
				}
			}
		}
		if !found {
			t.Errorf("%s: no nullable object property; the check has nothing to check", name)
		}
	}
}

// TestStrictAdmitsNull pins the strict reading itself on hand-written schemas, so that the
// contract test above cannot pass by a checker that admits everything or nothing.
func TestStrictAdmitsNull(t *testing.T) {
	t.Parallel()
	obj := func(nullable bool) *openapi3.SchemaRef {
		return openapi3.NewSchemaRef("", &openapi3.Schema{Type: &openapi3.Types{"object"}, Nullable: nullable})
	}
	tests := []struct {
		name   string
		schema *openapi3.Schema
		want   bool
	}{
		{"typed", &openapi3.Schema{Type: &openapi3.Types{"object"}}, false},
		{"typed nullable", &openapi3.Schema{Type: &openapi3.Types{"object"}, Nullable: true}, true},
		{"untyped", &openapi3.Schema{}, true},
		{"nullable over a non-nullable allOf (issue #39)", &openapi3.Schema{Type: &openapi3.Types{"object"}, Nullable: true, AllOf: openapi3.SchemaRefs{obj(false)}}, false},
		{"nullable over a nullable allOf", &openapi3.Schema{Type: &openapi3.Types{"object"}, Nullable: true, AllOf: openapi3.SchemaRefs{obj(true)}}, true},
		{"non-nullable over a nullable allOf", &openapi3.Schema{Type: &openapi3.Types{"object"}, AllOf: openapi3.SchemaRefs{obj(true)}}, false},
		{"anyOf with one nullable branch", &openapi3.Schema{AnyOf: openapi3.SchemaRefs{obj(false), obj(true)}}, true},
		{"anyOf without", &openapi3.Schema{AnyOf: openapi3.SchemaRefs{obj(false), obj(false)}}, false},
		{"oneOf with two nullable branches", &openapi3.Schema{OneOf: openapi3.SchemaRefs{obj(true), obj(true)}}, false},
		{"oneOf with one", &openapi3.Schema{OneOf: openapi3.SchemaRefs{obj(true), obj(false)}}, true},
		{"enum without null", &openapi3.Schema{Type: &openapi3.Types{"string"}, Nullable: true, Enum: []any{"a"}}, false},
		{"enum with null", &openapi3.Schema{Type: &openapi3.Types{"string"}, Nullable: true, Enum: []any{"a", nil}}, true},
		{"not nullable", &openapi3.Schema{Not: obj(true)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := strictAdmitsNull(openapi3.NewSchemaRef("", tt.schema)); got != tt.want {
				t.Errorf("strictAdmitsNull = %v, want %v", got, tt.want)
			}
		})
	}
}
