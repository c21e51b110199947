package contract_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

const (
	graphqlSchemaFile    = "../../../schema.graphql"
	graphqlOperationsDir = "../../../graphqlclient/internal/operations"
)

// loadGraphQLSchema parses and validates schema.graphql once per test binary.
var loadGraphQLSchema = sync.OnceValues(func() (*ast.Schema, error) {
	src, err := os.ReadFile(graphqlSchemaFile)
	if err != nil {
		return nil, err
	}
	schema, err := gqlparser.LoadSchema(&ast.Source{Name: "schema.graphql", Input: string(src)})
	if err != nil {
		return nil, fmt.Errorf("schema.graphql: %w", err)
	}
	return schema, nil
})

func graphQLSchema(t *testing.T) *ast.Schema {
	t.Helper()
	schema, err := loadGraphQLSchema()
	if err != nil {
		t.Fatal(err)
	}
	return schema
}

// TestGraphQLSchemaLoads checks that schema.graphql is valid SDL.
func TestGraphQLSchemaLoads(t *testing.T) {
	t.Parallel()
	schema := graphQLSchema(t)
	if schema.Query == nil {
		t.Fatal("schema.graphql: no Query type")
	}
}

// TestGraphQLOperations validates every operation the SDK sends (the *.graphql
// files genqlient generates from) against schema.graphql, and checks that none
// of them relies on a deprecated field or argument.
func TestGraphQLOperations(t *testing.T) {
	t.Parallel()
	schema := graphQLSchema(t)
	files, err := filepath.Glob(filepath.Join(graphqlOperationsDir, "*.graphql"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no *.graphql operations under %s", graphqlOperationsDir)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			doc, errs := gqlparser.LoadQueryWithRules(schema, string(src), nil) // nil: the default rules, as LoadQuery (deprecated)
			for _, e := range errs {
				t.Errorf("%s: %v", filepath.Base(file), e)
			}
			if doc == nil {
				return
			}
			if len(doc.Operations) == 0 {
				t.Errorf("%s: no operation", filepath.Base(file))
			}
			for _, op := range doc.Operations {
				if op.Name == "" {
					t.Errorf("%s: anonymous operation", filepath.Base(file))
				}
				for _, use := range deprecatedUses(op.Name, op.SelectionSet) {
					t.Errorf("%s: %s (the SDK sends only the stable surface)", filepath.Base(file), use)
				}
			}
		})
	}
}

// deprecatedUses lists the deprecated fields and arguments a validated
// selection set uses.
func deprecatedUses(path string, set ast.SelectionSet) []string {
	var uses []string
	for _, sel := range set {
		switch sel := sel.(type) {
		case *ast.Field:
			if sel.Definition == nil {
				continue
			}
			p := path + "." + sel.Alias
			if sel.Definition.Directives.ForName("deprecated") != nil {
				uses = append(uses, p+": deprecated field "+sel.ObjectDefinition.Name+"."+sel.Name)
			}
			for _, arg := range sel.Arguments {
				if def := sel.Definition.Arguments.ForName(arg.Name); def != nil && def.Directives.ForName("deprecated") != nil {
					uses = append(uses, p+": deprecated argument "+arg.Name)
				}
			}
			uses = append(uses, deprecatedUses(p, sel.SelectionSet)...)
		case *ast.InlineFragment:
			uses = append(uses, deprecatedUses(path, sel.SelectionSet)...)
		case *ast.FragmentSpread:
			if sel.Definition != nil {
				uses = append(uses, deprecatedUses(path, sel.Definition.SelectionSet)...)
			}
		}
	}
	return uses
}

// The tables below are transcribed from the service specification
// ("webhooks, GraphQL API and polling": GraphQL types, the GraphQL operation
// table and its rules; nullability and required-ness from the REST field
// tables the GraphQL fields mirror), not from schema.graphql.
//
// A type is written in GraphQL notation with two placeholders and one extra
// marker:
//
//	{}      any object or union type (its fields have their own entry)
//	enum    any enum type (its values have their own entry)
//	T!      must be non-null
//	T?      must be nullable: the spec says it can be null, or the argument is optional
//	T       named type T; the spec leaves nullability open
//
// Named types other than the placeholders are compared exactly.

type specArg struct {
	name       string
	typ        string
	def        string // documented default, "" when none is documented
	deprecated bool
}

