// Package openapicheck checks requests against an OpenAPI document before their handlers see
// them: the REST API against openapi.json, the control API against control.openapi.json, so
// that parameter and body rules come from the contracts rather than from second copies in the
// handlers. A refusal is a core validation error naming the field.
package openapicheck

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/restserver"
)

// restContract is openapi.json as embedded in the generated server, loaded once: it is immutable
// after loading and shared by every fake in the process.
var restContract = sync.OnceValues(func() (*openapi3.T, error) {
	doc, err := restserver.GetSpec()
	if err != nil {
		return nil, fmt.Errorf("fakeserver: load the embedded openapi.json: %w", err)
	}
	doc.Servers = nil // routes are matched by our own table; server URLs do not matter here
	RelaxDateTimeQueries(doc)
	return doc, nil
})

// lenientDateTime is what the service accepts in a date-time query parameter: a date, with an
// optional time, with an optional offset (none means UTC). JSON Schema's date-time format
// demands an offset, so the fake's private copy of the contract checks this pattern instead;
// apitime.ParseLenient then reads the value.
const lenientDateTime = `^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$`

// RelaxDateTimeQueries makes every date-time query parameter of doc take what the service
// accepts (lenientDateTime) instead of JSON Schema's date-time, which demands an offset.
func RelaxDateTimeQueries(doc *openapi3.T) {
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, ref := range op.Parameters {
				p := ref.Value
				if p == nil || p.In != openapi3.ParameterInQuery || p.Schema == nil || p.Schema.Value == nil {
					continue
				}
				if sch := p.Schema.Value; sch.Format == "date-time" {
					relaxed := *sch
					relaxed.Format = ""
					relaxed.Pattern = lenientDateTime
					p.Schema = openapi3.NewSchemaRef("", &relaxed)
				}
			}
		}
	}
}

// Validator checks requests against an OpenAPI document, so parameter and body rules come from
// the contract rather than from a second copy in the handlers.
type Validator struct {
	doc *openapi3.T
	// ops maps "METHOD pattern" (the generated route) to the contract's route.
	ops map[string]*routers.Route
	// uuidOnly holds the "METHOD pattern" of the routes whose every parameter is a path
	// parameter that the contract types as a string of format uuid and nothing more, and that
	// take no body: a request to one with no query and no body passes the contract when its
	// path values are canonical UUIDs, which check tells without kin-openapi.
	uuidOnly map[string]bool
}

// New is the Validator of the REST API's openapi.json, its paths under base.
func New(base string) (*Validator, error) {
	doc, err := restContract()
	if err != nil {
		return nil, err
	}
	return For(doc, base), nil
}

// For is the Validator of doc, its paths under base: it indexes doc's operations by
// "METHOD base+path".
func For(doc *openapi3.T, base string) *Validator {
	v := &Validator{doc: doc, ops: map[string]*routers.Route{}, uuidOnly: map[string]bool{}}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			v.ops[method+" "+base+path] = &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op}
			if op.RequestBody == nil && onlyUUIDPathParams(item.Parameters, op.Parameters) {
				v.uuidOnly[method+" "+base+path] = true
			}
		}
	}
	return v
}

// onlyUUIDPathParams tells whether every parameter is in the path and typed by the contract as
// a string of format uuid, with no other rule that a canonical UUID could break.
func onlyUUIDPathParams(lists ...openapi3.Parameters) bool {
	for _, params := range lists {
		for _, ref := range params {
			p := ref.Value
			if p == nil || p.In != openapi3.ParameterInPath || p.Content != nil || p.Schema == nil || p.Schema.Value == nil {
				return false
			}
			sch := p.Schema.Value
			if !sch.Type.Is(openapi3.TypeString) || sch.Format != "uuid" || sch.Pattern != "" || len(sch.Enum) > 0 ||
				sch.MinLength > 0 || sch.MaxLength != nil || sch.Not != nil || len(sch.AllOf)+len(sch.AnyOf)+len(sch.OneOf) > 0 {
				return false
			}
		}
	}
	return true
}

// canonicalUUIDs tells whether every {name} segment of pattern matches, in path, a UUID in its
// canonical form (8-4-4-4-12 hexadecimal digits), without allocating.
func canonicalUUIDs(pattern, path string) bool {
	for pattern != "" {
		var pseg, seg string
		pseg, pattern, _ = strings.Cut(pattern, "/")
		seg, path, _ = strings.Cut(path, "/")
		if strings.HasPrefix(pseg, "{") && !isCanonicalUUID(seg) {
			return false
		}
	}
	return true
}

func isCanonicalUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		default:
			return false
		}
	}
	return true
}

// Check validates r, whose path matched pattern, and returns a validation_error describing the
// first problem.
func (v *Validator) Check(r *http.Request, pattern string) error {
	return v.CheckRoute(r, v.RouteKey(r.Method, pattern), pattern)
}

// RouteKey is the key of v's tables for a request of method on pattern (HEAD is checked as GET).
func (v *Validator) RouteKey(method, pattern string) string {
	if method == http.MethodHead {
		method = http.MethodGet
	}
	return method + " " + pattern
}

