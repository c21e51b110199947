package drift

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// loadOpenAPI reads an OpenAPI document with kin-openapi, its references resolved.
func loadOpenAPI(ctx context.Context, data []byte) (*openapi3.T, error) {
	if !json.Valid(data) {
		return nil, fmt.Errorf("%w: openapi.json is not JSON", ErrNotJSON)
	}
	loader := openapi3.NewLoader()
	loader.Context = ctx
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("%w: openapi.json is not an OpenAPI document: %s", ErrNotJSON, err)
	}
	if doc.Paths == nil {
		return nil, fmt.Errorf("%w: openapi.json has no paths", ErrNotJSON)
	}
	return doc, nil
}

// pathParam matches a path template's parameter, whose name does not matter to a client.
var pathParam = regexp.MustCompile(`\{[^}]*\}`)

// operations maps "METHOD /path/{}" to each operation of doc, with its path as written.
type operation struct {
	where string // METHOD and the path as the document writes it
	op    *openapi3.Operation
	item  *openapi3.PathItem
}

func operations(doc *openapi3.T) map[string]operation {
	out := map[string]operation{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			key := method + " " + pathParam.ReplaceAllString(path, "{}")
			out[key] = operation{where: method + " " + path, op: op, item: item}
		}
	}
	return out
}

// differ gathers the differences of one surface and source.
type differ struct {
	surface, source string
	out             *[]Difference
}

func (d differ) add(class Class, where, path, change, detail string) {
	*d.out = append(*d.out, Difference{Class: class, Surface: d.surface, Source: d.source, Where: where, Path: path, Change: change, Detail: detail})
}

// compareOpenAPI compares the live document with the fake's: operations, parameters, request
// bodies and responses, and within each schema its fields, types, nullability and enum values.
func compareOpenAPI(fake, live *openapi3.T, out *[]Difference) {
	d := differ{surface: SurfaceREST, source: SourceContract, out: out}
	fo, lo := operations(fake), operations(live)
	for _, key := range sortedKeys(lo) {
		if _, ok := fo[key]; !ok {
			d.add(Additive, lo[key].where, "", "operation added", lo[key].op.OperationID)
		}
	}
	for _, key := range sortedKeys(fo) {
		f := fo[key]
		l, ok := lo[key]
		if !ok {
			d.add(Breaking, f.where, "", "operation removed", f.op.OperationID)
			continue
		}
		compareParameters(d, f, l)
		if fb, lb := jsonBody(f.op.RequestBody), jsonBody(l.op.RequestBody); fb != nil || lb != nil {
			switch {
			case lb == nil:
				d.add(Breaking, f.where, "request body", "request body removed", "")
			case fb == nil:
				d.add(Breaking, f.where, "request body", "request body added", "")
			default:
				sc := schemaCompare{d: d, where: f.where, request: true, seen: map[[2]*openapi3.Schema]bool{}}
				sc.compare("request body", fb, lb)
			}
		}
		compareResponses(d, f, l)
	}
}

func compareParameters(d differ, f, l operation) {
	params := func(o operation) map[string]*openapi3.Parameter {
		m := map[string]*openapi3.Parameter{}
		for _, list := range []openapi3.Parameters{o.item.Parameters, o.op.Parameters} {
			for _, p := range list {
				if p != nil && p.Value != nil && p.Value.In != openapi3.ParameterInPath {
					m[p.Value.In+" "+p.Value.Name] = p.Value
				}
			}
		}
		return m
	}
	fp, lp := params(f), params(l)
	for _, key := range sortedKeys(lp) {
		if _, ok := fp[key]; !ok {
			if lp[key].Required {
				d.add(Breaking, f.where, "parameter "+key, "required parameter added", "")
			} else {
				d.add(Additive, f.where, "parameter "+key, "optional parameter added", "")
			}
		}
	}
	for _, key := range sortedKeys(fp) {
		l, ok := lp[key]
		if !ok {
			d.add(Breaking, f.where, "parameter "+key, "parameter removed", "")
			continue
		}
		if l.Required && !fp[key].Required {
			d.add(Breaking, f.where, "parameter "+key, "parameter made required", "")
		}
		if fp[key].Schema != nil && l.Schema != nil {
			sc := schemaCompare{d: d, where: f.where, request: true, seen: map[[2]*openapi3.Schema]bool{}}
			sc.compare("parameter "+key, fp[key].Schema.Value, l.Schema.Value)
		}
	}
}

