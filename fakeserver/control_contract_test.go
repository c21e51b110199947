package fakeserver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// checkControlAnswer validates one control API answer the test suite got against
// control.openapi.json: call runs it on every /_fake answer.
func checkControlAnswer(t *testing.T, method, path string, status int, header http.Header, body []byte) {
	t.Helper()
	if err := validateControlAnswer(method, path, status, header, body); err != nil {
		t.Errorf("control contract: %s %s answered %d %.300s: %v", method, path, status, body, err)
	}
}

// validateControlAnswer checks that the answer's status is documented for its operation and
// that its body matches; an undocumented route may only answer 401, 404 or 405.
func validateControlAnswer(method, path string, status int, header http.Header, body []byte) error {
	doc, err := controlContract()
	if err != nil {
		return err
	}
	route, params := findControlRoute(doc, method, path)
	if route == nil {
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed && status != http.StatusUnauthorized {
			return errors.New("the route is not documented")
		}
		return nil
	}
	req, _ := http.NewRequest(method, "http://fake"+path, nil)
	return openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	})
}

func TestValidateControlAnswerCatchesDrift(t *testing.T) {
	t.Parallel()
	h := http.Header{"Content-Type": {"application/json"}}
	tests := []struct {
		name, method, path string
		status             int
		body               string
		ok                 bool
	}{
		{"good clock", "GET", "/_fake/clock", 200, `{"now":"2026-01-05T09:00:00.000000+00:00"}`, true},
		{"clock not a date-time", "GET", "/_fake/clock", 200, `{"now":5}`, false},
		{"clock without now", "GET", "/_fake/clock", 200, `{}`, false},
		{"undocumented status", "GET", "/_fake/clock", 418, `{}`, false},
		{"journal entry missing fields", "GET", "/_fake/requests", 200, `{"items":[{"id":"0b0e3c4e-1111-4000-8000-000000000000"}]}`, false},
		{"error envelope", "POST", "/_fake/workspaces", 400, `{"error":{"code":"validation_error","message":"m"}}`, true},
		{"undocumented route answering 200", "GET", "/_fake/nothing", 200, `{}`, false},
		{"unknown route 404", "GET", "/_fake/nothing", 404, `{"error":{"code":"not_found","message":"m"}}`, true},
	}
	for _, tt := range tests {
		err := validateControlAnswer(tt.method, tt.path, tt.status, h, []byte(tt.body))
		if (err == nil) != tt.ok {
			t.Errorf("%s: err = %v", tt.name, err)
		}
	}
}

// findControlRoute matches a request path against the document's path templates.
func findControlRoute(doc *openapi3.T, method, path string) (*routers.Route, map[string]string) {
	path, _, _ = strings.Cut(path, "?")
	segs := strings.Split(path, "/")
	if method == http.MethodHead {
		method = http.MethodGet
	}
	for tmpl, item := range doc.Paths.Map() {
		op := item.GetOperation(method)
		if op == nil {
			continue
		}
		tsegs := strings.Split(tmpl, "/")
		if len(tsegs) != len(segs) {
			continue
		}
		params := map[string]string{}
		ok := true
		for i, ts := range tsegs {
			switch {
			case strings.HasPrefix(ts, "{"):
				params[strings.Trim(ts, "{}")] = segs[i]
			case ts != segs[i]:
				ok = false
			}
		}
		if ok {
			return &routers.Route{Spec: doc, Path: tmpl, PathItem: item, Method: method, Operation: op}, params
		}
	}
	return nil, nil
}

func TestControlContractLoadsAndIsServed(t *testing.T) {
	t.Parallel()
	doc, err := controlContract()
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("control.openapi.json is not valid OpenAPI: %v", err)
	}
	srv, _ := NewTest(t)
	status, header, body := call(t, srv, "GET", "/_fake/openapi.json", nil, "")
	if status != http.StatusOK || header.Get("Content-Type") != "application/json" || !bytes.Equal(body, ControlOpenAPI()) {
		t.Fatalf("GET /_fake/openapi.json without a token: %d %s", status, header.Get("Content-Type"))
	}
	// Every route the control mux serves is documented, and nothing else is.
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	for _, route := range []string{
		"POST /_fake/workspaces", "POST /_fake/workspaces/{id}/api-keys", "POST /_fake/reset", "GET /_fake/requests",
		"DELETE /_fake/requests", "GET /_fake/healthz", "GET /_fake/openapi.json", "POST /_fake/faults", "DELETE /_fake/faults",
		"POST /_fake/clock/advance", "GET /_fake/clock", "POST /_fake/transcripts", "PUT /_fake/series/{id}/standard",
	} {
		if !documented[route] {
			t.Errorf("%s is not in control.openapi.json", route)
		}
	}
}

// TestControlRequestsValidated shows control requests are checked against the contract before
// any handler runs.
func TestControlRequestsValidated(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	tests := []struct {
		method, path, body, want string
	}{
		{"POST", "/_fake/workspaces", `{"type":"team","name":"x"}`, "type"},
		{"POST", "/_fake/workspaces", `{"type":"personal","name":3}`, "name"},
		{"POST", "/_fake/clock/advance", `{"seconds":"ten"}`, "seconds"},
		{"POST", "/_fake/faults", `{"path_prefix":"/api","status":404,"count":1}`, "status"},
		{"GET", "/_fake/requests?limit=0", ``, "limit"},
		{"GET", "/_fake/requests?status=x", ``, "status"},
	}
	for _, tt := range tests {
		status, _, body := call(t, srv, tt.method, tt.path, admin(srv), tt.body)
		if status != http.StatusBadRequest || errorCode(t, body) != "validation_error" || !strings.Contains(string(body), tt.want) {
			t.Errorf("%s %s %s: %d %s", tt.method, tt.path, tt.body, status, body)
		}
	}
}
