package contract_test

// The tables in this file are transcribed by hand from the service
// specification (rest-api.md and webhooks-graphql-polling.md), not from
// openapi.json, so that the tests below catch openapi.json drifting from
// the specification: a missing or extra endpoint, parameter or field, or a
// different type, format, range, default, enum, required or nullable flag.
//
// Conventions of the transcription:
//   - "required" means always present in a response (or mandatory in a
//     request). Fields marked required in a specification table are
//     required; in a table with no such marks every listed field is, except
//     where the specification says a key can be absent (a Hit's confidence,
//     file_info's codec keys, the webhook test flag) or that the object is
//     empty or partial while a report runs (stats, metadata, cover_image).
//   - "X or null" in a table means nullable. A value whose type the
//     specification does not show ("any": metadata, cover_image, the
//     codec keys of file_info) admits null too, except file_info's size
//     and duration, which every report has.
//   - Types: "string", "integer", "number", "boolean", "object"; "uuid",
//     "date-time", "date", "uri" are strings with that format; "int32" is an
//     integer with that format; "any" is a value of unspecified type; "[]T"
//     is a list of T; a capitalised name is a component schema reached by
//     $ref.

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
)

const restInt32Max = math.MaxInt32

// ---------------------------------------------------------------- endpoints

type restEndpoint struct {
	method, path string // path includes the server prefix
	operationID  string
	tag          string
	request      string // request body schema, "" for none
	success      string // success status
	response     string // success body schema, "" for none
	params       []restParam
}

type restParam struct {
	Name     string
	In       string
	Required bool
	Type     string
	Format   string
	Min, Max *float64
	Default  any
	Enum     []string
}

func restNum(v float64) *float64 { return &v }

var (
	restParamLimit  = restParam{Name: "limit", In: "query", Type: "integer", Format: "int32", Min: restNum(1), Max: restNum(100), Default: 50.0}
	restParamOffset = restParam{Name: "offset", In: "query", Type: "integer", Format: "int32", Min: restNum(0), Max: restNum(restInt32Max), Default: 0.0}
	restPathUUID    = func(name string) restParam {
		return restParam{Name: name, In: "path", Required: true, Type: "string", Format: "uuid"}
	}
)

var restEndpoints = []restEndpoint{
	{method: "GET", path: "/api/rest/v1/me", operationID: "getMe", tag: "Account", success: "200", response: "Me"},
	{method: "GET", path: "/api/rest/v1/series", operationID: "listSeries", tag: "Series", success: "200", response: "SeriesList",
		params: []restParam{restParamLimit, restParamOffset}},
	{method: "GET", path: "/api/rest/v1/series/{series_id}", operationID: "getSeries", tag: "Series", success: "200", response: "Series",
		params: []restParam{restPathUUID("series_id")}},
	{method: "GET", path: "/api/rest/v1/series/{series_id}/episodes", operationID: "listSeriesEpisodes", tag: "Series", success: "200", response: "EpisodeList",
		params: []restParam{restPathUUID("series_id"), restParamLimit, restParamOffset}},
	{method: "GET", path: "/api/rest/v1/reports", operationID: "listReports", tag: "Reports", success: "200", response: "ReportList",
		params: []restParam{
			{Name: "series_id", In: "query", Type: "string", Format: "uuid"},
			{Name: "status", In: "query", Type: "string", Enum: []string{"PENDING", "SCHEDULED", "IN_PROGRESS", "COMPLETE", "FAILED", "OUT_OF_QUOTA", "AWAITING_REVIEW"}},
			{Name: "created_since", In: "query", Type: "string", Format: "date-time"},
			{Name: "updated_since", In: "query", Type: "string", Format: "date-time"},
			restParamLimit, restParamOffset,
		}},
	{method: "POST", path: "/api/rest/v1/reports", operationID: "createReport", tag: "Reports", request: "CreateReportRequest", success: "201", response: "CreateReportResponse"},
	{method: "GET", path: "/api/rest/v1/reports/{report_id}", operationID: "getReport", tag: "Reports", success: "200", response: "Report",
		params: []restParam{restPathUUID("report_id")}},
	{method: "GET", path: "/api/rest/v1/reports/{report_id}/transcript", operationID: "getReportTranscript", tag: "Reports", success: "200", response: "Transcript",
		params: []restParam{restPathUUID("report_id")}},
	{method: "POST", path: "/api/rest/v1/uploads", operationID: "createUpload", tag: "Uploads", request: "CreateUploadRequest", success: "201", response: "UploadReservation"},
	{method: "GET", path: "/api/rest/v1/credits", operationID: "getCredits", tag: "Credits", success: "200", response: "Credits"},
	{method: "POST", path: "/webhook/subscribe", operationID: "subscribeWebhook", tag: "Webhooks", request: "WebhookSubscribeRequest", success: "201", response: "WebhookSubscription"},
	{method: "DELETE", path: "/webhook/subscribe/{id}", operationID: "unsubscribeWebhook", tag: "Webhooks", success: "204",
		params: []restParam{restPathUUID("id")}},
}