type specQueryField struct {
	name       string
	args       []specArg
	returns    string
	deprecated bool
}

type specField struct {
	name       string
	typ        string
	deprecated bool
}

var specQuery = []specQueryField{
	{name: "user", returns: "{}"},
	{name: "currentApiKey", returns: "{}?"}, // null when not authenticated with a working key
	{name: "organisations", returns: "[{}]"},
	{name: "seriesList", returns: "[{}]", args: []specArg{
		{name: "limit", typ: "Int?", def: "20"},
		{name: "offset", typ: "Int?"},
		{name: "organisationId", typ: "UUID?"},
	}},
	{name: "series", returns: "{}", args: []specArg{
		{name: "id", typ: "UUID!"},
		{name: "organisationId", typ: "UUID?"},
	}},
	{name: "reports", returns: "[{}]", args: []specArg{
		{name: "organisationId", typ: "UUID?"},
		{name: "limit", typ: "Int?", def: "10"},
		{name: "offset", typ: "Int?"},
		{name: "forSeriesId", typ: "UUID?"},
		{name: "seriesId", typ: "UUID?", deprecated: true},  // rule 2: prefer forSeriesId
		{name: "podcastId", typ: "UUID?", deprecated: true}, // rule 2: deprecated twin of seriesId
		{name: "createdSince", typ: "DateTime?"},
		{name: "updatedSince", typ: "DateTime?"},
		{name: "status", typ: "String?"}, // stored lower-case form, so not the upper-case enum
	}},
	{name: "report", returns: "{}", args: []specArg{
		{name: "id", typ: "UUID!"},
	}},
	// Rule 4: deprecated but permanent aliases answering identically.
	{name: "podcasts", returns: "[{}]", deprecated: true, args: []specArg{
		{name: "limit", typ: "Int?", def: "20"},
		{name: "offset", typ: "Int?"},
		{name: "organisationId", typ: "UUID?"},
	}},
	{name: "podcast", returns: "{}", deprecated: true, args: []specArg{
		{name: "id", typ: "UUID!"},
	}},
}

// specObjects maps a path of field names from Query to the documented fields
// of the object found there.
var specObjects = map[string][]specField{
	"user": {
		{name: "id", typ: "UUID!"},
		{name: "email", typ: "String"},
		{name: "firstName", typ: "String"},
		{name: "lastName", typ: "String"},
	},
	"currentApiKey": {
		{name: "maskedKey", typ: "String"},
		{name: "owner", typ: "{}"},
	},
	"organisations": {
		{name: "id", typ: "UUID!"},
		{name: "name", typ: "String"},
	},
	"series": {
		{name: "id", typ: "UUID!"},
		{name: "title", typ: "String?"},
		{name: "kind", typ: "enum"},
		{name: "feedUrl", typ: "String?", deprecated: true}, // deprecated but permanent
		{name: "lastCheck", typ: "DateTime", deprecated: true},
		{name: "coverImageUrl", typ: "String"},
		{name: "sources", typ: "[{}]"},
		{name: "historicScores", typ: "[{}]"},
	},
	"series.sources": {
		{name: "feedUrl", typ: "String"},
		{name: "lastCheck", typ: "DateTime"},
	},
	"series.historicScores": { // report_id, passed, required_failures
		{name: "reportId", typ: "UUID?"},
		{name: "passed", typ: "Boolean?"},
		{name: "requiredFailures", typ: "Int?"},
	},
	"report": {
		{name: "id", typ: "UUID!"},
		{name: "name", typ: "String?"},
		{name: "status", typ: "enum!"},
		{name: "createdAt", typ: "DateTime?"},
		{name: "updatedAt", typ: "DateTime?"},
		{name: "stats", typ: "JSONString?"},
		{name: "fileInfo", typ: "JSONString?"},
		{name: "metadata", typ: "JSONString?"},
		{name: "results", typ: "JSONString?"},
		{name: "transcript", typ: "JSONString?"}, // null until transcription finishes
		{name: "coverImage", typ: "JSONString?"},
		{name: "audioUrl", typ: "String?"},
		{name: "series", typ: "{}?"}, // null for a direct upload
		{name: "podcast", typ: "{}?", deprecated: true},
		{name: "standard", typ: "{}?"}, // null only if no standard existed
		{name: "transcriptIncluded", typ: "Boolean!"},
	},
	"report.series": {
		{name: "id", typ: "UUID!"},
		{name: "title", typ: "String?"},
	},
	"report.podcast": {
		{name: "id", typ: "UUID!"},
		{name: "title", typ: "String?"},
	},
	"report.standard": {
		{name: "id", typ: "UUID!"},
		{name: "name", typ: "String!"},
		{name: "builtin", typ: "Boolean!"},
	},
}

