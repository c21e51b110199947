package drift

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// loadSDL parses a GraphQL schema document with gqlparser.
func loadSDL(name string, sdl []byte) (*ast.Schema, error) {
	schema, err := gqlparser.LoadSchema(&ast.Source{Name: name, Input: string(sdl)})
	if err != nil {
		return nil, err
	}
	return schema, nil
}

// compareSDL compares the live schema with the fake's, type by type of the fake's: what the
// fake has that the live schema lacks or types differently breaks a client; what the live one
// adds to a type the fake has (a field, an optional argument, an enum value, a union member) is
// additive. Types only the live schema has are not listed apart from the fields that reach them:
// the service serves a larger, internal schema around the contract.
func compareSDL(fake, live *ast.Schema, out *[]Difference) {
	d := differ{surface: SurfaceGraphQL, source: SourceContract, out: out}
	for _, name := range sortedKeys(fake.Types) {
		ft := fake.Types[name]
		if ft.BuiltIn || strings.HasPrefix(name, "__") {
			continue
		}
		lt, ok := live.Types[name]
		if !ok {
			d.add(Breaking, name, "", "type removed", strings.ToLower(string(ft.Kind)))
			continue
		}
		if ft.Kind != lt.Kind {
			d.add(Breaking, name, "", "kind changed", fmt.Sprintf("fake %s, live %s", ft.Kind, lt.Kind))
			continue
		}
		switch ft.Kind {
		case ast.Object, ast.Interface, ast.InputObject:
			compareFields(d, ft, lt)
		case ast.Enum:
			fv, lv := enumValues(ft), enumValues(lt)
			for _, v := range lv {
				if !slices.Contains(fv, v) {
					d.add(Additive, name, v, "enum value added", "")
				}
			}
			for _, v := range fv {
				if !slices.Contains(lv, v) {
					d.add(Breaking, name, v, "enum value removed", "")
				}
			}
		case ast.Union:
			for _, m := range lt.Types {
				if !slices.Contains(ft.Types, m) {
					d.add(Additive, name, m, "union member added", "")
				}
			}
			for _, m := range ft.Types {
				if !slices.Contains(lt.Types, m) {
					d.add(Breaking, name, m, "union member removed", "")
				}
			}
		}
	}
}

func enumValues(t *ast.Definition) []string {
	out := make([]string, 0, len(t.EnumValues))
	for _, v := range t.EnumValues {
		out = append(out, v.Name)
	}
	return out
}

func compareFields(d differ, ft, lt *ast.Definition) {
	input := ft.Kind == ast.InputObject
	for _, lf := range lt.Fields {
		if strings.HasPrefix(lf.Name, "__") || ft.Fields.ForName(lf.Name) != nil {
			continue
		}
		if input && lf.Type.NonNull && lf.DefaultValue == nil {
			d.add(Breaking, ft.Name, lf.Name, "required input field added", lf.Type.String())
		} else {
			d.add(Additive, ft.Name, lf.Name, "field added", lf.Type.String())
		}
	}
	for _, ff := range ft.Fields {
		if strings.HasPrefix(ff.Name, "__") {
			continue
		}
		lf := lt.Fields.ForName(ff.Name)
		if lf == nil {
			d.add(Breaking, ft.Name, ff.Name, "field removed", ff.Type.String())
			continue
		}
		compareTypeRef(d, ft.Name, ff.Name, ff.Type, lf.Type, input)
		for _, la := range lf.Arguments {
			if ff.Arguments.ForName(la.Name) != nil {
				continue
			}
			if la.Type.NonNull && la.DefaultValue == nil {
				d.add(Breaking, ft.Name, ff.Name+"("+la.Name+")", "required argument added", la.Type.String())
			} else {
				d.add(Additive, ft.Name, ff.Name+"("+la.Name+")", "optional argument added", la.Type.String())
			}
		}
		for _, fa := range ff.Arguments {
			la := lf.Arguments.ForName(fa.Name)
			if la == nil {
				d.add(Breaking, ft.Name, ff.Name+"("+fa.Name+")", "argument removed", fa.Type.String())
				continue
			}
			compareTypeRef(d, ft.Name, ff.Name+"("+fa.Name+")", fa.Type, la.Type, true)
		}
	}
}

// compareTypeRef compares a field's or argument's type; in says a client sends values of it.
func compareTypeRef(d differ, where, path string, f, l *ast.Type, in bool) {
	if f.String() == l.String() {
		return
	}
	if strings.ReplaceAll(f.String(), "!", "") != strings.ReplaceAll(l.String(), "!", "") {
		d.add(Breaking, where, path, "type changed", "fake "+f.String()+", live "+l.String())
		return
	}
	// Only nullability differs: a value a client reads may become non-null, one it sends may
	// become nullable; the other way breaks it.
	stricter := strings.Count(l.String(), "!") > strings.Count(f.String(), "!")
	if stricter != in {
		d.add(Additive, where, path, "nullability changed", "fake "+f.String()+", live "+l.String())
	} else {
		d.add(Breaking, where, path, "nullability changed", "fake "+f.String()+", live "+l.String())
	}
}
