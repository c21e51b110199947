package fakeserver

import (
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// recoverPanics turns a panic in any handler into 500 internal_error; the detail goes to the
// log, never to the caller.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
				writeError(w, httpmw.ErrInternal())
			}
		}()
		next.ServeHTTP(w, r)
	})
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// logRequests logs each request at debug level (the control API's at info), without headers:
// they carry keys. It opens the request's call (httpmw.Begin).
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		// A journalRecorder, which journaled takes over, so that a journaled request has one.
		rec := &journalRecorder{statusRecorder: statusRecorder{ResponseWriter: w}}
		// The request's call, where a door writes the principal it let the request in as.
		r, _ = httpmw.Begin(r)
		next.ServeHTTP(rec, r)
		level := slog.LevelDebug
		if strings.HasPrefix(r.URL.Path, "/_fake/") {
			level = slog.LevelInfo
		}
		s.raiseRequest(r, level, rec.status, time.Since(began))
		// What the request changed in the core is told before the next request is served.
		s.core.FlushNotices()
	})
}
