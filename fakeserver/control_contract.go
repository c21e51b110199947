package fakeserver

import (
	_ "embed"
	"fmt"
	"net/http"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/podqa/podqa-go/fakeserver/internal/control"
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
	control.PrepareContract(doc)
	return doc, nil
})

// ControlOpenAPI returns the control API's OpenAPI 3.0 document, as GET /_fake/openapi.json
// serves it, for generating a client in another language.
func ControlOpenAPI() []byte { return append([]byte(nil), controlOpenAPI...) }

func (s *Server) handleControlOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(controlOpenAPI)
}

// validateControl checks each control request against control.openapi.json before mux serves
// it (control.Validate), logging a contract that could not load in the request's fake's log.
func validateControl(mux *http.ServeMux) http.Handler {
	doc, err := controlContract()
	return control.Validate(doc, err, mux, func(r *http.Request, err error) {
		if s := serverOf(r); s != nil {
			s.log.Error("control API contract", "err", err)
		}
	})
}
