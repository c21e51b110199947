package drift

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/podqa/podqa-go/fakeserver/internal/contractfiles"
)

// The paths of the public contract documents under the base URL.
const (
	OpenAPIPath = "/api/rest/v1/openapi.json"
	SDLPath     = "/schema.graphql"
)

// Check compares the service at baseURL with the fake's contracts. Keyless, it fetches the
// public openapi.json and schema.graphql and compares them with the fake's own: operations,
// parameters, request and response fields, types, nullability and enum values in REST, and
// types, fields, arguments, enum values and union members in GraphQL. WithAPIKey adds
// read-only calls (REST GET /me, /series, one series' episodes, /reports?limit=5, one full
// report and its transcript, /credits; GraphQL user, currentApiKey, seriesList, reports and
// report), each answer held to the fake's contract.
//
// A service that could not be checked is an error wrapping ErrUnreachable, ErrNotJSON or
// ErrKeyRefused (or ErrInvalidArgument for a bad base URL or option); differences are the
// Report's, never an error.
func Check(ctx context.Context, baseURL string, opts ...Option) (*Report, error) {
	s, err := newSettings(opts)
	if err != nil {
		return nil, err
	}
	sv, err := newService(baseURL, s)
	if err != nil {
		return nil, err
	}
	rep := &Report{BaseURL: sv.base, WithKey: s.apiKey != ""}
	fakeAPI, err := loadOpenAPI(ctx, contractfiles.OpenAPI())
	if err != nil {
		return nil, fmt.Errorf("drift: the fake's own openapi.json: %w", err)
	}
	fakeSDL, err := loadSDL("schema.graphql", contractfiles.SchemaGraphQL())
	if err != nil {
		return nil, fmt.Errorf("drift: the fake's own schema.graphql: %w", err)
	}

	body, _, err := sv.document(ctx, OpenAPIPath)
	if err != nil {
		return nil, err
	}
	liveAPI, err := loadOpenAPI(ctx, body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", OpenAPIPath, err)
	}
	rep.Checked = append(rep.Checked, "GET "+OpenAPIPath)
	compareOpenAPI(fakeAPI, liveAPI, &rep.Differences)

	body, mediaType, err := sv.document(ctx, SDLPath)
	if err != nil {
		return nil, err
	}
	if mediaType == "text/html" || json.Valid(body) {
		return nil, fmt.Errorf("%w: GET %s: the answer is %s, not GraphQL SDL", ErrNotJSON, SDLPath, orDash(mediaType))
	}
	liveSDL, err := loadSDL("live schema.graphql", body)
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: not GraphQL SDL: %s", ErrNotJSON, SDLPath, oneLine(err.Error()))
	}
	rep.Checked = append(rep.Checked, "GET "+SDLPath)
	compareSDL(fakeSDL, liveSDL, &rep.Differences)

	if sv.sdk != nil {
		ac := &answers{sv: sv, api: fakeAPI, sdl: fakeSDL, rep: rep}
		if err := ac.rest(ctx); err != nil {
			return nil, err
		}
		if err := ac.graphQL(ctx); err != nil {
			return nil, err
		}
	}
	rep.finish()
	return rep, nil
}

func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// answers holds live answers to the fake's contracts.
type answers struct {
	sv  *service
	api *openapi3.T
	sdl *ast.Schema
	rep *Report
	// workspace is GET /me's, for GraphQL's organisationId.
	wsType, wsID string
	reportID     string
}

// call makes one read-only REST call and holds its answer to the fake's operation at opKey
// (METHOD /path with {} for parameters). An answer the contract says cannot be (a 4xx) is a
// breaking difference; a refused key or an unreachable service ends the check.
func (a *answers) call(ctx context.Context, opKey, path string) (any, error) {
	a.rep.Checked = append(a.rep.Checked, "GET /api/rest/v1"+path)
	op, ok := operations(a.api)[opKey]
	d := differ{surface: SurfaceREST, source: SourceAnswer, out: &a.rep.Differences}
	body, err := a.sv.get(ctx, path)
	var ae *answerError
	switch {
	case errors.As(err, &ae):
		d.add(Breaking, opKey, "", "call refused", ae.Error())
		return nil, nil
	case err != nil:
		return nil, err
	}
	v, err := decodeAnswer(body)
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %s", ErrNotJSON, path, err)
	}
	if ok {
		if schema := jsonContent(responseContent(op.op, "200")); schema != nil {
			answerCheck{d: d, where: op.where}.check("200 body", v, schema, 0)
		}
	}
	return v, nil
}

