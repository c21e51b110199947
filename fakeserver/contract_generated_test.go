package fakeserver

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/podqa/podqa-go/fakeserver/internal/contractfiles"
)

// TestGeneratedRequestsFollowTheContracts generates, from openapi.json and control.openapi.json,
// requests for every operation: requests valid by the contract (required fields, enums, each
// optional field on its own, every scalar at any depth at the extremes of its bounds and lengths)
// must not be answered 400, and requests that break one rule each (a required field missing or
// null, an unknown field, a wrong type, an enum, a bound, a length, a pattern, a format, an item
// count, an empty typed query value) must be answered 400 in the operation's documented shape
// (the REST and control envelope with validation_error, subscribe's flat {error}), naming the
// field. Values come from a generator seeded by the operation, so every run sends the same
// requests. Each operation runs against a fresh in-process fake on loopback. Path parameters
// name real resources (a malformed id is a documented 404), and wrong methods are left to the
// routing tests.
func TestGeneratedRequestsFollowTheContracts(t *testing.T) {
	t.Parallel()
	// openapi.json whole: the generated server's embedded copy leaves out the subscription
	// calls, whose routes are written by hand.
	rest, err := openapi3.NewLoader().LoadFromData(contractfiles.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	control, err := controlContract()
	if err != nil {
		t.Fatal(err)
	}
	var ops []contractOp
	for _, doc := range []struct {
		doc  *openapi3.T
		base string
	}{{rest, "/api/rest/v1"}, {control, ""}} {
		for _, path := range slices.Sorted(maps.Keys(doc.doc.Paths.Map())) {
			item := doc.doc.Paths.Value(path)
			for _, method := range slices.Sorted(maps.Keys(item.Operations())) {
				op := item.Operations()[method]
				full := doc.base + path
				if path == "/webhook/subscribe" || strings.HasPrefix(path, "/webhook/subscribe/") {
					full = path // the subscription calls live outside the REST base path
				}
				ops = append(ops, contractOp{method: method, path: full, item: item, op: op})
			}
		}
	}
	if len(ops) < 47 {
		t.Fatalf("only %d operations in the two contracts; the loader missed some", len(ops))
	}
	var sent contractCounts
	t.Cleanup(func() {
		// The subtests have all run: a generator that produced next to nothing would pass
		// every operation vacuously.
		valid, invalid, ran := sent.valid.Load(), sent.invalid.Load(), sent.ops.Load()
		t.Logf("%d operations: %d valid and %d invalid requests", ran, valid, invalid)
		if ran == int64(len(ops)) && (valid < ran || invalid < 10*ran) {
			t.Errorf("only %d valid and %d invalid requests for %d operations", valid, invalid, len(ops))
		}
	})
	for _, op := range ops {
		t.Run(op.method+" "+op.path, func(t *testing.T) {
			t.Parallel()
			sent.ops.Add(1)
			op.run(t, &sent)
		})
	}
}

// contractCounts counts the requests sent, across the parallel subtests.
type contractCounts struct{ ops, valid, invalid atomic.Int64 }

// contractOp is one operation of either contract, with the path the fake serves it on.
type contractOp struct {
	method, path string
	item         *openapi3.PathItem
	op           *openapi3.Operation
}

// contractCase is one generated request and what it must get.
type contractCase struct {
	name  string
	query url.Values
	body  any // nil: no body; a rawBody is sent as it is; anything else as JSON
	// valid requests must not get 400; invalid ones must get exactly 400.
	valid bool
	// field is the parameter or body field an invalid request breaks, which the message names.
	field string
}

// crossFieldCompanions lists, for a body property whose valid values depend on another field
// (a rule JSON Schema cannot state; each is written in the property's description), the fields
// a valid request sets with it; nil removes a field of the base body.
var crossFieldCompanions = map[string]map[string]any{
	"FaultSpec.retry_after_s":        {"status": 429},
	"FaultSpec.jitter_ms":            {"latency_ms": 600000},
	"FaultSpec.reset":                {"status": nil},
	"FaultSpec.truncate_after_bytes": {"status": nil},
	"Episode.bit_rate":               {"format": "mp3"},
	"LoudnessRange.min":              {"max": 0},
	"LoudnessRange.max":              {"min": -70},
	"HostedTags.chapters[].end":      {"start": 0},
}

// run generates the operation's requests, sends each to a fresh fake and checks its answer.
func (c contractOp) run(t *testing.T, sent *contractCounts) {
	w := newContractWorld(t)
	path := c.pathWithIDs(w)
	// Seeded by the operation, so that each sends the same requests on every run whatever the
	// order the parallel subtests run in.
	seed := fnv.New64a()
	_, _ = seed.Write([]byte(c.method + " " + c.path))
	rng := rand.New(rand.NewPCG(0x706f6471, seed.Sum64()))
	var cases []contractCase
	params := slices.Concat(c.item.Parameters, c.op.Parameters)
	for _, ref := range params {
		p := ref.Value
		if p.In != openapi3.ParameterInQuery {
			continue
		}
		sch := p.Schema.Value
		v := validQueryValue(w, c.path, p, rng)
		cases = append(cases, contractCase{name: "valid ?" + p.Name + "=" + v, query: url.Values{p.Name: {v}}, valid: true})
		for _, b := range boundaryValues(p.Schema, "") {
			v := fmt.Sprint(b)
			if f, ok := b.(float64); ok {
				v = strconv.FormatFloat(f, 'f', -1, 64)
			}
			cases = append(cases, contractCase{name: "valid boundary ?" + p.Name + "=" + v, query: url.Values{p.Name: {v}}, valid: true})
		}
		for _, bad := range invalidQueryValues(sch) {
			cases = append(cases, contractCase{name: "?" + p.Name + "=" + bad.value + " (" + bad.rule + ")", query: url.Values{p.Name: {bad.value}}, field: p.Name})
		}
	}
	var bodySchema *openapi3.SchemaRef
	if rb := c.op.RequestBody; rb != nil && rb.Value != nil {
		if mt := rb.Value.Content.Get("application/json"); mt != nil {
			bodySchema = mt.Schema
		}
	}
	if bodySchema == nil {
		cases = append(cases, contractCase{name: "valid without a body", valid: true})
	} else {
		bases := w.validBodies(c.method, c.path)
		if bases == nil {
			bases = []any{validValue(bodySchema, rng, 0)}
		}
		for i, b := range bases {
			cases = append(cases, contractCase{name: fmt.Sprintf("valid body %d %s", i, mustJSON(t, b)), body: b, valid: true})
		}
		base := bases[0]
		if obj, ok := base.(map[string]any); ok && !composed(bodySchema.Value) {
			for _, name := range slices.Sorted(maps.Keys(bodySchema.Value.Properties)) {
				if _, set := obj[name]; set {
					continue
				}
				v := validValue(bodySchema.Value.Properties[name], rng, 1)
				if name == "series_id" {
					v = w.series() // an unknown series is a 400 of its own ("Series not found")
				}
				with := withField(obj, schemaName(bodySchema), name, v)
				cases = append(cases, contractCase{name: "valid body with " + name + " " + mustJSON(t, with), body: with, valid: true})
			}
		}
		for _, b := range boundaryBodies(bodySchema, base, schemaName(bodySchema), rng, 0) {
			cases = append(cases, contractCase{name: "valid boundary " + b.rule + " " + truncate(mustJSON(t, b.value), 200), body: b.value, valid: true})
		}
		for _, bad := range invalidValues(bodySchema, base, rng, 0) {
			cases = append(cases, contractCase{name: "body " + bad.rule + " " + truncate(mustJSON(t, bad.value), 200), body: bad.value, field: bad.field})
		}
		cases = append(cases, contractCase{name: "body not JSON", body: rawBody("{")})
	}
	documents400 := c.op.Responses.Status(http.StatusBadRequest) != nil
	for _, tc := range cases {
		status, header, answer := c.send(t, w, path, tc)
		if tc.valid {
			sent.valid.Add(1)
		} else {
			sent.invalid.Add(1)
		}
		switch {
		case status >= 500:
			t.Errorf("%s: %d %s", tc.name, status, answer)
		case tc.valid && status == http.StatusBadRequest:
			t.Errorf("%s: valid by the contract, answered 400 %s", tc.name, answer)
		case !tc.valid && status != http.StatusBadRequest:
			t.Errorf("%s: breaks the contract, answered %d %s, want 400", tc.name, status, truncate(string(answer), 300))
		case !tc.valid && !documents400:
			t.Errorf("%s: answered 400, which the operation does not document", tc.name)
		case !tc.valid:
			if err := c.checkShape(header, answer, tc.field); err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
		}
	}
}

// checkShape checks a 400 answer against the operation's documented error shape.
// The message must name field, when there is one.
func (c contractOp) checkShape(header http.Header, answer []byte, field string) error {
	if ct := header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("Content-Type %q, want application/json", ct)
	}
	if strings.HasPrefix(c.path, "/webhook/subscribe") {
		var flat map[string]any
		if err := json.Unmarshal(answer, &flat); err != nil {
			return fmt.Errorf("not JSON: %s", answer)
		}
		msg, ok := flat["error"].(string)
		if !ok || msg == "" || len(flat) != 1 {
			return fmt.Errorf("not the flat {error: string} shape: %s", answer)
		}
		return namesField(msg, field)
	}
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(answer, &e); err != nil || e.Error.Code != "validation_error" || e.Error.Message == "" {
		return fmt.Errorf("not a validation_error envelope: %s", answer)
	}
	return namesField(e.Error.Message, field)
}

