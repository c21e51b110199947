package fakeserver

import "net/http"

// handleHealthz answers the health check of container health checks and CI readiness loops; it
// needs no token.
func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte("ok"))
}