func TestOpenAPICoversSpecEndpoints(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	ops := map[string]oasOperation{}
	for _, o := range oasOperations(t, doc) {
		ops[o.String()] = o
	}
	want := map[string]bool{}
	for _, e := range restEndpoints {
		want[e.method+" "+e.path] = true
	}
	for key := range ops {
		if !want[key] {
			t.Errorf("openapi.json has %s, which the specification does not list", key)
		}
	}
	for _, e := range restEndpoints {
		t.Run(e.method+" "+e.path, func(t *testing.T) {
			t.Parallel()
			o, ok := ops[e.method+" "+e.path]
			if !ok {
				t.Fatalf("missing from openapi.json")
			}
			if o.op.OperationID != e.operationID {
				t.Errorf("operationId = %q, want %q", o.op.OperationID, e.operationID)
			}
			if !slices.Equal(o.op.Tags, []string{e.tag}) {
				t.Errorf("tags = %v, want [%s]", o.op.Tags, e.tag)
			}

			var gotReq string
			if rb := o.op.RequestBody; rb != nil {
				if !rb.Value.Required {
					t.Errorf("request body is not required")
				}
				if mt := rb.Value.Content.Get("application/json"); mt != nil && len(rb.Value.Content) == 1 {
					gotReq = oasRefName(mt.Schema.Ref)
				} else {
					t.Errorf("request body must be application/json only")
				}
			}
			if gotReq != e.request {
				t.Errorf("request body schema = %q, want %q", gotReq, e.request)
			}

			var successes []string
			for code := range o.op.Responses.Map() {
				if code[0] == '2' {
					successes = append(successes, code)
				}
			}
			if !slices.Equal(successes, []string{e.success}) {
				t.Fatalf("success statuses = %v, want [%s]", successes, e.success)
			}
			r := o.op.Responses.Value(e.success).Value
			var gotResp string
			if mt := r.Content.Get("application/json"); mt != nil && len(r.Content) == 1 {
				gotResp = oasRefName(mt.Schema.Ref)
			} else if len(r.Content) != 0 {
				t.Errorf("success content must be application/json only")
			}
			if gotResp != e.response {
				t.Errorf("%s body schema = %q, want %q", e.success, gotResp, e.response)
			}

			var got []restParam
			for _, pr := range append(slices.Clone(o.item.Parameters), o.op.Parameters...) {
				got = append(got, oasParam(pr.Value))
			}
			if diff := cmp.Diff(e.params, got); diff != "" {
				t.Errorf("parameters differ from the specification (-spec +openapi.json):\n%s", diff)
			}
		})
	}
}

func oasParam(p *openapi3.Parameter) restParam {
	s := p.Schema.Value
	out := restParam{Name: p.Name, In: p.In, Required: p.Required, Format: s.Format, Min: s.Min, Max: s.Max, Default: s.Default}
	if s.Type != nil && len(*s.Type) == 1 {
		out.Type = (*s.Type)[0]
	}
	for _, v := range s.Enum {
		out.Enum = append(out.Enum, fmt.Sprint(v))
	}
	return out
}

// ---------------------------------------------------------------- schemas

type restField struct {
	Name     string
	Type     string
	Required bool
	Nullable bool
	Min, Max *float64
	Default  any
	Pattern  string
	Enum     []string
}

// Field constructors: R = required, O = optional; N = nullable.
func restR(name, typ string) restField { return restField{Name: name, Type: typ, Required: true} }
func restRN(name, typ string) restField {
	return restField{Name: name, Type: typ, Required: true, Nullable: true}
}
func restO(name, typ string) restField  { return restField{Name: name, Type: typ} }
func restON(name, typ string) restField { return restField{Name: name, Type: typ, Nullable: true} }

