package fakeserver

import (
	"net/http"
	"strings"
	"sync"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
	"github.com/podqa/podqa-go/fakeserver/internal/graphiql"
	"github.com/podqa/podqa-go/fakeserver/internal/openapicheck"
	"github.com/podqa/podqa-go/fakeserver/internal/restserver"
)

// The surfaces' shared tables (shared_routes.go) and the rows each fake binds on them.

// sharedREST serves the REST API under restBase (routes.go has the order of its front): 404,
// then 405 with Allow, from the routes generated from openapi.json, in one ServeMux lookup; a
// routed request goes on through its fake's row of restRows.
var sharedREST = sync.OnceValue(func() http.Handler {
	routes := newRESTRouter(func(_, _ string, h http.Handler) http.Handler { return h })
	for _, r := range sharedRows(restTable, (*Server).restRows) {
		routes.HandleFunc(r.pattern, r.handler.ServeHTTP)
	}
	return routes
})

// restCheck is openapi.json's checks, made once: the Validator is immutable.
var restCheck = sync.OnceValues(func() (*openapicheck.Validator, error) { return openapicheck.New(restBase) })

// restRows are the generated REST routes as s serves them, in the order the generated code
// registers them: credentials and the per-key limits, the JSON content type of writes,
// openapi.json's checks, the id rule, then the generated handler.
func (s *Server) restRows() []route {
	strict := restserver.NewStrictHandlerWithOptions(&restAPI{s: s}, nil, restserver.StrictHTTPServerOptions{
		RequestErrorHandlerFunc: func(w http.ResponseWriter, r *http.Request, err error) {
			writeError(w, core.ErrValidation("Request body is not valid JSON: %s.", jsonProblem(err)))
		},
		ResponseErrorHandlerFunc: s.restAnswerFailed,
	})
	var rows routeRecorder
	restserver.HandlerWithOptions(strict, restserver.StdHTTPServerOptions{
		BaseURL:    restBase,
		BaseRouter: &rows,
		ErrorHandlerFunc: func(w http.ResponseWriter, r *http.Request, err error) {
			writeError(w, core.ErrValidation("%s", err.Error()))
		},
	})
	check, err := restCheck()
	for i, row := range rows {
		if err != nil {
			rows[i].handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeError(w, err) })
			continue
		}
		method, path, _ := strings.Cut(row.pattern, " ")
		rows[i].handler = s.authenticate(s.requireJSONWrites(s.validate(check, method, path, canonicalIDs(path, row.handler))))
	}
	return rows
}

// routeRecorder takes the generated routes as rows, in the order they register, without routing
// them: the shared table routes.
type routeRecorder []route

// HandleFunc records the route.
func (rec *routeRecorder) HandleFunc(pattern string, handler func(http.ResponseWriter, *http.Request)) {
	*rec = append(*rec, route{pattern: pattern, handler: http.HandlerFunc(handler)})
}

// ServeHTTP is never called: the recorder only records.
func (rec *routeRecorder) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	writeError(w, errInternal())
}

// sharedUI serves uiRows: the headers, then the same-origin check on every unsafe method, then
// 404 or 405 with Allow from the rows, then the request's fake's row, where the token is checked
// for every row but the login form and the static files.
var sharedUI = sync.OnceValue(func() http.Handler {
	table := newSharedTable(uiTable, (*Server).dashboardRows)
	origin := http.NewCrossOriginProtection()
	origin.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &Error{Status: http.StatusForbidden, Code: core.CodeForbidden, Message: "The dashboard takes forms only from its own pages (cross-origin request refused)."})
	}))
	return uiHeaders(origin.Handler(unrouted(table, "Dashboard page", table)))
})

// dashboardRows are uiRows over s's dashboard, made on its first dashboard request: its sessions
// are its own, its pages the process's (dashboard.Shared).
func (s *Server) dashboardRows() []route {
	pages, err := dashboard.Shared()
	rows := s.uiRows(&dashboardUI{s: s, pages: pages})
	if err != nil {
		// The templates are embedded and parsed by the tests: a failure here is a build error.
		for i := range rows {
			rows[i].handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				writeError(w, &Error{Status: http.StatusInternalServerError, Code: core.CodeInternal, Message: "The dashboard's templates do not parse: " + err.Error()})
			})
		}
	}
	return rows
}

// sharedExplorerAssets and sharedGraphiQLAssets serve the explorers' files, which are the same
// for every fake; the GraphiQL files are compressed once, on their first request.
var (
	sharedExplorerAssets = sync.OnceValue(restExplorerAssets)
	sharedGraphiQLAssets = sync.OnceValue(graphiql.Assets)
)

// feedRoutes serves the hosted feeds, made on the first request to them.
func (s *Server) feedRoutes() http.Handler { return s.host.Handler() }
