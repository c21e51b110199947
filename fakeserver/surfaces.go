package fakeserver

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/podqa/podqa-go/fakeserver/internal/control"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
	"github.com/podqa/podqa-go/fakeserver/internal/graphiql"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/journal"
	"github.com/podqa/podqa-go/fakeserver/internal/rest"
)

// The route tables are built once per process and shared by every fake in it: each table's
// http.ServeMux, its patterns and the methods of each path are immutable once built, so a fake
// registers no route when it starts. A row of a shared table serves a request with the handler
// the request's own fake made for that row; a fake makes a table's handlers (its rows, as
// routeRows, controlRows, uiRows and restRows bind them) on its first request to that table, so
// that it pays only for the surfaces it is asked for. The fake a request is for travels in the
// request's context (serverOf): its http.Server's base context carries it, and the fake's own
// outermost handler puts it there for a caller serving Handler itself.

// serverKey is the context key of the fake a request is served by.
type serverKey struct{}

// serverOf is the fake r is served by, or nil for a request that did not pass a fake's handler.
func serverOf(r *http.Request) *Server {
	s, _ := r.Context().Value(serverKey{}).(*Server)
	return s
}

// baseContext is the context of every request the fake's own listener serves (the http.Server's
// BaseContext): it names the fake, so that its requests need no context of their own for it.
func (s *Server) baseContext(net.Listener) context.Context {
	return context.WithValue(context.Background(), serverKey{}, s)
}

// own makes next serve its requests as s's: a request that does not name s yet (one from a caller
// serving Handler on a listener of its own) gets a context that does.
func (s *Server) own(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if serverOf(r) != s {
			r = r.WithContext(context.WithValue(r.Context(), serverKey{}, s))
		}
		next.ServeHTTP(w, r)
	})
}

// tableID names one of the shared route tables: where a fake keeps its rows of the table.
type tableID int

const (
	topTable     tableID = iota // routeRows: every path the fake serves
	controlTable                // allControlRows, under /_fake
	uiTable                     // dashboardRows (uiRows), under /_fake/ui
	restTable                   // restRows, the generated REST routes under /api/rest/v1
	tableCount
)

// allControlRows are the control table's rows: controlRows, then publicControlRows, whose other
// methods the control API answers with 405.
func (s *Server) allControlRows() []route { return append(s.controlRows(), s.publicControlRows()...) }

// patternsOf is the patterns of the rows rowsOf makes. Making rows only binds handlers to a
// server, so the rows of a server that never serves give the patterns every fake's rows have.
func patternsOf(rowsOf func(*Server) []route) []string {
	var unserved Server
	rows := rowsOf(&unserved)
	patterns := make([]string, len(rows))
	for i, r := range rows {
		patterns[i] = r.pattern
	}
	return patterns
}

// builtRoutes holds one fake's rows of each shared table, made on the fake's first request to
// the table and kept until it closes.
type builtRoutes struct {
	mu   [tableCount]sync.Mutex
	rows [tableCount]atomic.Pointer[[]route]
}

// rows is s's rows of table t, made by rowsOf on first use. The fast path is one atomic load.
func (s *Server) rows(t tableID, rowsOf func(*Server) []route) []route {
	if rows := s.built.rows[t].Load(); rows != nil {
		return *rows
	}
	s.built.mu[t].Lock()
	defer s.built.mu[t].Unlock()
	if rows := s.built.rows[t].Load(); rows != nil {
		return *rows
	}
	rows := rowsOf(s)
	s.built.rows[t].Store(&rows)
	return rows
}

// sharedRow is a row of a table as its shared table registers it: it serves each request with
// the handler of that row of the request's fake, whose rows of the table rowsOf makes.
type sharedRow struct {
	table  tableID
	rowsOf func(*Server) []route
	row    int
}

func (sr sharedRow) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s := serverOf(r)
	if s == nil {
		// Only a fake's own handler reaches a shared table; nothing else can name the state
		// a row would serve.
		writeError(w, httpmw.ErrInternal())
		return
	}
	s.rows(sr.table, sr.rowsOf)[sr.row].handler.ServeHTTP(w, r)
}

// sharedRows is table t's rows, which rowsOf makes, as its shared table registers them.
func sharedRows(t tableID, rowsOf func(*Server) []route) []route {
	patterns := patternsOf(rowsOf)
	rows := make([]route, len(patterns))
	for i, p := range patterns {
		rows[i] = route{pattern: p, handler: sharedRow{table: t, rowsOf: rowsOf, row: i}}
	}
	return rows
}

// onFirstUse serves with the handler table returns, so that a shared table is built on the
// process's first request to it rather than by the first fake that starts.
type onFirstUse func() http.Handler

func (table onFirstUse) ServeHTTP(w http.ResponseWriter, r *http.Request) { table().ServeHTTP(w, r) }

