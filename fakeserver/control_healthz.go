package fakeserver

import "net/http"

// publicControlRoutes serves the control calls that need no token: the health check of container
// health checks and CI readiness loops, and the control API's own contract.
func (s *Server) publicControlRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /_fake/healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte("ok"))
	})
	mux.HandleFunc("GET /_fake/openapi.json", s.handleControlOpenAPI)
}