// specUnions maps a path to the members of the union found there and the
// documented fields of each member (members are named by the spec).
var specUnions = map[string]map[string][]specField{
	"currentApiKey.owner": {
		"OrganisationType": {{name: "id", typ: "UUID!"}, {name: "name", typ: "String"}},
		"UserType":         {{name: "id", typ: "UUID!"}, {name: "email", typ: "String"}},
	},
}

// specEnums maps a path to the documented values of the enum found there.
var specEnums = map[string][]string{
	"report.status": {"PENDING", "SCHEDULED", "IN_PROGRESS", "COMPLETE", "FAILED", "OUT_OF_QUOTA"},
	"series.kind":   {"PODCAST"},
}

// specSameType lists pairs of paths that must have the same named type:
// the aliases answer identically, and a reports row is a report.
var specSameType = [][2]string{
	{"podcasts", "seriesList"},
	{"podcast", "series"},
	{"seriesList", "series"},
	{"report.podcast", "report.series"},
	{"reports", "report"},
}

// TestGraphQLSpecSurface checks that schema.graphql carries every documented
// Query field, argument, default, field, union member and enum value, with the
// documented types and deprecations.
func TestGraphQLSpecSurface(t *testing.T) {
	t.Parallel()
	schema := graphQLSchema(t)

	t.Run("Query", func(t *testing.T) {
		t.Parallel()
		for _, want := range specQuery {
			got := schema.Query.Fields.ForName(want.name)
			if got == nil {
				t.Errorf("Query.%s is missing", want.name)
				continue
			}
			where := "Query." + want.name
			if p := matchType(schema, got.Type, want.returns); p != "" {
				t.Errorf("%s: %s", where, p)
			}
			checkDeprecated(t, where, got.Directives, want.deprecated)
			for _, wa := range want.args {
				ga := got.Arguments.ForName(wa.name)
				if ga == nil {
					t.Errorf("%s: argument %s is missing", where, wa.name)
					continue
				}
				awhere := where + "(" + wa.name + ")"
				if p := matchType(schema, ga.Type, wa.typ); p != "" {
					t.Errorf("%s: %s", awhere, p)
				}
				if wa.def != "" {
					switch {
					case ga.DefaultValue == nil:
						t.Errorf("%s: no default, want %s", awhere, wa.def)
					case ga.DefaultValue.Raw != wa.def:
						t.Errorf("%s: default %s, want %s", awhere, ga.DefaultValue.Raw, wa.def)
					}
				}
				checkDeprecated(t, awhere, ga.Directives, wa.deprecated)
			}
		}
	})

	t.Run("Objects", func(t *testing.T) {
		t.Parallel()
		for _, path := range sortedKeys(specObjects) {
			def, err := resolvePath(schema, path)
			if err != nil {
				t.Error(err)
				continue
			}
			if def.Kind != ast.Object {
				t.Errorf("%s: %s is a %s, want an object type", path, def.Name, def.Kind)
				continue
			}
			checkFields(t, schema, path+" ("+def.Name+")", def, specObjects[path])
		}
	})

	t.Run("Unions", func(t *testing.T) {
		t.Parallel()
		for _, path := range sortedKeys(specUnions) {
			def, err := resolvePath(schema, path)
			if err != nil {
				t.Error(err)
				continue
			}
			if def.Kind != ast.Union {
				t.Errorf("%s: %s is a %s, want a union", path, def.Name, def.Kind)
				continue
			}
			members := specUnions[path]
			for _, name := range sortedKeys(members) {
				if !slices.Contains(def.Types, name) {
					t.Errorf("%s: union %s lacks member %s", path, def.Name, name)
					continue
				}
				checkFields(t, schema, path+" ... on "+name, schema.Types[name], members[name])
			}
		}
	})

	t.Run("Enums", func(t *testing.T) {
		t.Parallel()
		for _, path := range sortedKeys(specEnums) {
			def, err := resolvePath(schema, path)
			if err != nil {
				t.Error(err)
				continue
			}
			if def.Kind != ast.Enum {
				t.Errorf("%s: %s is a %s, want an enum", path, def.Name, def.Kind)
				continue
			}
			for _, v := range specEnums[path] {
				if def.EnumValues.ForName(v) == nil {
					t.Errorf("%s: enum %s lacks value %s", path, def.Name, v)
				}
			}
		}
	})

	t.Run("SameType", func(t *testing.T) {
		t.Parallel()
		for _, pair := range specSameType {
			a, errA := resolvePath(schema, pair[0])
			b, errB := resolvePath(schema, pair[1])
			if errA != nil || errB != nil {
				t.Errorf("%s / %s: %v %v", pair[0], pair[1], errA, errB)
				continue
			}
			if a != b {
				t.Errorf("%s is %s but %s is %s; they must answer identically", pair[0], a.Name, pair[1], b.Name)
			}
		}
	})
}