// sharedTop is the fake's whole route table (routeRows), one ServeMux for the process.
var sharedTop = sync.OnceValue(func() http.Handler {
	mux := http.NewServeMux()
	for _, r := range sharedRows(topTable, (*Server).routeRows) {
		mux.Handle(r.pattern, r.handler)
	}
	return mux
})

// sharedControl serves the control API from controlRows, after the admin guard of the request's
// fake (routeRows): 404 for an unknown path and 405 with Allow for a known path and another
// method, then the contract's checks.
var sharedControl = sync.OnceValue(func() http.Handler {
	table := newSharedTable(controlTable, (*Server).allControlRows)
	return unrouted(table, "Control call", validateControl(table.mux))
})

// newSharedTable registers the shared rows of t in a routeTable of their own.
func newSharedTable(t tableID, rowsOf func(*Server) []route) *routeTable {
	table := &routeTable{mux: http.NewServeMux(), methods: map[string][]string{}}
	for _, r := range sharedRows(t, rowsOf) {
		table.HandleFunc(r.pattern, r.handler.ServeHTTP)
	}
	return table
}

// lazy is a handler made by build on its first request, for the parts of a fake that only some
// tests use (the GraphQL executor, the hosted feeds' routes).
func lazy(build func() http.Handler) http.Handler {
	h := sync.OnceValue(build)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h().ServeHTTP(w, r) })
}

// plainHTTP1 is the protocols of the fake's listener and of its own client: HTTP/1 without TLS,
// all the fake serves, so that neither sets up an HTTP/2 implementation it would never use.
func plainHTTP1() *http.Protocols {
	p := new(http.Protocols)
	p.SetHTTP1(true)
	return p
}

// The surfaces' shared tables (surfaces.go) and the rows each fake binds on them.

// controlContract is control.openapi.json loaded once: immutable after loading and shared by
// every fake in the process.
var controlContract = sync.OnceValues(func() (*openapi3.T, error) { return control.LoadContract(controlOpenAPI) })

// validateControl checks each control request against control.openapi.json before mux serves
// it (control.Validate), logging a contract that could not load in the request's fake's log.
func validateControl(mux *http.ServeMux) http.Handler {
	doc, err := controlContract()
	return control.Validate(doc, err, mux, func(r *http.Request, err error) {
		if s := serverOf(r); s != nil {
			s.log.Error("control API contract", "err", err)
		}
	})
}

// sharedREST serves the REST API under rest.Base (routes.go has the order of its front): 404,
// then 405 with Allow, from the routes generated from openapi.json, in one ServeMux lookup; a
// routed request goes on through its fake's row of restRows.
var sharedREST = sync.OnceValue(func() http.Handler {
	shared := sharedRows(restTable, (*Server).restRows)
	rows := make([]rest.Route, len(shared))
	for i, r := range shared {
		rows[i] = rest.Route{Pattern: r.pattern, Handler: r.handler}
	}
	return rest.Table(rows)
})

// restRows are the generated REST routes as s's REST surface serves them (rest.API.Rows).
func (s *Server) restRows() []route {
	served := s.rest.Rows()
	rows := make([]route, len(served))
	for i, r := range served {
		rows[i] = route{pattern: r.Pattern, handler: r.Handler}
	}
	return rows
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
	return dashboard.Headers(origin.Handler(unrouted(table, "Dashboard page", table)))
})

