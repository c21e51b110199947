package contract_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// openAPIPath is the REST contract, relative to this package's directory
// (go test runs tests there).
var openAPIPath = filepath.Join("..", "..", "..", "openapi.json")

// loadOpenAPI loads and resolves openapi.json. Every test loads its own copy
// so parallel tests never share kin-openapi's mutable state.
func loadOpenAPI(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromFile(openAPIPath)
	if err != nil {
		t.Fatalf("loading %s: %v", openAPIPath, err)
	}
	return doc
}

// oasOperation is one operation of the document with the path prefix its
// server gives it.
type oasOperation struct {
	method   string // upper case
	path     string // as written under paths
	fullPath string // server path prefix + path, e.g. /api/rest/v1/me
	item     *openapi3.PathItem
	op       *openapi3.Operation
}

func (o oasOperation) String() string { return o.method + " " + o.fullPath }

// isREST reports whether the operation is served under /api/rest/v1 (and so
// uses the REST error envelope) rather than at the webhook subscription root.
func (o oasOperation) isREST() bool { return strings.HasPrefix(o.fullPath, "/api/rest/v1/") }

// oasServerPrefix strips the templated origin from a server URL, leaving the
// path prefix: "{base_url}/api/rest/v1" gives "/api/rest/v1".
func oasServerPrefix(t *testing.T, servers openapi3.Servers) string {
	t.Helper()
	if len(servers) != 1 {
		t.Fatalf("want exactly one server, got %d", len(servers))
	}
	u := servers[0].URL
	if !strings.HasPrefix(u, "{base_url}") {
		t.Fatalf("server URL %q does not start with {base_url}", u)
	}
	return strings.TrimPrefix(u, "{base_url}")
}

// oasOperations lists every operation, sorted by full path then method.
func oasOperations(t *testing.T, doc *openapi3.T) []oasOperation {
	t.Helper()
	var ops []oasOperation
	for path, item := range doc.Paths.Map() {
		servers := doc.Servers
		if len(item.Servers) > 0 {
			servers = item.Servers
		}
		prefix := oasServerPrefix(t, servers)
		for method, op := range item.Operations() {
			if op.Servers != nil && len(*op.Servers) > 0 {
				t.Fatalf("%s %s: operation-level servers are not expected", method, path)
			}
			ops = append(ops, oasOperation{method: strings.ToUpper(method), path: path, fullPath: prefix + path, item: item, op: op})
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].fullPath != ops[j].fullPath {
			return ops[i].fullPath < ops[j].fullPath
		}
		return ops[i].method < ops[j].method
	})
	return ops
}

// oasRefName returns the component name a $ref points at ("" for none).
func oasRefName(ref string) string {
	if ref == "" {
		return ""
	}
	return ref[strings.LastIndex(ref, "/")+1:]
}

// oasSchemaWalk calls fn for sr and every schema reachable from it, once
// each. path names where the schema was reached from.
func oasSchemaWalk(sr *openapi3.SchemaRef, path string, seen map[*openapi3.Schema]bool, fn func(path string, s *openapi3.Schema)) {
	if sr == nil || sr.Value == nil {
		return
	}
	if sr.Ref != "" {
		path = oasRefName(sr.Ref)
	}
	s := sr.Value
	if seen[s] {
		return
	}
	seen[s] = true
	fn(path, s)
	for name, p := range s.Properties {
		oasSchemaWalk(p, path+"."+name, seen, fn)
	}
	oasSchemaWalk(s.Items, path+"[]", seen, fn)
	oasSchemaWalk(s.AdditionalProperties.Schema, path+".*", seen, fn)
	oasSchemaWalk(s.Not, path+".not", seen, fn)
	for _, list := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
		for _, m := range list {
			oasSchemaWalk(m, path, seen, fn)
		}
	}
}

func TestOpenAPIValidates(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	if doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi version = %q, want 3.0.3", doc.OpenAPI)
	}
	err := doc.Validate(context.Background(),
		openapi3.EnableExamplesValidation(),
		openapi3.EnableSchemaPatternValidation(),
		openapi3.EnableSchemaDefaultsValidation(),
		openapi3.EnableSchemaFormatValidation(),
	)
	if err != nil {
		t.Fatalf("openapi.json does not validate: %v", err)
	}
}