// webhookMessages are the subscription errors the specification words itself (the webhooks
// document's error table); they name no field, and the control API's endpoint calls share them.
var webhookMessages = []string{"Unknown webhook event: ", "Series not found", "Invalid webhook URL"}

func namesField(message, field string) error {
	if slices.ContainsFunc(webhookMessages, func(m string) bool { return strings.HasPrefix(message, m) }) {
		return nil
	}
	if field != "" && !strings.Contains(message, field) {
		return fmt.Errorf("the message %q does not name %s", message, field)
	}
	return nil
}

// rawBody is a body sent as it is, not marshalled.
type rawBody string

func (c contractOp) send(t *testing.T, w *contractWorld, path string, tc contractCase) (int, http.Header, []byte) {
	t.Helper()
	target := path
	if len(tc.query) > 0 {
		target += "?" + tc.query.Encode()
	}
	header := w.credentials(c.path)
	body := ""
	switch b := tc.body.(type) {
	case nil:
	case rawBody:
		body = string(b)
		header = jsonHeader(header)
	default:
		body = mustJSON(t, b)
		header = jsonHeader(header)
	}
	return call(t, w.srv, c.method, target, header, body)
}

// pathWithIDs fills the operation's path parameters with the ids of resources that exist.
func (c contractOp) pathWithIDs(w *contractWorld) string {
	path := c.path
	for _, seg := range strings.Split(c.path, "/") {
		if strings.HasPrefix(seg, "{") {
			path = strings.Replace(path, seg, w.idFor(c.method, c.path), 1)
		}
	}
	return path
}

