package fakeserver

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/openapicheck"
	"github.com/podqa/podqa-go/fakeserver/internal/restserver"
	"github.com/podqa/podqa-go/internal/apitime"
)

// restBase is where the REST API lives; the webhook subscription calls live at the root.
const restBase = "/api/rest/v1"

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
func (s *Server) restAnswerFailed(w http.ResponseWriter, r *http.Request, err error) {
	if _, ok := err.(*core.Error); !ok {
		s.log.Error("REST handler failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeError(w, err)
}

// validate checks parameters and bodies against openapi.json before the handler sees them; the
// route is method and path, the pattern it was registered with.
func (s *Server) validate(check *openapicheck.Validator, method, path string, next http.Handler) http.Handler {
	key := check.RouteKey(method, path)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := bufferJSONBody(r, maxAPIBody); err != nil {
			writeError(w, err)
			return
		}
		if err := check.CheckRoute(r, key, path); err != nil {
			writeError(w, err)
			return
		}
		next.ServeHTTP(w, r)
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

func isSafeMethod(method string) bool {
	return method == http.MethodGet || method == http.MethodHead
}

// authenticate lets a request in through the core's REST door (a bearer key, or for reads only
// the sessionid cookie, under the per-key limits), writing the principal into the request's
// call, and answers a refusal in REST's shape.
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
		next.ServeHTTP(w, httpmw.Admit(r, p))
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