// TestOpenAPIFormatting keeps the file in the one layout everybody edits it
// in: JSON indented by two spaces, ending in a newline.
func TestOpenAPIFormatting(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(openAPIPath)
	if err != nil {
		t.Fatal(err)
	}
	var compact, indented bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	if err := json.Indent(&indented, compact.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	indented.WriteByte('\n')
	if !bytes.Equal(indented.Bytes(), data) {
		got, want := strings.Split(string(data), "\n"), strings.Split(indented.String(), "\n")
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("openapi.json is not indented with two spaces; line %d is %q, want %q", i+1, got[i], want[i])
			}
		}
		t.Fatalf("openapi.json is not indented with two spaces and a final newline")
	}
}

func TestOpenAPIServers(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	check := func(where string, servers openapi3.Servers, wantURL string) {
		t.Helper()
		if len(servers) != 1 {
			t.Errorf("%s: %d servers, want 1", where, len(servers))
			return
		}
		s := servers[0]
		if s.URL != wantURL {
			t.Errorf("%s: server URL %q, want %q", where, s.URL, wantURL)
		}
		v := s.Variables["base_url"]
		if v == nil || v.Default == "" || strings.HasSuffix(v.Default, "/") {
			t.Errorf("%s: base_url variable must have a default without a trailing slash", where)
		}
	}
	check("document", doc.Servers, "{base_url}/api/rest/v1")
	for path, item := range doc.Paths.Map() {
		if strings.HasPrefix(path, "/webhook/") {
			check(path, item.Servers, "{base_url}")
		} else if len(item.Servers) != 0 {
			t.Errorf("%s: REST paths must use the document server", path)
		}
	}
}

// TestOpenAPICreateReportExactlyOneOf checks that the POST /reports body
// schema enforces the exactly-one-of rule for any validator.
func TestOpenAPICreateReportExactlyOneOf(t *testing.T) {
	t.Parallel()
	const (
		feed   = `"feed_url": "https://feeds.example.org/show.rss"`
		series = `"series_id": "6f1d2c3b-4a5e-4f60-9b7a-8c9d0e1f2a3b"`
		upload = `"report_id": "3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e", "original_filename": "a.mp3", "duration_ms": 60000`
	)
	tests := []struct {
		name string
		body string
		ok   bool
	}{
		{"feed", `{` + feed + `}`, true},
		{"feed with episode_index", `{` + feed + `, "episode_index": 3}`, true},
		{"series", `{` + series + `}`, true},
		{"series with episode_index", `{` + series + `, "episode_index": 0}`, true},
		{"upload", `{` + upload + `}`, true},
		{"upload with zero duration", `{"report_id": "3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e", "original_filename": "a.mp3", "duration_ms": 0}`, true},

		{"empty", `{}`, false},
		{"only episode_index", `{"episode_index": 1}`, false},
		{"only retired podcast_id", `{"podcast_id": "6f1d2c3b-4a5e-4f60-9b7a-8c9d0e1f2a3b"}`, false},
		{"feed and series", `{` + feed + `, ` + series + `}`, false},
		{"feed and upload", `{` + feed + `, ` + upload + `}`, false},
		{"series and upload", `{` + series + `, ` + upload + `}`, false},
		{"all three", `{` + feed + `, ` + series + `, ` + upload + `}`, false},
		{"feed and bare report_id", `{` + feed + `, "report_id": "3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e"}`, false},
		{"upload without original_filename", `{"report_id": "3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e", "duration_ms": 60000}`, false},
		{"upload without duration_ms", `{"report_id": "3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e", "original_filename": "a.mp3"}`, false},
		{"negative episode_index", `{` + feed + `, "episode_index": -1}`, false},
		{"episode_index past int32", `{` + feed + `, "episode_index": 2147483648}`, false},
		{"negative duration_ms", `{"report_id": "3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e", "original_filename": "a.mp3", "duration_ms": -1}`, false},
		{"series_id not a uuid", `{"series_id": "abc"}`, false},
		{"not an object", `["feed_url"]`, false},
	}
	doc := loadOpenAPI(t)
	op := doc.Paths.Find("/reports").Post
	if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
		t.Fatal("POST /reports has no request body")
	}
	mt := op.RequestBody.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		t.Fatal("POST /reports has no application/json body schema")
	}
	if got := oasRefName(mt.Schema.Ref); got != "CreateReportRequest" {
		t.Fatalf("POST /reports body schema = %q, want CreateReportRequest", got)
	}
	schema := mt.Schema.Value
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var v any
			if err := json.Unmarshal([]byte(tt.body), &v); err != nil {
				t.Fatal(err)
			}
			err := schema.VisitJSON(v,
				openapi3.VisitAsRequest(),
				openapi3.EnableFormatValidation(),
				openapi3.WithStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562)),
			)
			switch {
			case tt.ok && err != nil:
				t.Errorf("body %s rejected: %v", tt.body, err)
			case !tt.ok && err == nil:
				t.Errorf("body %s accepted, want rejected", tt.body)
			}
		})
	}
}