// TestGraphQLNothingUndocumented checks the converse: every Query field,
// argument, field and enum value reachable from the documented paths is in
// the spec tables, so schema.graphql promises nothing the service does not.
func TestGraphQLNothingUndocumented(t *testing.T) {
	t.Parallel()
	schema := graphQLSchema(t)
	for _, f := range schema.Query.Fields {
		if strings.HasPrefix(f.Name, "__") {
			continue
		}
		i := slices.IndexFunc(specQuery, func(q specQueryField) bool { return q.name == f.Name })
		if i < 0 {
			t.Errorf("Query.%s is not documented by the spec", f.Name)
			continue
		}
		for _, a := range f.Arguments {
			if !slices.ContainsFunc(specQuery[i].args, func(w specArg) bool { return w.name == a.Name }) {
				t.Errorf("Query.%s(%s) is not documented by the spec", f.Name, a.Name)
			}
		}
	}
	undocumentedFields := func(where string, def *ast.Definition, want []specField) {
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			if !slices.ContainsFunc(want, func(w specField) bool { return w.name == f.Name }) {
				t.Errorf("%s.%s is not documented by the spec", where, f.Name)
			}
		}
	}
	for _, path := range sortedKeys(specObjects) {
		if def, err := resolvePath(schema, path); err == nil && def.Kind == ast.Object {
			undocumentedFields(path+" ("+def.Name+")", def, specObjects[path])
		}
	}
	for _, path := range sortedKeys(specUnions) {
		def, err := resolvePath(schema, path)
		if err != nil || def.Kind != ast.Union {
			continue
		}
		for _, name := range def.Types {
			members := specUnions[path]
			if _, ok := members[name]; !ok {
				t.Errorf("%s: union member %s is not documented by the spec", path, name)
				continue
			}
			// A union member is an ordinary type that may be reached elsewhere
			// (UserType is also `user`): it may carry the fields documented there.
			want := slices.Clone(members[name])
			for _, p := range sortedKeys(specObjects) {
				if d, err := resolvePath(schema, p); err == nil && d.Name == name {
					want = append(want, specObjects[p]...)
				}
			}
			undocumentedFields(path+" ... on "+name, schema.Types[name], want)
		}
	}
	for _, path := range sortedKeys(specEnums) {
		if def, err := resolvePath(schema, path); err == nil && def.Kind == ast.Enum {
			for _, v := range def.EnumValues {
				if !slices.Contains(specEnums[path], v.Name) {
					t.Errorf("%s: enum value %s.%s is not documented by the spec", path, def.Name, v.Name)
				}
			}
		}
	}
}

