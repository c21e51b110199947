package fakeserver

import (
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/restserver"
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
	// report is the routed handler of GET reportPattern, which ServeHTTP calls without the
	// ServeMux lookup for a canonical report id (see direct).
	report http.Handler
}

// reportPattern is the route of one report, the API's most read.
const reportPattern = restBase + "/reports/{report_id}"

// reportIDParam is the path parameter of reportPattern.
const reportIDParam = "report_id"

// newRESTRouter is an empty REST router whose routes pass through front.
func newRESTRouter(front func(method, path string, h http.Handler) http.Handler) *restRouter {
	t := &restRouter{mux: http.NewServeMux(), front: front, methods: map[string][]string{}}
	t.mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, core.ErrNotFound("Resource"))
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
			writeError(w, errMethodNotAllowed("Method "+r.Method+" is not allowed here."))
		})
	}
	t.methods[path] = append(t.methods[path], method)
	routed := t.front(method, path, http.HandlerFunc(handler))
	if method == http.MethodGet && path == reportPattern {
		t.report = routed
	}
	t.mux.Handle(pattern, routed)
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
	if t.report != nil && directReportID(r) != "" {
		t.report.ServeHTTP(w, r)
		return
	}
	t.mux.ServeHTTP(w, r)
}

// directReportID is the report id of a GET or HEAD of reportPattern that ServeMux would route
// there for sure, or "": an id in canonical form (one segment, nothing to unescape, so ServeMux
// would match it to the pattern, which no other route's pattern overlaps). Such a request
// reaches the route without its path value set; reportIDOf reads the id for the handlers
// (TestDirectReportRouteAgreesWithTheMux).
func directReportID(r *http.Request) string {
	if r.Method != http.MethodGet && r.Method != http.MethodHead || r.URL.RawPath != "" {
		return ""
	}
	id, ok := strings.CutPrefix(r.URL.Path, restBase+"/reports/")
	if !ok || !isCanonicalUUID(id) {
		return ""
	}
	return id
}

// reportIDOf is the report_id of a request routed to reportPattern, by ServeMux or directly;
// set, it is also put where the generated handler reads it (SetPathValue), which a direct
// route otherwise skips.
func reportIDOf(r *http.Request, set bool) string {
	if id := r.PathValue(reportIDParam); id != "" {
		return id
	}
	id := directReportID(r)
	if set && id != "" {
		r.SetPathValue(reportIDParam, id)
	}
	return id
}

// restShortcut sends a request straight to the REST API's handler when the fake's route table
// would send it there, so that the common request skips one ServeMux lookup (a dozen small
// allocations on this table). It decides only what it can decide for sure, from the escaped path
// as ServeMux matches it: a clean path (ServeMux redirects any other), any method but CONNECT
// (not cleaned), under restBase with a first segment that starts one of the generated routes,
// where the table's only pattern is restBase's own; everything else goes to the table.
// TestRESTShortcutAgreesWithTheTable and FuzzRESTShortcutAgreesWithTheTable hold it to that.
type restShortcut struct {
	rest, table http.Handler
	// first is the first segment under restBase of every generated route.
	first map[string]bool
}

// newRESTShortcut is the shortcut to rest in front of table.
func newRESTShortcut(rest, table http.Handler) *restShortcut {
	first := map[string]bool{}
	restserver.HandlerWithOptions(nil, restserver.StdHTTPServerOptions{BaseURL: restBase, BaseRouter: patternRecorder(func(pattern string) {
		_, path, _ := strings.Cut(pattern, " ")
		seg, _, _ := strings.Cut(strings.TrimPrefix(path, restBase+"/"), "/")
		first[seg] = true
	})})
	return &restShortcut{rest: rest, table: table, first: first}
}

// takes reports whether r goes straight to the REST handler.
func (c *restShortcut) takes(r *http.Request) bool {
	if r.Method == http.MethodConnect {
		return false
	}
	p := r.URL.EscapedPath()
	rest, ok := strings.CutPrefix(p, restBase+"/")
	if !ok {
		return false
	}
	seg, _, _ := strings.Cut(rest, "/")
	if !c.first[seg] {
		return false
	}
	// ServeMux's cleanPath: path.Clean, keeping one trailing slash.
	clean := path.Clean(p)
	return clean == p || (len(p) == len(clean)+1 && p[len(p)-1] == '/' && strings.HasPrefix(p, clean))
}

// ServeHTTP serves r from the REST handler or the table.
func (c *restShortcut) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c.takes(r) {
		c.rest.ServeHTTP(w, r)
		return
	}
	c.table.ServeHTTP(w, r)
}

// patternRecorder is a restserver.ServeMux that only reports the patterns registered on it.
type patternRecorder func(pattern string)

// HandleFunc reports pattern.
func (f patternRecorder) HandleFunc(pattern string, _ func(http.ResponseWriter, *http.Request)) {
	f(pattern)
}

// ServeHTTP is never called: the recorder only collects the table.
func (f patternRecorder) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	writeError(w, core.ErrNotFound("Resource"))
}