// composed reports whether s states its rule with not/oneOf/anyOf/allOf, whose valid bodies the
// test takes from contractWorld.validBodies rather than by adding optional fields one by one.
func composed(s *openapi3.Schema) bool {
	return s.Not != nil || len(s.OneOf) > 0 || len(s.AnyOf) > 0 || len(s.AllOf) > 0
}

func schemaName(ref *openapi3.SchemaRef) string {
	return ref.Ref[strings.LastIndex(ref.Ref, "/")+1:]
}

// validValue generates a value schema ref accepts: its example when it has one (the documents
// give examples where a valid value depends on more than the schema states), else the
// schema's required fields, enum members or a value inside its bounds chosen by rng.
func validValue(ref *openapi3.SchemaRef, rng *rand.Rand, depth int) any {
	s := ref.Value
	if s.Example != nil {
		return s.Example
	}
	if len(s.Enum) > 0 {
		return s.Enum[rng.IntN(len(s.Enum))]
	}
	switch {
	case s.Type.Is("object"):
		obj := map[string]any{}
		for _, name := range s.Required {
			obj[name] = validValue(s.Properties[name], rng, depth+1)
		}
		return obj
	case s.Type.Is("array"):
		n := int(s.MinItems)
		if n == 0 && depth < 3 {
			n = 1
		}
		items := make([]any, n)
		for i := range items {
			items[i] = validValue(s.Items, rng, depth+1)
		}
		return items
	case s.Type.Is("integer"), s.Type.Is("number"):
		lo, hi := -1000.0, 1000.0
		if s.Min != nil {
			lo = *s.Min
			if s.ExclusiveMin.IsTrue() {
				lo++
			}
		}
		if s.Max != nil {
			hi = *s.Max
			if s.ExclusiveMax.IsTrue() {
				hi--
			}
		}
		if hi > lo+10 {
			hi = lo + 10 // small values: a duration or a count here costs work
		}
		v := lo + rng.Float64()*(hi-lo)
		if s.Type.Is("integer") {
			return int64(v)
		}
		return v
	case s.Type.Is("boolean"):
		return rng.IntN(2) == 1
	case s.Type.Is("string"):
		switch s.Format {
		case "uuid":
			return fmt.Sprintf("%08x-0000-4000-8000-%012x", rng.Uint32(), rng.Uint64()&0xffffffffffff)
		case "date-time":
			return "2026-01-05T09:00:00Z"
		case "date":
			return "2026-01-05"
		}
		n := int(s.MinLength) + rng.IntN(8) + 1
		if s.MaxLength != nil && uint64(n) > *s.MaxLength {
			n = int(*s.MaxLength)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		return string(b)
	}
	return nil
}

// costlyMaximum lists the properties whose largest valid value costs minutes of work (three
// hours of synthesised audio); their upper bound is checked by invalid requests only.
var costlyMaximum = map[string]bool{"Episode.duration_s": true}

// crossFieldBounds lists the properties whose extremes are valid only with some values of
// another field (the Episode description: a true peak of -20 dBTP needs a quiet loudness); their
// bounds are checked by invalid requests only.
var crossFieldBounds = map[string]bool{"Episode.true_peak_db": true}

// boundaryValues returns the extreme values a scalar schema accepts: the shortest string (unless
// a pattern or format governs it) and the longest one its maxLength allows, the minimum and
// maximum of a number. A contract that leaves out a handler's lower bound (a minLength of 1, a
// minimum) shows up as a 400 to one of these.
func boundaryValues(ref *openapi3.SchemaRef, name string) []any {
	s := ref.Value
	if len(s.Enum) > 0 || s.Example != nil && !s.Type.Is("integer") && !s.Type.Is("number") || crossFieldBounds[name] {
		return nil
	}
	var out []any
	switch {
	case s.Type.Is("string"):
		if s.Pattern != "" || s.Format != "" {
			return nil
		}
		out = append(out, strings.Repeat("b", int(s.MinLength)))
		if s.MaxLength != nil && *s.MaxLength < 1<<16 {
			out = append(out, strings.Repeat("b", int(*s.MaxLength)))
		}
	case s.Type.Is("integer"), s.Type.Is("number"):
		step := 0.001
		if s.Type.Is("integer") {
			step = 1
		}
		if s.Min != nil {
			v := *s.Min
			if s.ExclusiveMin.IsTrue() {
				v += step
			}
			out = append(out, v)
		}
		if s.Max != nil && !costlyMaximum[name] {
			v := *s.Max
			if s.ExclusiveMax.IsTrue() {
				v -= step
			}
			out = append(out, v)
		}
	}
	return out
}

// withField returns a copy of obj, an object of the schema named key, with name set to v and
// the fields crossFieldCompanions pairs with it set (or removed).
func withField(obj map[string]any, key, name string, v any) map[string]any {
	out := maps.Clone(obj)
	for k, c := range crossFieldCompanions[key+"."+name] {
		if c == nil {
			delete(out, k)
		} else {
			out[k] = c
		}
	}
	out[name] = v
	return out
}

// boundaryBodies returns whole values built on base (a valid value of ref) with one scalar
// field, at any depth, set to an extreme its schema allows (boundaryValues), with the fields
// crossFieldCompanions pairs it with. key names ref's schema for those tables.
func boundaryBodies(ref *openapi3.SchemaRef, base any, key string, rng *rand.Rand, depth int) []violation {
	s := ref.Value
	if ref.Ref != "" {
		key = schemaName(ref)
	}
	var out []violation
	switch {
	case s.Type.Is("object") && !composed(s):
		obj, _ := base.(map[string]any)
		if obj == nil {
			obj = map[string]any{}
		}
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			prop, propKey := s.Properties[name], key+"."+name
			for _, b := range boundaryValues(prop, propKey) {
				out = append(out, violation{rule: fmt.Sprintf("%s=%v", name, b), value: withField(obj, key, name, b)})
			}
			if depth < 3 && (prop.Value.Type.Is("object") || prop.Value.Type.Is("array")) {
				propBase, set := obj[name]
				if !set {
					propBase = validValue(prop, rng, depth+1)
				}
				for _, b := range boundaryBodies(prop, propBase, propKey, rng, depth+1) {
					out = append(out, violation{rule: name + "." + b.rule, value: withField(obj, key, name, b.value)})
				}
			}
		}
	case s.Type.Is("array") && s.Items != nil:
		items, _ := base.([]any)
		first := validValue(s.Items, rng, depth+1)
		if len(items) > 0 {
			first = items[0]
		}
		for _, b := range boundaryBodies(s.Items, first, key+"[]", rng, depth+1) {
			one := []any{b.value}
			if len(items) > 1 {
				one = append(one, items[1:]...)
			}
			out = append(out, violation{rule: "[0]." + b.rule, value: one})
		}
	}
	return out
}

