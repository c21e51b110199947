package fakeserver

import (
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/journal"
	"github.com/podqa/podqa-go/fakeserver/internal/rest"
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

// logRequests logs each request at debug level (the control API's at info), without headers:
// they carry keys. It opens the request's call (httpmw.Begin).
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		// A journal.Recorder, which the journal takes over, so that a journaled request has one.
		rec := journal.NewRecorder(w)
		// The request's call, where a door writes the principal it let the request in as.
		r, _ = httpmw.Begin(r)
		next.ServeHTTP(rec, r)
		level := slog.LevelDebug
		if strings.HasPrefix(r.URL.Path, "/_fake/") {
			level = slog.LevelInfo
		}
		s.raiseRequest(r, level, rec.Status(), time.Since(began))
		// What the request changed in the core is told before the next request is served.
		s.core.FlushNotices()
	})
}

// routeTable records the generated routes as they register, so that 404 and 405 answers come
// from the same table as the routing.
type routeTable struct {
	mux     *http.ServeMux
	paths   *http.ServeMux
	methods map[string][]string // path pattern -> methods
}

// HandleFunc registers a route ("METHOD /path"): the generated REST routes, the control rows.
func (t *routeTable) HandleFunc(pattern string, handler func(http.ResponseWriter, *http.Request)) {
	method, path, _ := strings.Cut(pattern, " ")
	if t.paths == nil {
		t.paths = http.NewServeMux()
	}
	if _, seen := t.methods[path]; !seen {
		t.paths.HandleFunc(path, func(http.ResponseWriter, *http.Request) {})
	}
	t.methods[path] = append(t.methods[path], method)
	t.mux.HandleFunc(pattern, handler)
}

// ServeHTTP serves the recorded routes.
func (t *routeTable) ServeHTTP(w http.ResponseWriter, r *http.Request) { t.mux.ServeHTTP(w, r) }

// allowed returns the path pattern r matches and its methods, or nil methods when none does.
func (t *routeTable) allowed(r *http.Request) (string, []string) {
	_, pattern := t.paths.Handler(r)
	methods := t.methods[pattern]
	if slices.Contains(methods, http.MethodGet) && !slices.Contains(methods, http.MethodHead) {
		methods = append(slices.Clone(methods), http.MethodHead)
	}
	return pattern, methods
}

// newREST is the REST surface over the fake's core: its doors raise their refusals' events
// (enter), and a subscription call's endpoint raises its own.
func (s *Server) newREST() *rest.API {
	return rest.New(rest.Deps{
		Core: s.core, Clock: s.clock, Log: s.log, Views: s.views, URL: s.url, UploadKey: s.uploadKey,
		Enter:           s.enter,
		CheckWebhookURL: s.checkWebhookURL,
		Subscribed: func(p core.Principal, ep core.Endpoint) {
			s.events.raise(s.clock.Now(), slog.LevelInfo, EventEndpointSubscribed, "webhook endpoint subscribed", p.Workspace.ID.String(), "", slog.String("endpoint_id", ep.ID.String()))
		},
	})
}

// requireAdmin lets in the control calls that carry the admin token.
func (s *Server) requireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, _ := s.admin.Admits(r); !ok {
			writeError(w, &Error{Status: http.StatusUnauthorized, Code: core.CodeInvalidAPIKey, Message: "The control API needs Authorization: Bearer <admin_token>."})
			return
		}
		if s.admitted != nil {
			s.admitted(r)
		}
		next.ServeHTTP(w, r)
	})
}
