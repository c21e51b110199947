package control

import (
	"fmt"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// LoadContract loads raw, the embedded control.openapi.json, as the fake's private copy
// (PrepareContract).
func LoadContract(raw []byte) (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("fakeserver: load the embedded control.openapi.json: %w", err)
	}
	PrepareContract(doc)
	return doc, nil
}

// ServeDocument is GET /_fake/openapi.json: raw, the control API's contract, as it is.
func ServeDocument(raw []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(raw)
	})
}