// violation is a value that breaks one rule.
type violation struct {
	rule  string
	value any
	// field is the innermost named field the rule belongs to, which the refusal's message must
	// name; "" for the body as a whole.
	field string
}

// invalidValues returns, for each rule of ref, a value of the whole (built on base, a valid
// value) that breaks that rule alone.
func invalidValues(ref *openapi3.SchemaRef, base any, rng *rand.Rand, depth int) []violation {
	s := ref.Value
	var out []violation
	add := func(rule string, v any) { out = append(out, violation{rule: rule, value: v}) }
	addField := func(rule string, v any, field string) { out = append(out, violation{rule, v, field}) }

	switch {
	case s.Type.Is("object"):
		add("not an object", "text")
		obj, _ := base.(map[string]any)
		if obj == nil {
			obj = map[string]any{}
		}
		for _, name := range s.Required {
			without := maps.Clone(obj)
			delete(without, name)
			addField("without required "+name, without, name)
			if prop := s.Properties[name]; prop != nil && !prop.Value.Nullable {
				null := maps.Clone(obj)
				null[name] = nil
				addField("required "+name+" null", null, name)
			}
		}
		if s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has {
			with := maps.Clone(obj)
			with["not_in_the_contract"] = 1
			addField("with an unknown field", with, "not_in_the_contract")
		}
		if depth > 3 {
			return out
		}
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			prop := s.Properties[name]
			propBase, set := obj[name]
			if !set {
				propBase = validValue(prop, rng, depth+1)
			}
			for _, bad := range invalidValues(prop, propBase, rng, depth+1) {
				with := maps.Clone(obj)
				with[name] = bad.value
				addField(name+": "+bad.rule, with, cmp.Or(bad.field, name))
			}
		}
	case s.Type.Is("array"):
		add("not an array", "text")
		items, _ := base.([]any)
		if s.MinItems > 0 {
			add(fmt.Sprintf("fewer than %d items", s.MinItems), items[:s.MinItems-1])
		}
		if s.MaxItems != nil && *s.MaxItems < 1000 {
			long := make([]any, *s.MaxItems+1)
			for i := range long {
				long[i] = validValue(s.Items, rng, depth+1)
			}
			add(fmt.Sprintf("more than %d items", *s.MaxItems), long)
		}
		if depth > 3 {
			return out
		}
		first := validValue(s.Items, rng, depth+1)
		if len(items) > 0 {
			first = items[0]
		}
		for _, bad := range invalidValues(s.Items, first, rng, depth+1) {
			one := []any{bad.value}
			if len(items) > 1 {
				one = append(one, items[1:]...)
			}
			addField("[0]: "+bad.rule, one, bad.field)
		}
	case s.Type.Is("integer"), s.Type.Is("number"):
		add("a string where a number goes", "12")
		if s.Type.Is("integer") {
			add("not a whole number", 1.5)
		}
		if len(s.Enum) > 0 {
			add("not an enum member", 7777)
		}
		if s.Min != nil {
			v := *s.Min - 1
			if s.ExclusiveMin.IsTrue() {
				v = *s.Min
			}
			add(fmt.Sprintf("below the minimum %v", *s.Min), v)
		}
		if s.Max != nil {
			v := *s.Max + 1
			if s.ExclusiveMax.IsTrue() {
				v = *s.Max
			}
			add(fmt.Sprintf("above the maximum %v", *s.Max), v)
		}
	case s.Type.Is("boolean"):
		add("a string where a boolean goes", "true")
	case s.Type.Is("string"):
		add("a number where a string goes", 12)
		out = append(out, invalidStrings(s)...)
	}
	return out
}