func responseContent(op *openapi3.Operation, code string) openapi3.Content {
	if op.Responses == nil {
		return nil
	}
	if r := op.Responses.Value(code); r != nil && r.Value != nil {
		return r.Value.Content
	}
	return nil
}

func (a *answers) rest(ctx context.Context) error {
	me, err := a.call(ctx, "GET /me", "/me")
	if err != nil {
		return err
	}
	if ws, ok := field(me, "workspace").(map[string]any); ok {
		a.wsType, _ = ws["type"].(string)
		a.wsID, _ = ws["id"].(string)
	}
	series, err := a.call(ctx, "GET /series", "/series?limit=5")
	if err != nil {
		return err
	}
	if id := firstID(series); id != "" {
		if _, err := a.call(ctx, "GET /series/{}/episodes", "/series/"+url.PathEscape(id)+"/episodes?limit=5"); err != nil {
			return err
		}
	}
	reports, err := a.call(ctx, "GET /reports", "/reports?limit=5")
	if err != nil {
		return err
	}
	if id := firstID(reports); id != "" {
		a.reportID = id
		if _, err := a.call(ctx, "GET /reports/{}", "/reports/"+url.PathEscape(id)); err != nil {
			return err
		}
		if _, err := a.call(ctx, "GET /reports/{}/transcript", "/reports/"+url.PathEscape(id)+"/transcript"); err != nil {
			return err
		}
	}
	_, err = a.call(ctx, "GET /credits", "/credits")
	return err
}

func field(v any, name string) any {
	m, _ := v.(map[string]any)
	return m[name]
}

// firstID is the id of a list answer's first item.
func firstID(list any) string {
	items, _ := field(list, "items").([]any)
	if len(items) == 0 {
		return ""
	}
	id, _ := field(items[0], "id").(string)
	return id
}

// reportFields are the contract fields of a GraphQL report.
const reportFields = `fragment R on ReportType { id name status createdAt updatedAt stats fileInfo metadata results transcript
  coverImage audioUrl series { id title } standard { id name builtin } transcriptIncluded }`

func (a *answers) graphQL(ctx context.Context) error {
	var org any
	if a.wsType == "organisation" && a.wsID != "" {
		org = a.wsID
	}
	queries := []struct{ name, query string }{
		{"user, currentApiKey", `{ user { id email firstName lastName } currentApiKey { maskedKey owner { __typename
  ... on OrganisationType { id name } ... on UserType { id email } } } }`},
		{"seriesList", `query($org: UUID) { seriesList(limit: 5, organisationId: $org) { id title kind feedUrl lastCheck coverImageUrl
  sources { feedUrl lastCheck } historicScores { reportId passed requiredFailures } } }`},
		{"reports", `query($org: UUID) { reports(limit: 5, organisationId: $org) { ...R } } ` + reportFields},
	}
	if a.reportID != "" {
		queries = append(queries, struct{ name, query string }{"report", `query($id: UUID!) { report(id: $id) { ...R } } ` + reportFields})
	}
	d := differ{surface: SurfaceGraphQL, source: SourceAnswer, out: &a.rep.Differences}
	for _, q := range queries {
		vars := map[string]any{}
		if strings.Contains(q.query, "$org") {
			vars["org"] = org
		}
		if strings.Contains(q.query, "$id") {
			vars["id"] = a.reportID
		}
		a.rep.Checked = append(a.rep.Checked, "GraphQL "+q.name)
		data, err := a.sv.graphQL(ctx, q.query, vars)
		var ge *graphQLError
		switch {
		case errors.As(err, &ge):
			d.add(Breaking, "query "+q.name, "", "query refused", ge.msg)
			continue
		case err != nil:
			return err
		}
		v, err := decodeAnswer(data)
		if err != nil {
			return fmt.Errorf("%w: GraphQL %s: %s", ErrNotJSON, q.name, err)
		}
		query := a.sdl.Types["Query"]
		obj, _ := v.(map[string]any)
		for _, name := range sortedKeys(obj) {
			if f := query.Fields.ForName(name); f != nil {
				a.walk(d, "query "+name, name, obj[name], f.Type, 0)
			}
		}
	}
	return nil
}