// CheckRoute is Check with the route's key already made (RouteKey), as the REST front makes it
// once per route.
func (v *Validator) CheckRoute(r *http.Request, key, pattern string) error {
	route := v.ops[key]
	if route == nil {
		return nil
	}
	if v.uuidOnly[key] && r.URL.RawQuery == "" && (r.Body == nil || r.Body == http.NoBody) && canonicalUUIDs(pattern, r.URL.Path) {
		return nil
	}
	if err := emptyTypedQuery(r, route); err != nil {
		return err
	}
	input := &openapi3filter.RequestValidationInput{
		Request:    r,
		PathParams: pathParams(pattern, r.URL.Path),
		Route:      route,
		Options: &openapi3filter.Options{
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		},
	}
	err := openapi3filter.ValidateRequest(context.WithoutCancel(r.Context()), input)
	if err == nil {
		return nil
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return core.ErrValidation("The request body is larger than %d bytes.", tooLarge.Limit)
	}
	return core.ErrValidation("%s", describe(err))
}

// emptyTypedQuery refuses a query parameter given with an empty value (?limit=) when the
// contract types it as anything but a string: kin-openapi reads such a value as absent, so
// ?limit= would otherwise get the default where ?limit=abc is refused. A string parameter's
// empty value is left to its schema (an enum or format refuses it).
func emptyTypedQuery(r *http.Request, route *routers.Route) error {
	query := r.URL.Query()
	for _, params := range []openapi3.Parameters{route.PathItem.Parameters, route.Operation.Parameters} {
		for _, ref := range params {
			p := ref.Value
			if p == nil || p.In != openapi3.ParameterInQuery || p.Schema == nil || p.Schema.Value == nil ||
				p.Schema.Value.Type == nil || p.Schema.Value.Type.Is("string") {
				continue
			}
			values, given := query[p.Name]
			if given && slices.Contains(values, "") {
				return core.ErrValidation("Invalid query parameter %s: it is empty; give %s or leave it out.", p.Name, typeWanted(p.Schema.Value))
			}
		}
	}
	return nil
}

// typeWanted names, for a message, the kind of value schema sch accepts.
func typeWanted(sch *openapi3.Schema) string {
	switch {
	case sch.Type == nil:
		return "a value of the documented type"
	case sch.Type.Is("integer"):
		return "a whole number in decimal digits"
	case sch.Type.Is("number"):
		return "a number"
	case sch.Type.Is("boolean"):
		return "true or false"
	}
	return "a value of the documented type"
}

// pathParams pairs the {name} segments of pattern with the request path's segments.
func pathParams(pattern, path string) map[string]string {
	params := map[string]string{}
	ps, rs := strings.Split(pattern, "/"), strings.Split(path, "/")
	for i, seg := range ps {
		if i < len(rs) && strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			params[strings.Trim(seg, "{}")] = rs[i]
		}
	}
	return params
}

// describe turns a kin-openapi error into a message a client can act on.
func describe(err error) string {
	var reqErr *openapi3filter.RequestError
	if !errors.As(err, &reqErr) {
		return "The request does not match the API contract."
	}
	var schemaErr *openapi3.SchemaError
	hasSchemaErr := errors.As(reqErr.Err, &schemaErr)
	switch {
	case reqErr.Parameter != nil:
		where := fmt.Sprintf("%s parameter %s", reqErr.Parameter.In, reqErr.Parameter.Name)
		if hasSchemaErr {
			return fmt.Sprintf("Invalid %s: %s.", where, strings.TrimSuffix(schemaErr.Reason, "."))
		}
		var parseErr *openapi3filter.ParseError
		if errors.As(reqErr.Err, &parseErr) {
			// Such as limit=1e3: say what was given and what is expected.
			want := "a value of the documented type"
			if sch := reqErr.Parameter.Schema; sch != nil && sch.Value != nil {
				want = typeWanted(sch.Value)
			}
			return fmt.Sprintf("Invalid %s: %q is not %s.", where, fmt.Sprint(parseErr.Value), want)
		}
		return fmt.Sprintf("Invalid %s: %s.", where, strings.TrimSuffix(reqErr.Reason, "."))
	case reqErr.RequestBody != nil:
		if !hasSchemaErr {
			if reqErr.Reason != "" {
				return "Invalid request body: " + strings.TrimSuffix(reqErr.Reason, ".") + "."
			}
			return "Invalid request body: it is not a JSON object of the expected shape."
		}
		// Only POST /reports uses `not`: its exactly-one-of rule.
		if schemaErr.SchemaField == "not" {
			return "Give exactly one of feed_url, series_id and report_id (report_id also needs original_filename and duration_ms)."
		}
		field := strings.Join(schemaErr.JSONPointer(), ".")
		if field == "" {
			return "Invalid request body: " + strings.TrimSuffix(schemaErr.Reason, ".") + "."
		}
		return fmt.Sprintf("Invalid request body field %s: %s.", field, strings.TrimSuffix(schemaErr.Reason, "."))
	default:
		return "The request does not match the API contract: " + reqErr.Error()
	}
}