// invalidStrings returns strings that break one rule each of the string schema s.
func invalidStrings(s *openapi3.Schema) []violation {
	var out []violation
	if len(s.Enum) > 0 {
		out = append(out, violation{rule: "not an enum member", value: "not-a-member"})
	}
	if s.MinLength > 0 {
		out = append(out, violation{rule: fmt.Sprintf("shorter than %d", s.MinLength), value: strings.Repeat("a", int(s.MinLength)-1)})
	}
	if s.MaxLength != nil && *s.MaxLength < 1<<16 {
		out = append(out, violation{rule: fmt.Sprintf("longer than %d", *s.MaxLength), value: strings.Repeat("a", int(*s.MaxLength)+1)})
	}
	if s.Pattern != "" {
		re := regexp.MustCompile(s.Pattern)
		for _, candidate := range []string{strings.Repeat(" ", max(int(s.MinLength), 1)), strings.Repeat("!", max(int(s.MinLength), 1)), strings.Repeat("g", max(int(s.MinLength), 64)), "x"} {
			if !re.MatchString(candidate) && uint64(len(candidate)) >= s.MinLength && (s.MaxLength == nil || uint64(len(candidate)) <= *s.MaxLength) {
				out = append(out, violation{rule: "not matching " + s.Pattern, value: candidate})
				break
			}
		}
	}
	switch s.Format {
	case "uuid":
		out = append(out, violation{rule: "not a uuid", value: "not-a-uuid"})
	case "date-time":
		out = append(out, violation{rule: "not a date-time", value: "yesterday"})
	case "date":
		out = append(out, violation{rule: "not a date", value: "2026-13-45"})
	case "byte":
		out = append(out, violation{rule: "not base64", value: "not base64!"})
	}
	return out
}