// jsonStringSchemas are the REST schemas a GraphQL report's JSON-text fields carry.
var jsonStringSchemas = map[string]struct {
	schema string
	list   bool
}{
	"stats": {"Stats", false}, "fileInfo": {"FileInfo", false}, "metadata": {"Metadata", false},
	"coverImage": {"CoverImage", false}, "results": {"ResultEntry", true}, "transcript": {"TranscriptEntry", true},
}

// walk holds a GraphQL answer's value to its type in the fake's schema.
func (a *answers) walk(d differ, where, path string, v any, t *ast.Type, depth int) {
	if t == nil || depth > maxAnswerDepth {
		return
	}
	if v == nil {
		if t.NonNull {
			d.add(Breaking, where, path, "null where the contract has none", t.String())
		}
		return
	}
	if t.Elem != nil {
		list, ok := v.([]any)
		if !ok {
			d.add(Breaking, where, path, "type mismatch", "contract "+t.String()+", live "+jsonType(v))
			return
		}
		for _, el := range list {
			a.walk(d, where, path+"[]", el, t.Elem, depth+1)
		}
		return
	}
	def := a.sdl.Types[t.NamedType]
	if def == nil {
		return
	}
	got := jsonType(v)
	switch def.Kind {
	case ast.Scalar:
		want := map[string]string{"Int": "integer", "Float": "number", "Boolean": "boolean", "String": "string", "ID": "string",
			"UUID": "string", "DateTime": "string", "JSONString": "string"}[def.Name]
		if want != "" && !typeFits(got, []string{want}) {
			d.add(Breaking, where, path, "type mismatch", "contract "+def.Name+", live "+got)
		}
	case ast.Enum:
		s, ok := v.(string)
		switch {
		case !ok:
			d.add(Breaking, where, path, "type mismatch", "contract enum "+def.Name+", live "+got)
		case !slices.Contains(enumValues(def), s):
			d.add(Additive, where, path, "unknown enum value", s)
		}
	case ast.Object, ast.Union, ast.Interface:
		obj, ok := v.(map[string]any)
		if !ok {
			d.add(Breaking, where, path, "type mismatch", "contract "+def.Name+", live "+got)
			return
		}
		if def.Kind != ast.Object {
			name, _ := obj["__typename"].(string)
			concrete := a.sdl.Types[name]
			if concrete == nil || !slices.Contains(def.Types, name) && def.Kind == ast.Union {
				d.add(Additive, where, path, "unknown union member", name)
				return
			}
			def = concrete
		}
		for _, name := range sortedKeys(obj) {
			if name == "__typename" {
				continue
			}
			f := def.Fields.ForName(name)
			if f == nil {
				d.add(Additive, where, joinPath(path, name), "field the contract lacks", jsonType(obj[name]))
				continue
			}
			a.walk(d, where, joinPath(path, name), obj[name], f.Type, depth+1)
			if js, ok := jsonStringSchemas[name]; ok && def.Name == "ReportType" {
				a.jsonText(d, where, joinPath(path, name), obj[name], js.schema, js.list)
			}
		}
	}
}

// jsonText holds a GraphQL JSON-text field's decoded content to the REST schema it carries.
func (a *answers) jsonText(d differ, where, path string, v any, schema string, list bool) {
	text, ok := v.(string)
	if !ok {
		return
	}
	decoded, err := decodeAnswer([]byte(text))
	if err != nil {
		d.add(Breaking, where, path, "JSON text that is not JSON", oneLine(err.Error()))
		return
	}
	ref := a.api.Components.Schemas[schema]
	if ref == nil || ref.Value == nil {
		return
	}
	s := ref.Value
	if list {
		s = &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeArray}, Items: ref}
	}
	answerCheck{d: d, where: where}.check(path, decoded, s, 0)
}
