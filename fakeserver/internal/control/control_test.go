package control

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// contractDoc is a control contract of one call, GET /_fake/things?workspace_id=<uuid>.
const contractDoc = `{
  "openapi": "3.0.3",
  "info": {"title": "t", "version": "1"},
  "servers": [{"url": "http://example.test"}],
  "components": {"parameters": {"WorkspaceID": {"name": "workspace_id", "in": "query", "schema": {"type": "string", "format": "uuid"}}}},
  "paths": {"/_fake/things": {"get": {"parameters": [{"$ref": "#/components/parameters/WorkspaceID"}],
    "responses": {"200": {"description": "ok"}}}}}
}`

// TestValidate: a control call reaches its handler only when the contract admits it; a uuid
// query parameter is checked as a uuid (PrepareContract), a contract that did not load refuses
// every call.
func TestValidate(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData([]byte(contractDoc))
	if err != nil {
		t.Fatal(err)
	}
	PrepareContract(doc)
	if doc.Servers != nil {
		t.Error("PrepareContract kept the servers")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /_fake/things", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	tests := []struct {
		name    string
		loadErr error
		target  string
		status  int
		code    string
	}{
		{"admitted", nil, "/_fake/things?workspace_id=3f2a6b1e-6a7c-4d2e-9b1a-0c5d8e7f6a5b", http.StatusTeapot, ""},
		{"no parameter", nil, "/_fake/things", http.StatusTeapot, ""},
		{"not a uuid", nil, "/_fake/things?workspace_id=nope", http.StatusBadRequest, "validation_error"},
		{"contract not loaded", errors.New("broken"), "/_fake/things", http.StatusInternalServerError, "internal_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			Validate(doc, tt.loadErr, mux, nil).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.target, nil))
			if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.code) {
				t.Errorf("status %d body %s, want %d %q", rec.Code, rec.Body, tt.status, tt.code)
			}
		})
	}
}