type queryViolation struct{ rule, value string }

// invalidQueryValues returns query values that break one rule each of a parameter's schema,
// the empty value of a typed parameter included.
func invalidQueryValues(s *openapi3.Schema) []queryViolation {
	var out []queryViolation
	switch {
	case s.Type.Is("integer"), s.Type.Is("number"):
		out = append(out, queryViolation{"empty", ""}, queryViolation{"not a number", "abc"})
		if s.Type.Is("integer") {
			out = append(out, queryViolation{"not a whole number", "1.5"})
		}
		if s.Min != nil {
			out = append(out, queryViolation{"below the minimum", fmt.Sprint(*s.Min - 1)})
		}
		if s.Max != nil {
			out = append(out, queryViolation{"above the maximum", fmt.Sprint(int64(*s.Max) + 1)})
		}
	case s.Type.Is("string"):
		for _, bad := range invalidStrings(s) {
			if v, ok := bad.value.(string); ok {
				out = append(out, queryViolation{bad.rule, v})
			}
		}
	}
	return out
}

func validQueryValue(w *contractWorld, path string, p *openapi3.Parameter, rng *rand.Rand) string {
	switch {
	case p.Name == "series_id" || (p.Name == "endpoint_id" && path == "/_fake/webhook-deliveries"):
		if p.Name == "series_id" {
			return w.series()
		}
		return w.controlEndpoint()
	case p.Name == "workspace_id":
		return w.seed.WorkspaceID
	}
	if p.Example != nil {
		return fmt.Sprint(p.Example)
	}
	return fmt.Sprint(validValue(p.Schema, rng, 1))
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// contractWorld is one fresh fake with the resources the generated requests name, each made
// once on first use.
type contractWorld struct {
	t        *testing.T
	srv      *Server
	seed     DemoWorkspace
	receiver string
	memo     map[string]string
}

func newContractWorld(t *testing.T) *contractWorld {
	srv, seed := NewTest(t, WithoutRateLimits())
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(receiver.Close)
	return &contractWorld{t: t, srv: srv, seed: seed, receiver: receiver.URL + "/hook", memo: map[string]string{}}
}

// once returns the memoised value of name, creating it on first use. Resources are created
// before any generated request is sent, by one goroutine, so that a request that changes the
// state (a reset, a disabled key) cannot leave a later one without them.
func (w *contractWorld) once(name string, create func() string) string {
	if v, ok := w.memo[name]; ok {
		return v
	}
	v := create()
	w.memo[name] = v
	return v
}

func (w *contractWorld) credentials(path string) http.Header {
	if strings.HasPrefix(path, "/_fake/") {
		return bearer(w.srv.AdminToken())
	}
	return bearer(w.seed.APIKey)
}

// post sends a setup request that must answer 2xx and returns field of its JSON answer.
func (w *contractWorld) post(path string, header http.Header, body, field string) string {
	w.t.Helper()
	status, _, answer := call(w.t, w.srv, "POST", path, jsonHeader(header), body)
	var out map[string]any
	if status/100 != 2 || json.Unmarshal(answer, &out) != nil {
		w.t.Fatalf("setup POST %s: %d %s", path, status, answer)
	}
	v, ok := out[field].(string)
	if !ok {
		w.t.Fatalf("setup POST %s: no %s in %s", path, field, answer)
	}
	return v
}

func (w *contractWorld) admin() http.Header { return bearer(w.srv.AdminToken()) }

func (w *contractWorld) feed() (id, feedURL string) {
	body := `{"title":"Contract show","episodes":[{"title":"One","duration_s":1,"format":"wav"}]}`
	id = w.once("feed", func() string {
		status, _, answer := call(w.t, w.srv, "POST", "/_fake/feeds", jsonHeader(w.admin()), body)
		var f HostedFeed
		if status != http.StatusCreated || json.Unmarshal(answer, &f) != nil {
			w.t.Fatalf("host a feed: %d %s", status, answer)
		}
		w.memo["feed_url"] = f.FeedURL
		return f.ID
	})
	return id, w.memo["feed_url"]
}

func (w *contractWorld) report() string {
	_, feedURL := w.feed()
	return w.once("report", func() string {
		return w.post("/api/rest/v1/reports", bearer(w.seed.APIKey), `{"feed_url":"`+feedURL+`"}`, "id")
	})
}

func (w *contractWorld) series() string {
	report := w.report()
	return w.once("series", func() string {
		status, _, answer := call(w.t, w.srv, "GET", "/api/rest/v1/reports/"+report, bearer(w.seed.APIKey), "")
		var r struct {
			Series struct {
				ID string `json:"id"`
			} `json:"series"`
		}
		if status != http.StatusOK || json.Unmarshal(answer, &r) != nil || r.Series.ID == "" {
			w.t.Fatalf("the report's series: %d %s", status, answer)
		}
		return r.Series.ID
	})
}

func (w *contractWorld) controlEndpoint() string {
	return w.once("control endpoint", func() string {
		return w.post("/_fake/workspaces/"+w.seed.WorkspaceID+"/webhook-endpoints", w.admin(),
			`{"url":"`+w.receiver+`","events":["report.completed"]}`, "id")
	})
}

func (w *contractWorld) standard() string {
	return w.once("standard", func() string {
		return w.post("/_fake/workspaces/"+w.seed.WorkspaceID+"/standards", w.admin(), `{"name":"Contract standard"}`, "id")
	})
}

// idFor names the resource a path parameter of the operation refers to.
func (w *contractWorld) idFor(method, path string) string {
	switch {
	case path == "/_fake/workspaces/{id}/owners":
		return w.once("organisation", func() string {
			return w.post("/_fake/workspaces", w.admin(), `{"type":"organisation","name":"Contract org"}`, "id")
		})
	case strings.HasPrefix(path, "/_fake/workspaces/{id}"):
		return w.seed.WorkspaceID
	case path == "/_fake/api-keys/{id}":
		return w.seed.APIKeyID
	case path == "/_fake/faults/{id}":
		return w.once("fault", func() string {
			return w.post("/_fake/faults", w.admin(), `{"path_prefix":"/nowhere","status":500}`, "id")
		})
	case strings.HasPrefix(path, "/_fake/feeds/{id}"):
		id, _ := w.feed()
		return id
	case strings.HasPrefix(path, "/_fake/webhook-endpoints/{id}"):
		return w.controlEndpoint()
	case strings.HasPrefix(path, "/_fake/webhook-deliveries/{id}"):
		endpoint := w.controlEndpoint()
		return w.once("delivery", func() string {
			return w.post("/_fake/webhook-endpoints/"+endpoint+"/test", w.admin(), "", "id")
		})
	case strings.HasPrefix(path, "/_fake/series/{id}"), strings.HasPrefix(path, "/api/rest/v1/series/{series_id}"):
		return w.series()
	case strings.HasPrefix(path, "/api/rest/v1/reports/{report_id}"), path == "/_fake/reports/{id}":
		return w.report()
	case path == "/webhook/subscribe/{id}":
		return w.once("rest endpoint", func() string {
			return w.post("/webhook/subscribe", bearer(w.seed.APIKey), `{"url":"`+w.receiver+`","events":["report.completed"]}`, "id")
		})
	}
	w.t.Fatalf("%s %s: no resource for its path parameter", method, path)
	return ""
}

// validBodies gives the valid bodies of operations whose validity depends on the fake's state
// (a feed it can read, a resource that exists, a receiver on loopback), nil for the others.
func (w *contractWorld) validBodies(method, path string) []any {
	switch method + " " + path {
	case "POST /api/rest/v1/reports":
		_, feedURL := w.feed()
		series := w.series()
		return []any{
			map[string]any{"feed_url": feedURL},
			map[string]any{"series_id": series, "episode_index": 0},
		}
	case "POST /webhook/subscribe", "POST /_fake/workspaces/{id}/webhook-endpoints":
		return []any{map[string]any{"url": w.receiver, "events": []any{"report.completed"}}}
	case "PUT /_fake/workspaces/{id}/default-standard":
		return []any{map[string]any{"standard_id": w.standard()}}
	case "PUT /_fake/series/{id}/standard":
		return []any{map[string]any{"standard_id": w.standard()}, map[string]any{"standard_id": nil}}
	case "POST /_fake/feeds":
		// WAV: synthesis without MP3 encoding keeps each generated episode cheap under -race.
		return []any{map[string]any{"title": "Generated show", "episodes": []any{map[string]any{"title": "One", "duration_s": 0.5, "format": "wav"}}}}
	case "POST /_fake/feeds/{id}/episodes":
		return []any{map[string]any{"title": "Two", "duration_s": 0.5, "format": "wav"}}
	case "POST /_fake/faults":
		return []any{map[string]any{"path_prefix": "/nowhere", "status": 503}}
	}
	return nil
}
