package fakeserver

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/restserver"
	"github.com/podqa/podqa-go/internal/apitime"
)

// restBase is where the REST API lives; the webhook subscription calls live at the root.
const restBase = "/api/rest/v1"

// restRoutes serves the REST API under restBase (routes.go has the order of its front). Routing
// comes from the code generated from openapi.json; in front of it sit, in this order: 404 and
// 405 (with Allow) from the same generated routes, credentials and the per-key limits, the JSON
// content type of writes, openapi.json's checks, and for GET /reports/{id} the cached answer of
// a finished report.
func (s *Server) restRoutes() http.Handler {
	api := &restAPI{s: s}
	strict := restserver.NewStrictHandlerWithOptions(api, nil, restserver.StrictHTTPServerOptions{
		RequestErrorHandlerFunc: func(w http.ResponseWriter, r *http.Request, err error) {
			writeError(w, core.ErrValidation("Request body is not valid JSON: %s.", jsonProblem(err)))
		},
		ResponseErrorHandlerFunc: s.restAnswerFailed,
	})
	check, err := newValidator(restBase)
	if err != nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeError(w, err) })
	}
	routes := newRESTRouter(func(method, path string, h http.Handler) http.Handler {
		h = carryPrincipal(h)
		if method == http.MethodGet && path == reportPattern {
			h = s.answerFinishedReports(h)
		}
		return s.authenticate(s.requireJSONWrites(s.validate(check, method, path, h)))
	})
	restserver.HandlerWithOptions(strict, restserver.StdHTTPServerOptions{
		BaseURL:    restBase,
		BaseRouter: routes,
		ErrorHandlerFunc: func(w http.ResponseWriter, r *http.Request, err error) {
			writeError(w, core.ErrValidation("%s", err.Error()))
		},
	})
	return routes
}

// restAnswerFailed answers a REST handler's error, logging any that is not the service's own.
func (s *Server) restAnswerFailed(w http.ResponseWriter, r *http.Request, err error) {
	if _, ok := err.(*core.Error); !ok {
		s.log.Error("REST handler failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeError(w, err)
}

// answerFinishedReports answers GET (and HEAD) /reports/{report_id} of a finished report from
// the render cache when it holds the report's rendering as the report now is: the generated
// handler would write the same status, headers and bytes, after the same credentials, limits,
// journal, faults and contract checks, which all run before it
// (TestCachedReportAnswersMatchTheFullPath). Anything else, and a report the cache does not
// hold as it is now, goes to next, which renders and caches it.
func (s *Server) answerFinishedReports(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		full := func() {
			reportIDOf(r, true) // the generated handler reads it as a path value
			next.ServeHTTP(w, r)
		}
		probe := s.answerProbe.mode.Load()
		if probe&answerCacheOff != 0 {
			full()
			return
		}
		id, err := uuid.Parse(reportIDOf(r, false))
		if err != nil {
			full()
			return
		}
		stamp, ok := s.core.FinishedReportStamp(principalOf(w, r).Workspace.ID, id)
		if !ok {
			full()
			return
		}
		body := s.renderCache.lookup(id, stamp)
		if body == nil {
			full()
			return
		}
		if probe&answerCacheCount != 0 {
			s.answerProbe.hits.Add(1)
		}
		if err := body.VisitGetReportResponse(w); err != nil {
			s.restAnswerFailed(w, r, err)
		}
	})
}

// answerCacheProbe lets a test compare answerFinishedReports with the full path: mode holds
// answerCacheOff (every request takes the full path) and answerCacheCount (hits counts the
// answers the cache gives). Both are off outside tests.
type answerCacheProbe struct {
	mode atomic.Uint32
	hits atomic.Uint64
}

const (
	answerCacheOff = 1 << iota
	answerCacheCount
)