func (f restField) rng(lo, hi float64) restField { f.Min, f.Max = &lo, &hi; return f }
func (f restField) def(v any) restField          { f.Default = v; return f }
func (f restField) enum(v ...string) restField   { f.Enum = v; return f }
func (f restField) pattern(p string) restField   { f.Pattern = p; return f }

type restSchema struct {
	name   string
	fields []restField // for object schemas
	enum   []string    // for string enum schemas
}

func restList(name, item string) restSchema {
	return restSchema{name: name, fields: []restField{
		restR("items", "[]"+item),
		restR("limit", "integer").rng(1, 100),
		restR("offset", "integer").rng(0, restInt32Max),
		restR("has_more", "boolean"),
	}}
}

var restSchemas = []restSchema{
	// rest-api.md, "Workspace".
	{name: "Workspace", fields: []restField{
		restR("type", "string").enum("organisation", "personal"),
		restR("id", "uuid"),
		restR("name", "string"),
	}},
	// "Key record".
	{name: "ApiKeyRecord", fields: []restField{
		restR("id", "uuid"),
		restR("description", "string"),
		restR("masked_key", "string"),
		restR("created_at", "date-time"),
		restRN("last_used_at", "date-time"),
	}},
	// "GET /me": {workspace, key or null}.
	{name: "Me", fields: []restField{
		restR("workspace", "Workspace"),
		restRN("key", "ApiKeyRecord"),
	}},
	// "Series".
	{name: "Series", fields: []restField{
		restR("id", "uuid"),
		restON("title", "string"),
		restO("kind", "string").enum("PODCAST"),
		restON("feed_url", "string"),
		restON("automated_reporting", "boolean"),
		restON("created_at", "date-time"),
	}},
	// "Episode (as listed under a series)".
	{name: "Episode", fields: []restField{
		restR("id", "uuid"),
		restON("title", "string"),
		restON("guid", "string"),
		restR("audio_url", "string"),
		restON("published_on", "date"),
		restON("first_seen_at", "date-time"),
	}},
	// "States and transitions": six report statuses.
	{name: "ReportStatus", enum: []string{"PENDING", "SCHEDULED", "IN_PROGRESS", "COMPLETE", "FAILED", "OUT_OF_QUOTA"}},
	// "GET /reports" status filter: the six plus AWAITING_REVIEW.
	{name: "ReportStatusFilter", enum: []string{"PENDING", "SCHEDULED", "IN_PROGRESS", "COMPLETE", "FAILED", "OUT_OF_QUOTA", "AWAITING_REVIEW"}},
	// "Report (list item)".
	{name: "ReportListItem", fields: []restField{
		restR("id", "uuid"),
		restR("status", "ReportStatus"),
		restON("created_at", "date-time"),
		restON("updated_at", "date-time"),
		restR("original_filename", "string"),
		restON("series", "ReportSeriesRef"),
		restON("episode", "ReportEpisodeRef"),
	}},
	// list item series: {id: uuid, title: string or null}.
	{name: "ReportSeriesRef", fields: []restField{restR("id", "uuid"), restRN("title", "string")}},
	// list item episode: {id: uuid, title: string or null, published_on: date or null}.
	{name: "ReportEpisodeRef", fields: []restField{restR("id", "uuid"), restRN("title", "string"), restRN("published_on", "date")}},
	// "Report (full)".
	{name: "Report", fields: []restField{
		restR("id", "uuid"),
		restR("status", "ReportStatus"),
		restRN("name", "string"),
		restRN("created_at", "date-time"),
		restRN("updated_at", "date-time"),
		restRN("started_at", "date-time"),
		restR("original_filename", "string"),
		restR("personal_report", "boolean"),
		restRN("credits_charged", "string").pattern(`^-?[0-9]+(\.[0-9]+)?$`),
		restRN("audio_url", "string"),
		restRN("stats", "Stats"),
		restRN("results", "[]ResultEntry"),
		restRN("file_info", "FileInfo"),
		restRN("metadata", "Metadata"),
		restRN("cover_image", "CoverImage"),
		restRN("standard", "StandardRef"),
		restRN("series", "ReportSeries"),
		restRN("episode", "ReportEpisode"),
	}},
	// full report series: {id, title, feed_url} typed as in Series.
	{name: "ReportSeries", fields: []restField{restR("id", "uuid"), restRN("title", "string"), restRN("feed_url", "string")}},
	// full report episode: {id, title, guid, audio_url, published_on} typed as in Episode.
	{name: "ReportEpisode", fields: []restField{
		restR("id", "uuid"), restRN("title", "string"), restRN("guid", "string"), restR("audio_url", "string"), restRN("published_on", "date"),
	}},
	// standard: {id: uuid, name: string, builtin: boolean}.
	{name: "StandardRef", fields: []restField{restR("id", "uuid"), restR("name", "string"), restR("builtin", "boolean")}},
	// "stats"; empty or partial while the report runs.
	{name: "Stats", fields: []restField{
		restO("passes", "integer"),
		restO("failures", "integer"),
		restO("total", "integer"),
		restO("percent", "integer"),
		restO("time_remaining", "integer"),
		restO("passed", "boolean"),
		restO("required_failures", "integer"),
		restO("required_total", "integer"),
		restO("info_flagged", "integer"),
		restO("info_total", "integer"),
	}},
	// "results entry".
	{name: "ResultEntry", fields: []restField{
		restR("name", "string"),
		restR("verbose_name", "string"),
		restR("status", "ResultStatus"),
		restRN("value", "any"),
		restRN("measurement_unit", "string"),
		restR("description", "string"),
		restRN("warning_message", "string"),
		restR("link", "string"),
		restR("severity", "Severity"),
		restRN("limit", "string"),
	}},
	{name: "ResultStatus", enum: []string{"PASS", "FAIL"}},
	{name: "Severity", enum: []string{"required", "info"}},
	// Hit shape {start, finish, description, confidence}; confidence 0 to 1, may be absent.
	{name: "Hit", fields: []restField{
		restR("start", "integer"),
		restR("finish", "integer"),
		restR("description", "string"),
		restO("confidence", "number").rng(0, 1),
	}},
	// expected_words value entries: {phrase: string, hits: list}.
	{name: "ExpectedWordsEntry", fields: []restField{restR("phrase", "string"), restR("hits", "[]Hit")}},
	// explicit_flag value: marked_explicit (boolean) and profanities (list of hits).
	{name: "ExplicitFlagValue", fields: []restField{restR("marked_explicit", "boolean"), restR("profanities", "[]Hit")}},
	// file_info: size and duration always present, codec detail only when probed; types and units not shown.
	{name: "FileInfo", fields: []restField{
		restR("size", "any"),
		restR("duration", "any"),
		restON("codec_name", "any"),
		restON("format_name", "any"),
		restON("channels", "any"),
		restON("sample_rate", "any"),
	}},
	// metadata keys; value types not shown beyond nullability; chapters is a list.
	{name: "Metadata", fields: []restField{
		restON("title", "any"),
		restON("artist", "any"),
		restON("album", "any"),
		restON("track_num", "any"),
		restON("year", "any"),
		restON("copyright", "any"),
		restON("chapters", "[]any"),
		restON("comments", "any"),
	}},
	// cover_image keys; value types not shown.
	{name: "CoverImage", fields: []restField{
		restON("width", "any"), restON("height", "any"), restON("file_size", "any"), restON("url", "any"),
	}},
	// "Transcript".
	{name: "Transcript", fields: []restField{restR("report_id", "uuid"), restRN("transcript", "[]TranscriptEntry")}},
	{name: "TranscriptEntry", fields: []restField{
		restR("start", "integer"), restR("end", "integer"), restR("text", "string"), restRN("speaker", "string"),
	}},
	// "Upload reservation".
	{name: "UploadReservation", fields: []restField{restR("report_id", "uuid"), restR("upload_url", "string")}},
	// "POST /uploads" body, all required.
	{name: "CreateUploadRequest", fields: []restField{
		restR("file_name", "string"),
		restR("file_type", "string"),
		restR("duration_ms", "int32").rng(0, restInt32Max),
	}},
	// "POST /reports" body: exactly one of three keys, so none is required on its own.
	{name: "CreateReportRequest", fields: []restField{
		restO("feed_url", "uri"),
		restO("series_id", "uuid"),
		restO("report_id", "uuid"),
		restO("episode_index", "int32").rng(0, restInt32Max).def(0.0),
		restO("original_filename", "string"),
		restO("duration_ms", "int32").rng(0, restInt32Max),
	}},
	// "POST /reports" 201: {id, status}, plus estimated_credits for uploads.
	{name: "CreateReportResponse", fields: []restField{
		restR("id", "uuid"), restR("status", "ReportStatus"), restO("estimated_credits", "integer"),
	}},
	// "Credits".
	{name: "Credits", fields: []restField{
		restR("balance", "number"),
		restR("plan_allowance", "number"),
		restR("plan_used", "number"),
		restR("plan_remaining", "number"),
		restR("topup_balance", "number"),
		restRN("topup_expires_at", "date-time"),
		restR("topup_lots", "[]TopupLot"),
		restR("free_allowance", "boolean"),
		restR("progress", "number").rng(0, 1),
		restR("finish_date", "date-time"),
		restR("charging_enabled", "boolean"),
	}},
	{name: "TopupLot", fields: []restField{restR("amount_remaining", "integer"), restRN("expires_at", "date-time")}},
	// "Errors".
	{name: "ErrorCode", enum: []string{
		"validation_error", "invalid_api_key", "insufficient_credits", "forbidden", "plan_limit_reached",
		"not_found", "method_not_allowed", "conflict", "rate_limited", "internal_error",
	}},
	{name: "Error", fields: []restField{restR("error", "ErrorDetail")}},
	{name: "ErrorDetail", fields: []restField{restR("code", "ErrorCode"), restR("message", "string")}},
	// List envelope.
	restList("SeriesList", "Series"),
	restList("EpisodeList", "Episode"),
	restList("ReportList", "ReportListItem"),

	// webhooks-graphql-polling.md, "Errors": {error: <string>}.
	{name: "WebhookError", fields: []restField{restR("error", "string")}},
	// The five event names.
	{name: "WebhookEventType", enum: []string{"report.completed", "report.failed", "report.out_of_quota", "episode.created", "series.feed_broken"}},
	// "POST /webhook/subscribe" body.
	{name: "WebhookSubscribeRequest", fields: []restField{
		restR("url", "uri"), restR("events", "[]WebhookEventType"), restO("series_id", "uuid"),
	}},
	// 201 {id: uuid, secret: string}; the secret begins whsec_.
	{name: "WebhookSubscription", fields: []restField{restR("id", "uuid"), restR("secret", "string").pattern("^whsec_")}},
	// "Event envelope"; test is present only on test events.
	{name: "WebhookEvent", fields: []restField{
		restR("type", "WebhookEventType"), restR("timestamp", "date-time"), restR("data", "object"), restO("test", "boolean"),
	}},
	{name: "WebhookReportData", fields: []restField{restR("report", "WebhookReport")}},
	// "data.report".
	{name: "WebhookReport", fields: []restField{
		restR("id", "uuid"),
		restR("url", "string"),
		restR("status", "string").enum("complete", "failed", "out_of_quota"),
		restRN("passed", "boolean"),
		restRN("score", "integer"),
		restRN("passes", "integer"),
		restRN("failures", "integer"),
		restRN("total", "integer"),
		restR("filename", "string"),
		restR("client_reference", "string"),
		restR("created_at", "date-time"),
		restRN("series", "WebhookSeries"),
		restRN("episode", "WebhookEpisode"),
		restRN("issues", "[]ResultEntry"),
	}},
	// {id, title, feed_url}, typed as the REST series.
	{name: "WebhookSeries", fields: []restField{restR("id", "uuid"), restRN("title", "string"), restRN("feed_url", "string")}},
	// report events: {id, title, guid, pub_date} with pub_date a date.
	{name: "WebhookEpisode", fields: []restField{
		restR("id", "uuid"), restRN("title", "string"), restRN("guid", "string"), restRN("pub_date", "date"),
	}},
	// episode.created: {id, title, guid, pub_date, audio_url}.
	{name: "WebhookNewEpisode", fields: []restField{
		restR("id", "uuid"), restRN("title", "string"), restRN("guid", "string"), restRN("pub_date", "date"), restR("audio_url", "string"),
	}},
	{name: "EpisodeCreatedData", fields: []restField{restR("series", "WebhookSeries"), restR("episode", "WebhookNewEpisode")}},
	{name: "SeriesFeedBrokenData", fields: []restField{restR("series", "WebhookSeries"), restR("failure", "FeedFailure")}},
	// data.failure: {kind: fetch|ingest, consecutive_failures: integer, last_error: string or null}.
	{name: "FeedFailure", fields: []restField{
		restR("kind", "string").enum("fetch", "ingest"),
		restR("consecutive_failures", "integer"),
		restRN("last_error", "string"),
	}},
}