func compareResponses(d differ, f, l operation) {
	fr, lr := responses(f.op), responses(l.op)
	for _, code := range sortedKeys(lr) {
		if _, ok := fr[code]; !ok {
			d.add(Additive, f.where, code, "response added", "")
		}
	}
	for _, code := range sortedKeys(fr) {
		lresp, ok := lr[code]
		if !ok {
			d.add(Breaking, f.where, code, "response removed", "")
			continue
		}
		fs, ls := jsonContent(fr[code].Content), jsonContent(lresp.Content)
		switch {
		case fs == nil && ls == nil:
		case ls == nil:
			d.add(Breaking, f.where, code+" body", "JSON body removed", "")
		case fs == nil:
			d.add(Additive, f.where, code+" body", "JSON body added", "")
		default:
			sc := schemaCompare{d: d, where: f.where, seen: map[[2]*openapi3.Schema]bool{}}
			sc.compare(code+" body", fs, ls)
		}
	}
}

func responses(op *openapi3.Operation) map[string]*openapi3.Response {
	out := map[string]*openapi3.Response{}
	if op.Responses == nil {
		return out
	}
	for code, r := range op.Responses.Map() {
		if r != nil && r.Value != nil {
			out[code] = r.Value
		}
	}
	return out
}

func jsonBody(rb *openapi3.RequestBodyRef) *openapi3.Schema {
	if rb == nil || rb.Value == nil {
		return nil
	}
	return jsonContent(rb.Value.Content)
}

func jsonContent(c openapi3.Content) *openapi3.Schema {
	for _, ct := range sortedKeys(c) {
		if strings.Contains(ct, "json") && c[ct] != nil && c[ct].Schema != nil && c[ct].Schema.Value != nil {
			return c[ct].Schema.Value
		}
	}
	return nil
}

// flat is a schema with its allOf merged in: what a value of it must be.
type flat struct {
	types    []string // sorted; empty is any type
	format   string
	nullable bool
	props    map[string]*openapi3.Schema
	required map[string]bool
	enum     []string
	items    *openapi3.Schema
	// alternatives are an anyOf's or oneOf's schemas.
	alternatives []*openapi3.Schema
	// additional is true when unlisted fields are part of the contract (additionalProperties).
	additional bool
}

func flatten(s *openapi3.Schema) flat {
	f := flat{props: map[string]*openapi3.Schema{}, required: map[string]bool{}}
	var walk func(s *openapi3.Schema, depth int)
	walk = func(s *openapi3.Schema, depth int) {
		if s == nil || depth > 8 {
			return
		}
		if s.Type != nil {
			for _, t := range s.Type.Slice() {
				if !slices.Contains(f.types, t) {
					f.types = append(f.types, t)
				}
			}
		}
		if s.Format != "" {
			f.format = s.Format
		}
		f.nullable = f.nullable || s.Nullable
		for name, p := range s.Properties {
			if p != nil && p.Value != nil {
				f.props[name] = p.Value
			}
		}
		for _, r := range s.Required {
			f.required[r] = true
		}
		for _, e := range s.Enum {
			f.enum = append(f.enum, fmt.Sprint(e))
		}
		if s.Items != nil && s.Items.Value != nil {
			f.items = s.Items.Value
		}
		if s.AdditionalProperties.Has != nil && *s.AdditionalProperties.Has || s.AdditionalProperties.Schema != nil {
			f.additional = true
		}
		for _, alt := range append(slices.Clone(s.AnyOf), s.OneOf...) {
			if alt != nil && alt.Value != nil {
				f.alternatives = append(f.alternatives, alt.Value)
			}
		}
		for _, sub := range s.AllOf {
			if sub != nil {
				walk(sub.Value, depth+1)
			}
		}
	}
	walk(s, 0)
	if len(f.alternatives) > 0 && len(f.types) == 0 {
		for _, alt := range f.alternatives {
			a := flatten(alt)
			f.nullable = f.nullable || a.nullable
			for _, t := range a.types {
				if !slices.Contains(f.types, t) {
					f.types = append(f.types, t)
				}
			}
		}
	}
	slices.Sort(f.types)
	slices.Sort(f.enum)
	f.enum = slices.Compact(f.enum)
	return f
}

