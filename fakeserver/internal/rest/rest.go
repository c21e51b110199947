package rest

import (
	"context"
	"net/http"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/openapicheck"
	"github.com/podqa/podqa-go/fakeserver/internal/restserver"
	"github.com/podqa/podqa-go/internal/apitime"
)

// Base is where the REST API lives; the webhook subscription calls live at the root.
const Base = "/api/rest/v1"

// Route is one generated REST route ("METHOD /path") and the handler an API serves it with.
type Route struct {
	Pattern string
	Handler http.Handler
}

// check is openapi.json's checks, made once per process: the Validator is immutable.
var check = sync.OnceValues(func() (*openapicheck.Validator, error) { return openapicheck.New(Base) })

// Rows are the generated REST routes as a serves them, in the order the generated code
// registers them, each behind the REST front in this order: credentials and the per-key limits,
// the JSON content type of writes, openapi.json's checks, the id rule, then the generated
// handler. Making them only binds handlers to a, so the rows of a nil API give the patterns
// every API's rows have.
func (a *API) Rows() []Route {
	strict := restserver.NewStrictHandlerWithOptions(&restAPI{API: a}, nil, restserver.StrictHTTPServerOptions{
		RequestErrorHandlerFunc: func(w http.ResponseWriter, r *http.Request, err error) {
			httpmw.WriteError(w, core.ErrValidation("Request body is not valid JSON: %s.", httpmw.JSONProblem(err)))
		},
		ResponseErrorHandlerFunc: a.restAnswerFailed,
	})
	var rows routeRecorder
	restserver.HandlerWithOptions(strict, restserver.StdHTTPServerOptions{
		BaseURL:    Base,
		BaseRouter: &rows,
		ErrorHandlerFunc: func(w http.ResponseWriter, r *http.Request, err error) {
			httpmw.WriteError(w, core.ErrValidation("%s", err.Error()))
		},
	})
	check, err := check()
	for i, row := range rows {
		if err != nil {
			rows[i].Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { httpmw.WriteError(w, err) })
			continue
		}
		method, path, _ := strings.Cut(row.Pattern, " ")
		rows[i].Handler = a.authenticate(a.requireJSONWrites(a.validate(check, method, path, canonicalIDs(path, row.Handler))))
	}
	return rows
}

// Table routes the REST API under Base in one ServeMux lookup: 404, then 405 with Allow, from
// the generated routes, then each route's row (Rows). The facade builds it once per process
// over rows that serve each request with its own fake's API.
func Table(rows []Route) http.Handler {
	routes := newRESTRouter(func(_, _ string, h http.Handler) http.Handler { return h })
	for _, r := range rows {
		routes.HandleFunc(r.Pattern, r.Handler.ServeHTTP)
	}
	return routes
}

// routeRecorder takes the generated routes as rows, in the order they register, without routing
// them: Table routes.
type routeRecorder []Route

// HandleFunc records the route.
func (rec *routeRecorder) HandleFunc(pattern string, handler func(http.ResponseWriter, *http.Request)) {
	*rec = append(*rec, Route{Pattern: pattern, Handler: http.HandlerFunc(handler)})
}

// ServeHTTP is never called: the recorder only records.
func (rec *routeRecorder) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	httpmw.WriteError(w, httpmw.ErrInternal())
}

// canonicalIDs applies the id rule (httpmw.PathID) to each path parameter of pattern once the
// contract's checks have passed: an id in another spelling, upper-case, percent-encoded or any
// other form the generated binding would read, reaches the handler as core.NoID, so it is
// answered as any id the workspace does not hold.
func canonicalIDs(pattern string, next http.Handler) http.Handler {
	var names []string
	for seg := range strings.SplitSeq(pattern, "/") {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			names = append(names, strings.TrimSuffix(name, "}"))
		}
	}
	if len(names) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, name := range names {
			id := httpmw.PathID(r, name)
			if id != core.NoID.String() && !core.IsCanonicalID(id) {
				// The generated binding reads the braced, URN and 32-digit forms too (uuid.Parse):
				// by the rule they name nothing either; other text it refuses with 400.
				if _, err := uuid.Parse(id); err == nil {
					id = core.NoID.String()
				}
			}
			if id != r.PathValue(name) {
				r.SetPathValue(name, id)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// restAnswerFailed answers a REST handler's error, logging any that is not the service's own.
func (a *API) restAnswerFailed(w http.ResponseWriter, r *http.Request, err error) {
	if _, ok := err.(*core.Error); !ok {
		a.log.Error("REST handler failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	httpmw.WriteError(w, err)
}

// validate checks parameters and bodies against openapi.json before the handler sees them; the
// route is method and path, the pattern it was registered with.
func (a *API) validate(check *openapicheck.Validator, method, path string, next http.Handler) http.Handler {
	key := check.RouteKey(method, path)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := httpmw.BufferJSONBody(r, httpmw.MaxAPIBody); err != nil {
			httpmw.WriteError(w, err)
			return
		}
		if err := check.CheckRoute(r, key, path); err != nil {
			httpmw.WriteError(w, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func isSafeMethod(method string) bool {
	return method == http.MethodGet || method == http.MethodHead
}

// authenticate lets a request in through the core's REST door (a bearer key, or for reads only
// the sessionid cookie, under the per-key limits), writing the principal into the request's
// call, and answers a refusal in REST's shape.
func (a *API) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		door := core.RESTWrite
		if isSafeMethod(r.Method) {
			door = core.RESTRead
		}
		p, err := a.enter(r, door)
		if err != nil {
			httpmw.WriteError(w, err)
			return
		}
		next.ServeHTTP(w, httpmw.Admit(r, p))
	})
}

// requireJSONWrites refuses a write whose body is not declared as JSON.
func (a *API) requireJSONWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && !httpmw.IsJSON(r.Header.Get("Content-Type")) {
			httpmw.WriteError(w, core.ErrValidation("Content-Type must be application/json."))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// restAPI implements the generated strict server over the domain core.
type restAPI struct {
	*API
}

var _ restserver.StrictServerInterface = (*restAPI)(nil)

func (a *restAPI) GetMe(ctx context.Context, _ restserver.GetMeRequestObject) (restserver.GetMeResponseObject, error) {
	p := httpmw.Principal(ctx)
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
