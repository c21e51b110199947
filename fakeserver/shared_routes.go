package fakeserver

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
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
