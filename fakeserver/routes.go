package fakeserver

import (
	_ "embed"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/control"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
	"github.com/podqa/podqa-go/fakeserver/internal/graphiql"
	"github.com/podqa/podqa-go/fakeserver/internal/graphqlapi"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/journal"
	"github.com/podqa/podqa-go/fakeserver/internal/rest"
)

// This file is the fake's route table: every route it serves, and the middleware each passes
// through, in the order a request meets it. Read it first; the handlers live beside their API.
//
// Every request, outermost first:
//
//	securityHeaders  nosniff on every answer (httpmw.SecurityHeaders)
//	recoverPanics    a panic becomes 500 internal_error (routes.go)
//	logRequests      one log line per request; opens the request's call, where a door
//	                 writes the principal it let in (internal/httpmw)
//	the table below  by method and path (http.ServeMux patterns), one lookup; each table is
//	                 built once per process and shared by every fake (surfaces.go)
//
// The service's APIs (REST, webhook subscription, GraphQL, uploads) then pass through
//
//	journal.Record   the request journal of GET /_fake/requests (internal/journal)
//	injectFaults     armed faults (internal/faults)
//
// and each API's own front:
//
//	REST           404, then 405 with Allow, from the routes generated from openapi.json;
//	               credentials and limits (core.Enter, door RESTRead or RESTWrite); JSON
//	               Content-Type of writes; openapi.json's parameter and body checks; the
//	               generated handler (internal/rest), where
//	               GET /reports/{id} keeps the rendering of a finished report after its checks
//	subscription   405 with Allow; credentials and limits (core.Enter, door Subscription); the
//	               flat {error} shape (internal/rest)
//	GraphQL        GET/HEAD the explorer, POST the query, else 405; body cap; credentials and
//	               limits (core.Enter, door GraphQL); JSON Content-Type; the executor with its
//	               cost limits (internal/graphqlapi)
//	control        the admin guard (httpmw.Admin); 404 for an unknown path, 405 with Allow for a known path
//	               and another method; control.openapi.json's checks; the handler (internal/control; the journal's
//	               and the faults' own calls)
//
// Hosted feeds and their audio pass through injectFaults only, not the journal; covers, the
// documents and the explorers' assets through neither.

// route is one row of a route table: an http.ServeMux pattern and what serves it.
type route struct {
	pattern string
	handler http.Handler
}

// routeRows is the fake's route table, one row per pattern. It is shared by every fake in the
// process (surfaces.go): a fake binds its rows on its first request.
func (s *Server) routeRows() []route {
	api := func(h http.Handler) http.Handler { return s.journal.Record(s.clock, s.core, s.injectFaults(h)) }
	ui := onFirstUse(sharedUI)
	rows := []route{
		// Control API: the admin token's calls (controlRows), and publicControlRows.
		{"/_fake/", s.requireAdmin(onFirstUse(sharedControl))},

		// The dashboard (uiRows): pages on the admin token or its login's cookie.
		{dashboard.Path, ui},
		{dashboard.Path + "/", ui},

		// REST API: every path of openapi.json under /api/rest/v1, and its public documents,
		// which need no key and count against no limit.
		{rest.Base + "/", api(onFirstUse(sharedREST))},
		{"GET " + rest.Base + "/openapi.json", http.HandlerFunc(s.rest.ServeOpenAPI)},
		{"GET " + rest.Base + "/docs", http.HandlerFunc(s.rest.ServeExplorer)},
		{"GET " + rest.Base + "/docs/assets/", sharedExplorerAssets()},

		// Webhook subscription calls, at the root as on the service.
		{"/webhook/subscribe", api(http.HandlerFunc(s.rest.ServeSubscribe))},
		{"/webhook/subscribe/", api(http.HandlerFunc(s.rest.ServeUnsubscribe))},

		// GraphQL, its offline explorer's assets and its schema.
		{"/api/graphql", api(lazy(s.graphql.Handler))},
		{"GET " + graphiql.AssetsPrefix, sharedGraphiQLAssets()},
		{"GET /schema.graphql", http.HandlerFunc(graphqlapi.ServeSchema)},

		// Uploads: the PUT of a presigned upload URL.
		{"PUT /_uploads/{id}", api(http.HandlerFunc(s.rest.ServeUpload))},

		// Hosted feeds and their audio; cover images of reports.
		{"GET /_feeds/", s.injectFaults(httpmw.AssetHeaders(lazy(s.feedRoutes).ServeHTTP))},
		{"GET /_covers/{token}", httpmw.AssetHeaders(s.rest.ServeCover)},

		// The front door (internal/dashboard's landing.go): GET / for a newcomer, the favicon,
		// and the report link of events and REST answers, which leads to the dashboard's
		// report page.
		{"GET /{$}", dashboard.Landing(s.URL, rest.Base)},
		{"GET /favicon.ico", dashboard.Favicon()},
		{"GET /app/reports/{id}", http.HandlerFunc(dashboard.ServeAppReport)},

		// Anything else.
		{"/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			writeError(w, core.ErrNotFound("Resource"))
		})},
	}
	return append(rows, s.publicControlRows()...)
}