// TestOpenAPIResponsesAcceptUnknownFields: the API adds response fields at any
// time, so no schema reachable from a response may forbid extra keys.
func TestOpenAPIResponsesAcceptUnknownFields(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	check := func(where string, sr *openapi3.SchemaRef) {
		oasSchemaWalk(sr, where, map[*openapi3.Schema]bool{}, func(path string, s *openapi3.Schema) {
			if has := s.AdditionalProperties.Has; has != nil && !*has {
				t.Errorf("%s (%s): additionalProperties is false", where, path)
			}
		})
	}
	for _, o := range oasOperations(t, doc) {
		for code, rr := range o.op.Responses.Map() {
			for ct, mt := range rr.Value.Content {
				check(o.String()+" "+code+" "+ct, mt.Schema)
			}
		}
	}
	// The webhook payloads are responses in spirit: the service sends them.
	for name, sr := range doc.Components.Schemas {
		if strings.HasPrefix(name, "Webhook") || strings.HasSuffix(name, "Data") {
			check("schema "+name, sr)
		}
	}
}

// TestOpenAPIRequiredPropertiesDeclared: every name listed under required in an
// object schema with properties is one of those properties. (Redocly's rule
// for this is off because it misreads the one-of clause; this replaces it.)
func TestOpenAPIRequiredPropertiesDeclared(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	seen := map[*openapi3.Schema]bool{}
	names := make([]string, 0, len(doc.Components.Schemas))
	for name := range doc.Components.Schemas {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		oasSchemaWalk(doc.Components.Schemas[name], name, seen, func(path string, s *openapi3.Schema) {
			if len(s.Properties) == 0 {
				return
			}
			for _, r := range s.Required {
				if _, ok := s.Properties[r]; !ok {
					t.Errorf("%s: required %q is not a property", path, r)
				}
			}
		})
	}
}

// oasWantStatuses is what the specification lets each operation answer.
func oasWantStatuses(o oasOperation) []string {
	switch o.String() {
	case "POST /webhook/subscribe":
		return []string{"201", "400", "401", "405", "409", "429"}
	case "DELETE /webhook/subscribe/{id}":
		return []string{"204", "401", "404", "405", "429"}
	}
	want := []string{"400", "401", "403", "404", "405", "429", "500", "503"}
	switch o.method {
	case "GET":
		want = append(want, "200")
	case "POST":
		want = append(want, "201", "402")
		if o.path == "/reports" {
			want = append(want, "409")
		}
	}
	slices.Sort(want)
	return want
}

func TestOpenAPIErrorResponses(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	for _, o := range oasOperations(t, doc) {
		t.Run(o.String(), func(t *testing.T) {
			t.Parallel()
			var got []string
			for code := range o.op.Responses.Map() {
				got = append(got, code)
			}
			slices.Sort(got)
			if want := oasWantStatuses(o); !slices.Equal(got, want) {
				t.Errorf("statuses = %v, want %v", got, want)
			}
			errorSchema := "Error"
			if !o.isREST() {
				errorSchema = "WebhookError"
			}
			for code, rr := range o.op.Responses.Map() {
				r := rr.Value
				if code[0] != '4' && code[0] != '5' {
					continue
				}
				if code == "503" {
					if len(r.Content) != 1 || r.Content.Get("text/plain") == nil {
						t.Errorf("503 content = %v, want text/plain only", slices.Sorted(maps.Keys(r.Content)))
					} else if ex, _ := r.Content.Get("text/plain").Example.(string); ex != "Service Unavailable" {
						t.Errorf("503 example = %q, want %q", ex, "Service Unavailable")
					}
					if r.Headers["Retry-After"] != nil {
						t.Errorf("503 must not declare Retry-After")
					}
					continue
				}
				mt := r.Content.Get("application/json")
				if len(r.Content) != 1 || mt == nil {
					t.Errorf("%s content = %v, want application/json only", code, slices.Sorted(maps.Keys(r.Content)))
					continue
				}
				if got := oasRefName(mt.Schema.Ref); got != errorSchema {
					t.Errorf("%s schema = %q, want %s", code, got, errorSchema)
				}
				if r.Description == nil || *r.Description == "" {
					t.Errorf("%s has no description", code)
				}
			}
			if r := o.op.Responses.Value("429"); r != nil {
				h := r.Value.Headers["Retry-After"]
				if h == nil || h.Value == nil || !h.Value.Required || h.Value.Schema == nil || !h.Value.Schema.Value.Type.Is("integer") {
					t.Errorf("429 must declare a required integer Retry-After header")
				}
			}
			if r := o.op.Responses.Value("405"); r != nil {
				if h := r.Value.Headers["Allow"]; h == nil || h.Value == nil || h.Value.Schema == nil || !h.Value.Schema.Value.Type.Is("string") {
					t.Errorf("405 must declare a string Allow header")
				}
			}
		})
	}
}

