package fakeserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
)

const introspectionQuery = `{
  __schema {
    queryType { name }
    types {
      kind name description
      fields(includeDeprecated: true) {
        name description isDeprecated deprecationReason
        args(includeDeprecated: true) { name description type { ...T } defaultValue isDeprecated deprecationReason }
        type { ...T }
      }
      enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
      possibleTypes { name }
      inputFields { name description type { ...T } defaultValue }
    }
  }
}
fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { kind name } } } }`

type introType struct {
	Kind   string     `json:"kind"`
	Name   *string    `json:"name"`
	OfType *introType `json:"ofType"`
}

func (t introType) String() string {
	switch t.Kind {
	case "NON_NULL":
		return t.OfType.String() + "!"
	case "LIST":
		return "[" + t.OfType.String() + "]"
	}
	return *t.Name
}

type introValue struct {
	Name              string    `json:"name"`
	Description       *string   `json:"description"`
	Type              introType `json:"type"`
	DefaultValue      *string   `json:"defaultValue"`
	IsDeprecated      bool      `json:"isDeprecated"`
	DeprecationReason *string   `json:"deprecationReason"`
	Args              []introValue
}

type introSchema struct {
	Schema struct {
		QueryType struct{ Name string } `json:"queryType"`
		Types     []struct {
			Kind          string       `json:"kind"`
			Name          string       `json:"name"`
			Description   *string      `json:"description"`
			Fields        []introValue `json:"fields"`
			EnumValues    []introValue `json:"enumValues"`
			PossibleTypes []struct{ Name string }
			InputFields   []introValue `json:"inputFields"`
		} `json:"types"`
	} `json:"__schema"`
}

// sdlFromIntrospection writes the schema an introspection answer describes as SDL.
func sdlFromIntrospection(s introSchema) string {
	var b bytes.Buffer
	desc := func(d *string, indent string) {
		if d != nil && *d != "" {
			fmt.Fprintf(&b, "%s%s\n", indent, strconv.Quote(*d))
		}
	}
	deprecated := func(v introValue) string {
		if !v.IsDeprecated {
			return ""
		}
		return " @deprecated(reason: " + strconv.Quote(*v.DeprecationReason) + ")"
	}
	fmt.Fprintf(&b, "schema { query: %s }\n", s.Schema.QueryType.Name)
	builtin := map[string]bool{"String": true, "Int": true, "Float": true, "Boolean": true, "ID": true}
	for _, t := range s.Schema.Types {
		if strings.HasPrefix(t.Name, "__") || builtin[t.Name] {
			continue
		}
		desc(t.Description, "")
		switch t.Kind {
		case "SCALAR":
			fmt.Fprintf(&b, "scalar %s\n", t.Name)
		case "UNION":
			var names []string
			for _, p := range t.PossibleTypes {
				names = append(names, p.Name)
			}
			sort.Strings(names)
			fmt.Fprintf(&b, "union %s = %s\n", t.Name, strings.Join(names, " | "))
		case "ENUM":
			fmt.Fprintf(&b, "enum %s {\n", t.Name)
			for _, v := range t.EnumValues {
				desc(v.Description, "  ")
				fmt.Fprintf(&b, "  %s%s\n", v.Name, deprecated(v))
			}
			b.WriteString("}\n")
		case "OBJECT", "INPUT_OBJECT", "INTERFACE":
			kw := map[string]string{"OBJECT": "type", "INPUT_OBJECT": "input", "INTERFACE": "interface"}[t.Kind]
			fmt.Fprintf(&b, "%s %s {\n", kw, t.Name)
			for _, f := range append(t.Fields, t.InputFields...) {
				desc(f.Description, "  ")
				fmt.Fprintf(&b, "  %s", f.Name)
				if len(f.Args) > 0 {
					b.WriteString("(\n")
					for _, a := range f.Args {
						desc(a.Description, "    ")
						fmt.Fprintf(&b, "    %s: %s", a.Name, a.Type)
						if a.DefaultValue != nil {
							fmt.Fprintf(&b, " = %s", *a.DefaultValue)
						}
						b.WriteString(deprecated(a) + "\n")
					}
					b.WriteString("  )")
				}
				fmt.Fprintf(&b, ": %s%s\n", f.Type, deprecated(f))
			}
			b.WriteString("}\n")
		}
	}
	return b.String()
}

// formatSDL parses SDL and prints it in gqlparser's canonical form, definitions sorted by name
// and union members sorted, so that two texts of one schema compare equal.
func formatSDL(t *testing.T, name, sdl string) string {
	t.Helper()
	schema, err := gqlparser.LoadSchema(&ast.Source{Name: name, Input: sdl})
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, sdl)
	}
	for _, d := range schema.Types {
		if d.Kind == ast.Union {
			sort.Strings(d.Types)
		}
	}
	var b bytes.Buffer
	formatter.NewFormatter(&b).FormatSchema(schema)
	return b.String()
}

// TestGraphQLIntrospectionMatchesSchema guards against drift: the schema the fake serves, as its
// introspection describes it, is schema.graphql (descriptions, defaults and deprecations
// included).
func TestGraphQLIntrospectionMatchesSchema(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	status, a := gql(t, srv, "", introspectionQuery, nil)
	if status != 200 || len(a.Errors) > 0 {
		t.Fatalf("introspection: %d %+v", status, a.Errors)
	}
	raw, _ := json.Marshal(a.Data)
	var s introSchema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile("../schema.graphql")
	if err != nil {
		t.Fatal(err)
	}
	served := formatSDL(t, "introspection", sdlFromIntrospection(s))
	want := formatSDL(t, "schema.graphql", string(file))
	if diff := cmp.Diff(want, served); diff != "" {
		t.Errorf("the fake's schema differs from schema.graphql (-file +served):\n%s", diff)
	}
	if !strings.Contains(served, "podcasts") || !strings.Contains(served, "JSONString") {
		t.Errorf("the formatted schema lacks expected definitions:\n%s", served)
	}
}