// publicControlRows are the control calls that need no token: the health check of container
// health checks and CI readiness loops, and the control API's contract. Another method on their
// paths reaches the control API, which answers 405.
func (s *Server) publicControlRows() []route {
	return []route{
		{"GET /_fake/healthz", http.HandlerFunc(control.ServeHealthz)},
		{"GET /_fake/openapi.json", control.ServeDocument(controlOpenAPI)},
	}
}

// controlOpenAPI is the control API's own contract, served at GET /_fake/openapi.json.
//
//go:embed control.openapi.json
var controlOpenAPI []byte

// ControlOpenAPI returns the control API's OpenAPI 3.0 document, as GET /_fake/openapi.json
// serves it, for generating a client in another language.
func ControlOpenAPI() []byte { return append([]byte(nil), controlOpenAPI...) }

// controlRows is the control API's route table under /_fake, behind the admin token.
func (s *Server) controlRows() []route {
	h := func(f http.HandlerFunc) http.Handler { return f }
	ctl, report := s.controlAPI(), s.runReportCalls()
	rows := []route{
		// Faults (internal/faults).
		{"POST /_fake/faults", h(s.faults.ServeCreateFault)},
		{"DELETE /_fake/faults", h(s.faults.ServeClearFaults)},
		{"GET /_fake/faults", h(s.faults.ServeListFaults)},
		{"DELETE /_fake/faults/{id}", h(s.faults.ServeRemoveFault)},
		// Hosted feeds.
		{"POST /_fake/feeds", h(ctl.ServeHostFeed)},
		{"POST /_fake/feeds/{id}/episodes", h(ctl.ServeAddHostedEpisode)},
		{"PATCH /_fake/feeds/{id}", h(ctl.ServeChangeFeed)},
		// Standards.
		{"POST /_fake/workspaces/{id}/standards", h(ctl.ServeCreateStandard)},
		{"GET /_fake/workspaces/{id}/standards", h(ctl.ServeListStandards)},
		{"PUT /_fake/workspaces/{id}/default-standard", h(ctl.ServeSetDefaultStandard)},
		{"PUT /_fake/series/{id}/standard", h(ctl.ServeSetSeriesStandard)},
		// Scripted transcripts, reset, the request journal.
		{"POST /_fake/transcripts", h(ctl.ServeScriptTranscript)},
		{"POST /_fake/reset", h(ctl.ServeReset)},
		// The report of the run (internal/control/runreport.go).
		{"GET /_fake/report", h(report.ServeGet)},
		{"POST /_fake/report", h(report.ServeWrite)},
		{"GET /_fake/requests", h(s.journal.ServeRequests)},
		{"DELETE /_fake/requests", h(s.journal.ServeClearRequests)},
	}
	// Workspaces, keys and sessions, the clock, credits, webhooks and emails, seeded reports,
	// a report's account, the listings: the calls internal/control serves.
	for _, r := range ctl.Routes() {
		rows = append(rows, route{r.Pattern, r.Handler})
	}
	return rows
}

// uiRows is the dashboard's route table under /_fake/ui (internal/dashboard's UI.Routes) over
// one fake's front.
func (s *Server) uiRows(front *dashboard.UI) []route {
	var rows []route
	for _, r := range front.Routes() {
		rows = append(rows, route{r.Pattern, r.Handler})
	}
	return rows
}

// routes is the fake's handler: the chain of routes.go's comment around the shared route table.
func (s *Server) routes() http.Handler {
	return httpmw.SecurityHeaders(s.recoverPanics(s.logRequests(s.own(onFirstUse(sharedTop)))))
}

// controlAPI is the control API's own part (internal/control).
func (s *Server) controlAPI() *control.API {
	return control.New(control.Deps{
		Core: s.core, Host: s.host, Mint: s.minter(), Scripts: &s.scripts, Reset: s.reset, Log: s.log, Now: s.Now,
		Advance: func(d time.Duration) (time.Time, error) {
			now, err := s.Advance(d)
			return now, answerOf(err)
		},
		WorkspaceCreated: s.workspaceCreated,
		CheckWebhookURL:  s.checkWebhookURL,
		EventPage: func(f control.EventFilter, each func(control.Event)) (string, error) {
			page, err := s.EventPage(EventPageFilter(f))
			for _, e := range page.Events {
				each(control.Event(e))
			}
			return page.Next, answerOf(err)
		},
	})
}

// unrouted answers a request no route of routes serves: 404 naming what was not found when no
// route has its path, 405 with Allow when one has it for other methods; the rest goes to next.
func unrouted(routes *routeTable, what string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, methods := routes.allowed(r)
		switch {
		case len(methods) == 0:
			writeError(w, core.ErrNotFound(what))
		case !slices.Contains(methods, r.Method):
			w.Header().Set("Allow", strings.Join(methods, ", "))
			writeError(w, httpmw.ErrMethodNotAllowed("Method "+r.Method+" is not allowed on "+r.URL.Path+"."))
		default:
			next.ServeHTTP(w, r)
		}
	})
}

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
