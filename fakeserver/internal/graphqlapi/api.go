// Package graphqlapi is the fake's GraphQL surface at /api/graphql: its front (the body cap,
// the door, the JSON content type, the validation front that bounds a document's work), the
// resolvers over the core, the schema as served (ServedSchema), the cost limits run before any
// resolver (CostLimits, Complexity), the cap on an answer's size (CapAnswer), and the schema's
// SDL. It stands on the core and the packages every surface shares (httpmw, views); it imports
// no other surface and not the facade, which mounts Handler in its one route table
// (fakeserver/DESIGN.md).
package graphqlapi

import (
	"log/slog"
	"net/http"

	"github.com/podqa/podqa-go/fakeserver/internal/contractfiles"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/views"
)

// Deps is what the GraphQL surface needs of the fake around it.
type Deps struct {
	Core  *core.Core
	Log   *slog.Logger
	Views *views.Views
	// Enter lets a request in through one of the core's doors (and raises a refusal's event).
	Enter func(*http.Request, core.Door) (core.Principal, error)
}

// API is the GraphQL surface over one core.
type API struct {
	core  *core.Core
	log   *slog.Logger
	views *views.Views
	enter func(*http.Request, core.Door) (core.Principal, error)
}

// New is the GraphQL surface of d.
func New(d Deps) *API {
	return &API{core: d.Core, log: d.Log, views: d.Views, enter: d.Enter}
}

// ServeSchema serves the GraphQL schema as SDL.
func ServeSchema(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write(contractfiles.SchemaGraphQL())
}