func TestOpenAPICoversSpecSchemas(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	want := map[string]bool{}
	for _, s := range restSchemas {
		want[s.name] = true
	}
	for name := range doc.Components.Schemas {
		if !want[name] {
			t.Errorf("openapi.json defines schema %s, which this table does not transcribe", name)
		}
	}
	for _, s := range restSchemas {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			sr := doc.Components.Schemas[s.name]
			if sr == nil || sr.Value == nil {
				t.Fatalf("schema %s is missing from openapi.json", s.name)
			}
			schema := sr.Value
			if schema.Description == "" {
				t.Errorf("schema has no description")
			}
			if s.enum != nil {
				if !schema.Type.Is("string") {
					t.Errorf("type = %v, want string", schema.Type)
				}
				if diff := cmp.Diff(s.enum, oasEnum(schema)); diff != "" {
					t.Errorf("enum differs (-spec +openapi.json):\n%s", diff)
				}
				return
			}
			if !schema.Type.Is("object") {
				t.Errorf("type = %v, want object", schema.Type)
			}
			var got []restField
			for _, name := range oasPropertyOrder(schema, s.fields) {
				got = append(got, oasField(name, schema))
			}
			if diff := cmp.Diff(s.fields, got); diff != "" {
				t.Errorf("fields differ from the specification (-spec +openapi.json):\n%s", diff)
			}
		})
	}
}