// TestGraphQLSpecExamples validates queries written as the spec writes them.
func TestGraphQLSpecExamples(t *testing.T) {
	t.Parallel()
	schema := graphQLSchema(t)
	examples := map[string]string{
		// Polling recipe, GraphQL alternative.
		"newest report of a series": `query($s: UUID) { reports(forSeriesId: $s, limit: 1) { id status } }`,
		"report progress":           `query($id: UUID!) { report(id: $id) { id status stats } }`,
		// Rule 1: an organisation key passes currentApiKey.owner.id.
		"organisation key owner": `{ currentApiKey { maskedKey owner { ... on OrganisationType { id name } ... on UserType { id email } } } }`,
		// Rule 4: the deprecated aliases.
		"podcasts alias":        `query($o: UUID) { podcasts(limit: 5, organisationId: $o) { id title } }`,
		"podcast alias":         `query($id: UUID!) { podcast(id: $id) { id title } }`,
		"reports podcast alias": `{ reports { podcast { id title } } }`,
		// The status argument takes the stored lower-case form; an
		// upper-case value is not an error.
		"status filter": `{
			a: reports(status: "pending") { id }
			b: reports(status: "scheduled") { id }
			c: reports(status: "in_progress") { id }
			d: reports(status: "complete") { id }
			e: reports(status: "failed") { id }
			f: reports(status: "out_of_quota") { id }
			g: reports(status: "awaiting_review") { id }
			h: reports(status: "COMPLETE") { id }
		}`,
		"timestamps": `{ reports(createdSince: "2025-01-02T03:04:05.000006+00:00", updatedSince: "2025-01-02T03:04:05.000006+00:00") { createdAt updatedAt } }`,
	}
	for _, name := range sortedKeys(examples) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, errs := gqlparser.LoadQueryWithRules(schema, examples[name], nil); len(errs) > 0 {
				t.Errorf("%s: %v", name, errs)
			}
		})
	}
}

func checkFields(t *testing.T, schema *ast.Schema, where string, def *ast.Definition, want []specField) {
	t.Helper()
	for _, wf := range want {
		gf := def.Fields.ForName(wf.name)
		if gf == nil {
			t.Errorf("%s: field %s is missing", where, wf.name)
			continue
		}
		if p := matchType(schema, gf.Type, wf.typ); p != "" {
			t.Errorf("%s.%s: %s", where, wf.name, p)
		}
		checkDeprecated(t, where+"."+wf.name, gf.Directives, wf.deprecated)
	}
}

func checkDeprecated(t *testing.T, where string, dirs ast.DirectiveList, want bool) {
	t.Helper()
	d := dirs.ForName("deprecated")
	switch {
	case want && d == nil:
		t.Errorf("%s: not marked @deprecated, the spec deprecates it", where)
	case want && (d.Arguments.ForName("reason") == nil || d.Arguments.ForName("reason").Value.Raw == ""):
		t.Errorf("%s: @deprecated without a reason", where)
	case !want && d != nil:
		t.Errorf("%s: marked @deprecated, but it is part of the stable contract", where)
	}
}

// resolvePath follows field names from Query and returns the named type found
// at the end.
func resolvePath(schema *ast.Schema, path string) (*ast.Definition, error) {
	def := schema.Query
	walked := "Query"
	for _, name := range strings.Split(path, ".") {
		f := def.Fields.ForName(name)
		if f == nil {
			return nil, fmt.Errorf("%s: %s (%s) has no field %s", path, walked, def.Name, name)
		}
		walked += "." + name
		def = schema.Types[f.Type.Name()]
		if def == nil {
			return nil, fmt.Errorf("%s: type %s of %s is not defined", path, f.Type.Name(), walked)
		}
	}
	return def, nil
}

// matchType compares a schema type with a spec type (notation above) and
// describes the mismatch, or returns "".
func matchType(schema *ast.Schema, got *ast.Type, want string) string {
	var problem func(got *ast.Type, want string) string
	problem = func(got *ast.Type, want string) string {
		switch {
		case strings.HasSuffix(want, "!"):
			if !got.NonNull {
				return "nullable, the spec says it is always present"
			}
			want = strings.TrimSuffix(want, "!")
		case strings.HasSuffix(want, "?"):
			if got.NonNull {
				return "non-null, the spec says it can be null or omitted"
			}
			want = strings.TrimSuffix(want, "?")
		}
		if strings.HasPrefix(want, "[") {
			if got.Elem == nil {
				return "not a list"
			}
			return problem(got.Elem, strings.TrimSuffix(strings.TrimPrefix(want, "["), "]"))
		}
		if got.Elem != nil {
			return "a list, the spec says a single value"
		}
		def := schema.Types[got.NamedType]
		switch want {
		case "{}":
			if def == nil || (def.Kind != ast.Object && def.Kind != ast.Union) {
				return got.NamedType + " is not an object or union type"
			}
		case "enum":
			if def == nil || def.Kind != ast.Enum {
				return got.NamedType + " is not an enum"
			}
		default:
			if got.NamedType != want {
				return "type " + got.NamedType + ", want " + want
			}
		}
		return ""
	}
	if p := problem(got, want); p != "" {
		return fmt.Sprintf("%s (schema %s, spec %s)", p, got.String(), want)
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