// validate checks parameters and bodies against openapi.json before the handler sees them; the
// route is method and path, the pattern it was registered with.
func (s *Server) validate(check *validator, method, path string, next http.Handler) http.Handler {
	key := check.routeKey(method, path)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := bufferJSONBody(r, maxAPIBody); err != nil {
			writeError(w, err)
			return
		}
		if err := check.checkRoute(r, key, path); err != nil {
			writeError(w, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// restCallKey holds a request's *restCall in the context of the generated handler.
type restCallKey struct{}

// restCall is what the REST front learns of a request before its handler runs: the principal
// it entered as (authenticate), which the journal then records instead of resolving the
// credential again. It lives in the request's recorder (logRequests), where the front finds it
// without copying the request (callOf); only a generated handler gets it in its context
// (carryPrincipal).
type restCall struct {
	principal core.Principal
	entered   bool
}

// callOf is the restCall of the recorder under w, or nil when w has none.
func callOf(w http.ResponseWriter) *restCall {
	for {
		switch x := w.(type) {
		case *journalRecorder:
			return &x.call
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return nil
		}
	}
}

// carryPrincipal puts the principal authenticate let in into the context of next, a generated
// handler, which reads it with principalFrom.
func carryPrincipal(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := callOf(w); c != nil && c.entered && r.Context().Value(principalKey{}) == nil {
			r = r.WithContext(context.WithValue(r.Context(), restCallKey{}, c))
		}
		next.ServeHTTP(w, r)
	})
}

// principalOf is the principal the REST front let r in as, before carryPrincipal.
func principalOf(w http.ResponseWriter, r *http.Request) core.Principal {
	if p, ok := r.Context().Value(principalKey{}).(core.Principal); ok {
		return p
	}
	if c := callOf(w); c != nil && c.entered {
		return c.principal
	}
	return core.Principal{}
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

type principalKey struct{}

func principalFrom(ctx context.Context) core.Principal {
	if c, ok := ctx.Value(restCallKey{}).(*restCall); ok && c.entered {
		return c.principal
	}
	p, _ := ctx.Value(principalKey{}).(core.Principal)
	return p
}

func isSafeMethod(method string) bool {
	return method == http.MethodGet || method == http.MethodHead
}

// authenticate lets a request in through the core's REST door (a bearer key, or for reads only
// the sessionid cookie, under the per-key limits) and answers a refusal in REST's shape.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		door := core.RESTWrite
		if isSafeMethod(r.Method) {
			door = core.RESTRead
		}
		p, err := s.enter(r, door)
		if err != nil {
			writeError(w, err)
			return
		}
		if c := callOf(w); c != nil && !c.entered {
			c.principal, c.entered = p, true // set before the handler runs, never after
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	})
}

// presented reads what a request presents to the core's doors. The sessionid cookie is read only
// without an Authorization header, which takes precedence over it.
func presented(r *http.Request) core.Credentials {
	cred := core.Credentials{Authorization: r.Header.Get("Authorization"), ClientIP: clientIP(r)}
	if cred.Authorization == "" {
		if cookie, err := r.Cookie("sessionid"); err == nil {
			cred.Session, cred.SessionSent = cookie.Value, true
		}
	}
	return cred
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// requireJSONWrites refuses a write whose body is not declared as JSON.
func (s *Server) requireJSONWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && !isJSON(r.Header.Get("Content-Type")) {
			writeError(w, core.ErrValidation("Content-Type must be application/json."))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// restAPI implements the generated strict server over the domain core.
type restAPI struct {
	s *Server
}

var _ restserver.StrictServerInterface = (*restAPI)(nil)

func (a *restAPI) GetMe(ctx context.Context, _ restserver.GetMeRequestObject) (restserver.GetMeResponseObject, error) {
	p := principalFrom(ctx)
	me := restserver.Me{Workspace: restserver.Workspace{
		ID:   p.Workspace.ID,
		Name: p.Workspace.Name,
		Type: restserver.WorkspaceType(p.Workspace.Type),
	}}
	if k := p.Key; k != nil {
		rec := restserver.APIKeyRecord{
			ID:          k.ID,
			Description: k.Description,
			MaskedKey:   k.MaskedKey,
			CreatedAt:   apitime.At(k.CreatedAt),
		}
		if k.LastUsedAt != nil {
			rec.LastUsedAt = apitime.Ptr(*k.LastUsedAt)
		}
		me.Key = &rec
	}
	return restserver.GetMe200JSONResponse(me), nil
}