// dashboardRows are uiRows over s's dashboard, made on its first dashboard request: its sessions
// are its own, its pages the process's (dashboard.Shared).
func (s *Server) dashboardRows() []route {
	pages, err := dashboard.Shared()
	front := dashboard.NewUI(pages, dashboard.Deps{
		Admin: s.admin,
		// Read at each request: the package's tests set the seam on a started fake.
		Admitted: func(r *http.Request) {
			if s.admitted != nil {
				s.admitted(r)
			}
		},
		Core: s.core, Clock: s.clock, Host: s.host, URL: s.URL, LastEventSeq: s.events.lastSeq,
		Advance: func(d time.Duration) (time.Time, error) {
			now, err := s.Advance(d)
			return now, answerOf(err)
		},
		// The journal and the faults, read through the dashboard's twins of their types.
		Requests: func(f dashboard.RequestFilter) []dashboard.JournalEntry {
			entries := s.journal.Requests(journal.Filter(f))
			out := make([]dashboard.JournalEntry, len(entries))
			for i, e := range entries {
				out[i] = dashboard.JournalEntry(e)
			}
			return out
		},
		JournalSize: s.opts.journalSize, MaxRequests: maxJournalLimit,
		Faults: func() []dashboard.ArmedFault {
			armed := s.faults.List()
			out := make([]dashboard.ArmedFault, len(armed))
			for i, a := range armed {
				out[i] = dashboard.ArmedFault{ID: a.ID, Fault: dashboard.Fault(a.Fault), Matches: a.Matches, Fired: a.Fired}
			}
			return out
		},
		FaultFiredKind: EventFaultFired,
		Events: func(f dashboard.EventFilter) []dashboard.Event {
			events := s.Events(EventFilter(f))
			out := make([]dashboard.Event, len(events))
			for i, e := range events {
				out[i] = dashboard.Event(e)
			}
			return out
		},
		EventKinds: eventKinds,
		Workspaces: func() []dashboard.Workspace {
			wss := s.Workspaces()
			out := make([]dashboard.Workspace, len(wss))
			for i, ws := range wss {
				out[i] = dashboard.Workspace(ws)
			}
			return out
		},
		Endpoints: func(ws uuid.UUID) ([]dashboard.Endpoint, error) {
			eps, err := s.WebhookEndpoints(ws.String())
			out := make([]dashboard.Endpoint, len(eps))
			for i, ep := range eps {
				out[i] = dashboard.Endpoint(ep)
			}
			return out, answerOf(err)
		},
		Endpoint: func(id uuid.UUID) (dashboard.Endpoint, error) {
			ep, err := s.core.EndpointByID(id)
			return dashboard.Endpoint(endpointView(ep, "")), answerOf(err)
		},
		Deliveries: func(endpointID string) ([]dashboard.Delivery, error) {
			ds, err := s.WebhookDeliveries(endpointID)
			out := make([]dashboard.Delivery, len(ds))
			for i, d := range ds {
				out[i] = deliveryTwin(d)
			}
			return out, answerOf(err)
		},
		Resend: func(ctx context.Context, deliveryID string) (dashboard.Delivery, error) {
			d, err := s.ResendDelivery(ctx, deliveryID)
			return deliveryTwin(d), answerOf(err)
		},
		Account: func(reportID string) (dashboard.Account, error) {
			acc, err := s.ReportAccount(reportID)
			return accountTwin(acc), answerOf(err)
		},
		DeliveryFailedKind: EventDeliveryFailed, DeliverySucceededKind: EventDeliverySucceeded,
		Emails: func(ws uuid.UUID) ([]dashboard.Email, error) {
			es, err := s.Emails(ws.String())
			out := make([]dashboard.Email, len(es))
			for i, e := range es {
				out[i] = dashboard.Email(e)
			}
			return out, answerOf(err)
		},
	})
	rows := s.uiRows(front)
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
	sharedExplorerAssets = sync.OnceValue(rest.ExplorerAssets)
	sharedGraphiQLAssets = sync.OnceValue(graphiql.Assets)
)

// feedRoutes serves the hosted feeds, made on the first request to them.
func (s *Server) feedRoutes() http.Handler { return s.host.Handler() }

// deliveryTwin is a delivery as the dashboard's endpoint page reads it: every field of
// WebhookDelivery, its headers as dashboard.Header.
func deliveryTwin(d WebhookDelivery) dashboard.Delivery {
	out := dashboard.Delivery{
		ID: d.ID, EndpointID: d.EndpointID, EventType: d.EventType, WebhookID: d.WebhookID,
		Attempts: d.Attempts, FailedAttempts: d.FailedAttempts, Status: d.Status, ResponseCode: d.ResponseCode,
		LastError: d.LastError, Test: d.Test, CreatedAt: d.CreatedAt, LastAttemptAt: d.LastAttemptAt,
		NextAttemptAt: d.NextAttemptAt, Body: d.Body, ReportID: d.ReportID, Resends: d.Resends,
		ResponseBody: d.ResponseBody, ResponseBodyTruncated: d.ResponseBodyTruncated,
	}
	for _, h := range d.RequestHeaders {
		out.RequestHeaders = append(out.RequestHeaders, dashboard.Header(h))
	}
	return out
}

// accountTwin is a report's account as the dashboard's report page reads it: every field of
// ReportAccount but its checks, which the page reads from the core.
func accountTwin(acc ReportAccount) dashboard.Account {
	r := acc.Report
	out := dashboard.Account{
		Report: dashboard.Summary{ID: r.ID, WorkspaceID: r.WorkspaceID, Source: r.Source, Status: r.Status, SeriesID: r.SeriesID,
			CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Name: r.Name, Verdict: core.Verdict(r.Verdict)},
		Failure:  acc.Failure,
		Loudness: dashboard.LoudnessSeries(acc.Loudness),
		Measured: (*dashboard.Measurement)(acc.Measured),
	}
	for _, st := range acc.Timeline {
		out.Timeline = append(out.Timeline, dashboard.StatusChange(st))
	}
	for _, d := range acc.Deliveries {
		out.Deliveries = append(out.Deliveries, deliveryTwin(d))
	}
	for _, e := range acc.Emails {
		out.Emails = append(out.Emails, dashboard.Email(e))
	}
	return out
}
