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