// oasPropertyOrder lists the schema's properties in the table's order, then
// any the table lacks, sorted, so the diff lines up.
func oasPropertyOrder(s *openapi3.Schema, fields []restField) []string {
	var names []string
	for _, f := range fields {
		if _, ok := s.Properties[f.Name]; ok {
			names = append(names, f.Name)
		}
	}
	var extra []string
	for name := range s.Properties {
		if !slices.Contains(names, name) {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	return append(names, extra...)
}

func oasEnum(s *openapi3.Schema) []string {
	var out []string
	for _, v := range s.Enum {
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// oasField describes property name of s in the table's terms.
func oasField(name string, s *openapi3.Schema) restField {
	p := s.Properties[name]
	f := restField{
		Name:     name,
		Type:     oasType(p),
		Required: slices.Contains(s.Required, name),
		Nullable: oasNullable(p),
	}
	if p.Ref == "" && p.Value != nil {
		v := p.Value
		f.Min, f.Max, f.Default, f.Pattern = v.Min, v.Max, v.Default, v.Pattern
		if len(v.Enum) > 0 {
			f.Enum = oasEnum(v)
		}
	}
	return f
}

// oasType names a property's type in the table's terms (see the top of the
// file).
func oasType(sr *openapi3.SchemaRef) string {
	if sr.Ref != "" {
		return oasRefName(sr.Ref)
	}
	s := sr.Value
	// A nullable reference: {type: object, nullable: true, allOf: [{$ref}]}.
	if len(s.AllOf) == 1 && s.AllOf[0].Ref != "" {
		if len(s.Properties) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 {
			return oasRefName(s.AllOf[0].Ref)
		}
		return "unexpected allOf"
	}
	// A value of any type: anyOf over every JSON type.
	if len(s.AnyOf) > 0 {
		var types []string
		for _, m := range s.AnyOf {
			if m.Ref != "" || m.Value.Type == nil || len(*m.Value.Type) != 1 {
				return "unexpected anyOf"
			}
			types = append(types, (*m.Value.Type)[0])
		}
		slices.Sort(types)
		if s.Type == nil && slices.Equal(types, []string{"array", "boolean", "number", "object", "string"}) {
			return "any"
		}
		return "anyOf " + strings.Join(types, "|")
	}
	if s.Type == nil {
		if s.IsEmpty() {
			return "any"
		}
		return "untyped"
	}
	if len(*s.Type) != 1 {
		return "multiple types " + strings.Join(*s.Type, "|")
	}
	typ := (*s.Type)[0]
	switch {
	case typ == "array":
		if s.Items == nil {
			return "[]?"
		}
		return "[]" + oasType(s.Items)
	case typ == "string" && s.Format != "":
		return s.Format
	case typ == "integer" && s.Format != "":
		return s.Format
	case typ == "number" && s.Format != "":
		return "number/" + s.Format
	}
	return typ
}

// oasNullable reports whether the property admits null: directly, or for an
// "any" value through one of its anyOf branches.
func oasNullable(sr *openapi3.SchemaRef) bool {
	if sr.Ref != "" {
		return false
	}
	if sr.Value.Nullable {
		return true
	}
	for _, m := range sr.Value.AnyOf {
		if m.Value != nil && m.Value.Nullable {
			return true
		}
	}
	return false
}
