package rest

import (
	"net/http"
	"slices"
	"strings"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// restRouter routes the REST API in one ServeMux lookup: each generated route ("METHOD /path")
// is registered behind the REST front, each of its paths without a method answers 405 with
// Allow, and any other path 404; so 404 and 405 come before credentials, from the same table as
// the routing, and a served request is matched once.
type restRouter struct {
	mux *http.ServeMux
	// front wraps a route's handler in the checks a request passes once routed.
	front   func(method, path string, h http.Handler) http.Handler
	methods map[string][]string // path pattern -> methods, in the order they registered
}

// newRESTRouter is an empty REST router whose routes pass through front.
func newRESTRouter(front func(method, path string, h http.Handler) http.Handler) *restRouter {
	t := &restRouter{mux: http.NewServeMux(), front: front, methods: map[string][]string{}}
	t.mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		httpmw.WriteError(w, core.ErrNotFound("Resource"))
	})
	return t
}

// HandleFunc registers a generated route ("METHOD /path").
func (t *restRouter) HandleFunc(pattern string, handler func(http.ResponseWriter, *http.Request)) {
	method, path, _ := strings.Cut(pattern, " ")
	if _, seen := t.methods[path]; !seen {
		t.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			methods := t.allowed(path)
			w.Header().Set("Allow", strings.Join(methods, ", "))
			httpmw.WriteError(w, httpmw.ErrMethodNotAllowed("Method "+r.Method+" is not allowed here."))
		})
	}
	t.methods[path] = append(t.methods[path], method)
	t.mux.Handle(pattern, t.front(method, path, http.HandlerFunc(handler)))
}

// allowed is the methods path serves: those registered, and HEAD wherever GET is.
func (t *restRouter) allowed(path string) []string {
	methods := t.methods[path]
	if slices.Contains(methods, http.MethodGet) && !slices.Contains(methods, http.MethodHead) {
		methods = append(slices.Clone(methods), http.MethodHead)
	}
	return methods
}

// ServeHTTP serves the registered routes.
func (t *restRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t.mux.ServeHTTP(w, r)
}
