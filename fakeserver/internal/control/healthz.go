package control

import "net/http"

// ServeHealthz answers the health check of container health checks and CI readiness loops; it
// needs no token.
func ServeHealthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte("ok"))
}