func typeText(types []string) string {
	if len(types) == 0 {
		return "any"
	}
	return strings.Join(types, "|")
}

// schemaCompare compares two schemas of one operation; request says which way values flow (a
// client sends a request body and reads a response), which decides what breaks a client.
type schemaCompare struct {
	d       differ
	where   string
	request bool
	seen    map[[2]*openapi3.Schema]bool
}

func (sc schemaCompare) compare(path string, fs, ls *openapi3.Schema) {
	if fs == nil || ls == nil || sc.seen[[2]*openapi3.Schema{fs, ls}] {
		return
	}
	sc.seen[[2]*openapi3.Schema{fs, ls}] = true
	f, l := flatten(fs), flatten(ls)
	if ft, lt := typeText(f.types), typeText(l.types); ft != lt {
		// A wider type a client reads, or a narrower one it sends, still works: neither is
		// drift a v1 client notices, but the fake should learn it.
		class := Breaking
		if sc.request && len(l.types) == 0 || sc.request && subset(f.types, l.types) && len(f.types) > 0 || !sc.request && subset(l.types, f.types) && len(l.types) > 0 {
			class = Additive
		}
		sc.d.add(class, sc.where, path, "type changed", "fake "+ft+", live "+lt)
		return
	}
	if f.format != l.format {
		sc.d.add(Breaking, sc.where, path, "format changed", fmt.Sprintf("fake %q, live %q", f.format, l.format))
	}
	if f.nullable != l.nullable {
		// A response newly nullable, or a request no longer accepting null, breaks a client.
		if l.nullable != sc.request {
			sc.d.add(Breaking, sc.where, path, "nullability changed", fmt.Sprintf("fake nullable %t, live %t", f.nullable, l.nullable))
		} else {
			sc.d.add(Additive, sc.where, path, "nullability changed", fmt.Sprintf("fake nullable %t, live %t", f.nullable, l.nullable))
		}
	}
	for _, v := range l.enum {
		if len(f.enum) > 0 && !slices.Contains(f.enum, v) {
			sc.d.add(Additive, sc.where, path, "enum value added", v)
		}
	}
	for _, v := range f.enum {
		if len(l.enum) > 0 && !slices.Contains(l.enum, v) {
			sc.d.add(Breaking, sc.where, path, "enum value removed", v)
		}
	}
	for _, name := range sortedKeys(l.props) {
		if _, ok := f.props[name]; !ok {
			if sc.request && l.required[name] {
				sc.d.add(Breaking, sc.where, joinPath(path, name), "required field added", "")
			} else {
				sc.d.add(Additive, sc.where, joinPath(path, name), "field added", "")
			}
		}
	}
	for _, name := range sortedKeys(f.props) {
		lp, ok := l.props[name]
		if !ok {
			sc.d.add(Breaking, sc.where, joinPath(path, name), "field removed", "")
			continue
		}
		switch {
		case !sc.request && f.required[name] && !l.required[name]:
			sc.d.add(Breaking, sc.where, joinPath(path, name), "no longer always present", "")
		case sc.request && l.required[name] && !f.required[name]:
			sc.d.add(Breaking, sc.where, joinPath(path, name), "field made required", "")
		case f.required[name] != l.required[name]:
			sc.d.add(Additive, sc.where, joinPath(path, name), "required changed", fmt.Sprintf("fake required %t, live %t", f.required[name], l.required[name]))
		}
		sc.compare(joinPath(path, name), f.props[name], lp)
	}
	if f.items != nil && l.items != nil {
		sc.compare(path+"[]", f.items, l.items)
	}
}

// subset reports whether every type of a is in b.
func subset(a, b []string) bool {
	for _, t := range a {
		if !slices.Contains(b, t) {
			return false
		}
	}
	return true
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	return slices.Sorted(maps.Keys(m))
}