// TestOpenAPISecurity: an API key everywhere; the browser session cookie only on
// safe (GET) methods.
func TestOpenAPISecurity(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	bearer := doc.Components.SecuritySchemes["bearerAuth"]
	if bearer == nil || bearer.Value.Type != "http" || bearer.Value.Scheme != "bearer" {
		t.Errorf("bearerAuth must be an http bearer scheme")
	} else if !strings.Contains(bearer.Value.Description, "podqa_api_") {
		t.Errorf("bearerAuth description must mention the podqa_api_ prefix")
	}
	cookie := doc.Components.SecuritySchemes["sessionCookie"]
	if cookie == nil || cookie.Value.Type != "apiKey" || cookie.Value.In != "cookie" || cookie.Value.Name != "sessionid" {
		t.Errorf("sessionCookie must be an apiKey in the cookie sessionid")
	}
	bearerOnly := openapi3.SecurityRequirements{{"bearerAuth": []string{}}}
	if !oasSameSecurity(doc.Security, bearerOnly) {
		t.Errorf("global security = %v, want bearerAuth only", doc.Security)
	}
	for _, o := range oasOperations(t, doc) {
		sec := doc.Security
		if o.op.Security != nil {
			sec = *o.op.Security
		}
		want := bearerOnly
		if o.method == "GET" {
			want = openapi3.SecurityRequirements{{"bearerAuth": []string{}}, {"sessionCookie": []string{}}}
		}
		if !oasSameSecurity(sec, want) {
			t.Errorf("%s: security = %v, want %v", o, sec, want)
		}
	}
}

func oasSameSecurity(a, b openapi3.SecurityRequirements) bool {
	flat := func(rs openapi3.SecurityRequirements) []string {
		var out []string
		for _, r := range rs {
			var names []string
			for name, scopes := range r {
				names = append(names, name+"["+strings.Join(scopes, ",")+"]")
			}
			slices.Sort(names)
			out = append(out, strings.Join(names, "+"))
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(flat(a), flat(b))
}

// TestOpenAPIOperationsDocumented: every operation has a unique lowerCamel
// operationId, one tag declared at the top level, a summary and a
// description.
func TestOpenAPIOperationsDocumented(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	tags := map[string]bool{}
	for _, tag := range doc.Tags {
		if tag.Description == "" {
			t.Errorf("tag %s has no description", tag.Name)
		}
		tags[tag.Name] = true
	}
	ids := map[string]string{}
	for _, o := range oasOperations(t, doc) {
		id := o.op.OperationID
		if id == "" || strings.ToLower(id[:1]) != id[:1] || strings.ContainsAny(id, "_- ") {
			t.Errorf("%s: operationId %q is not lowerCamel", o, id)
		}
		if prev, dup := ids[id]; dup {
			t.Errorf("%s: operationId %q already used by %s", o, id, prev)
		}
		ids[id] = o.String()
		if len(o.op.Tags) != 1 || !tags[o.op.Tags[0]] {
			t.Errorf("%s: tags %v, want one declared tag", o, o.op.Tags)
		}
		if o.op.Summary == "" || o.op.Description == "" {
			t.Errorf("%s: summary and description are required", o)
		}
	}
}
