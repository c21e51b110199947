package fakeserver

import (
	_ "embed"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/openapicheck"
)

// controlOpenAPI is the control API's own contract, served at GET /_fake/openapi.json.
//
//go:embed control.openapi.json
var controlOpenAPI []byte

// controlContract is control.openapi.json loaded once: immutable after loading and shared by
// every fake in the process.
var controlContract = sync.OnceValues(func() (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(controlOpenAPI)
	if err != nil {
		return nil, fmt.Errorf("fakeserver: load the embedded control.openapi.json: %w", err)
	}
	doc.Servers = nil // routes are matched by our own mux
	openapicheck.RelaxDateTimeQueries(doc)
	uuidQueries(doc)
	return doc, nil
})

// uuidPattern is what a uuid query parameter of the control API must match.
const uuidPattern = `^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`

// uuidQueries makes the fake's private copy of the control contract check `format: uuid` of its
// query parameters as a pattern: kin-openapi checks no uuid format unless one is registered
// process-wide, which would also change REST's answers (a malformed REST id is a 404 there).
func uuidQueries(doc *openapi3.T) {
	for _, ref := range doc.Components.Parameters {
		p := ref.Value
		if p == nil || p.In != openapi3.ParameterInQuery || p.Schema == nil || p.Schema.Value == nil || p.Schema.Value.Format != "uuid" {
			continue
		}
		checked := *p.Schema.Value
		checked.Pattern = uuidPattern
		p.Schema = openapi3.NewSchemaRef("", &checked)
	}
}

// ControlOpenAPI returns the control API's OpenAPI 3.0 document, as GET /_fake/openapi.json
// serves it, for generating a client in another language.
func ControlOpenAPI() []byte { return append([]byte(nil), controlOpenAPI...) }

func (s *Server) handleControlOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(controlOpenAPI)
}

// validateControl checks each control request against control.openapi.json before mux serves
// it, as REST requests are checked against openapi.json: parameters and bodies are refused
// with 400 validation_error naming the field.
func validateControl(mux *http.ServeMux) http.Handler {
	doc, err := controlContract()
	if err != nil {
		// The embedded document is part of the build; a test loads it, so this cannot happen
		// in a released fake. Refuse rather than serve unchecked.
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if s := serverOf(r); s != nil {
				s.log.Error("control API contract", "err", err)
			}
			writeError(w, err)
		})
	}
	v := openapicheck.For(doc, "")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pattern := mux.Handler(r)
		if _, path, ok := strings.Cut(pattern, " "); ok {
			pattern = path
		}
		// The body is read within its limit before the contract check reads it, so that an
		// oversized body is refused as such (and never read whole), as on REST.
		if err := httpmw.BufferJSONBody(r, httpmw.MaxControlBody); err != nil {
			writeError(w, err)
			return
		}
		if err := v.Check(r, pattern); err != nil {
			writeError(w, err)
			return
		}
		mux.ServeHTTP(w, r)
	})
}
