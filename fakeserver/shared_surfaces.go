package fakeserver

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/control"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
	"github.com/podqa/podqa-go/fakeserver/internal/graphiql"
	"github.com/podqa/podqa-go/fakeserver/internal/journal"
	"github.com/podqa/podqa-go/fakeserver/internal/rest"
)

// The surfaces' shared tables (shared_routes.go) and the rows each fake binds on them.

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
