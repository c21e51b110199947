// Package control is the fake's control API under /_fake: the contract's load, document and
// check of every control call against control.openapi.json, the health check, and the thin HTTP
// adapters of the operations implemented below the facade, which the Go API's methods adapt
// too: workspaces, keys and sessions, the clock, credits and top-ups, webhook endpoints,
// deliveries, resends and emails, seeded reports and automated reporting, a report's account,
// the listings, the standards (internal/core), scripted transcripts (core.Scripts), hosted
// feeds (internal/hosted), the run report (runreport.go), and the reset, which only the facade
// can make (Deps.Reset). Each adapter decodes the control API's JSON into the operation's
// wire-neutral types and writes the answer in the control API's shape, kept here. Routes gives
// their rows. The facade mounts it behind the admin guard (fakeserver/routes.go) with the
// control calls of the packages that own their operation (the journal's GET and DELETE
// /_fake/requests, the faults' /_fake/faults) and, for now, the adapters of the operations
// still written in the facade (fakeserver/DESIGN.md, "Where the code stands").
package control

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/hosted"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/openapicheck"
)

// Deps is what the control API works over.
type Deps struct {
	// Core holds the operations the control calls adapt.
	Core *core.Core
	// Host is the fake's podcast host (its feeds, and their listing GET /_fake/feeds adapts),
	// and Mint gives what it hosts its defaults.
	Host *hosted.Host
	Mint hosted.Minter
	// Scripts is the fake's transcripts scripted by audio content.
	Scripts *core.Scripts
	// Reset returns the fake to its start state and gives the clock's instant after it: the
	// facade's Server.Reset, which rebuilds every part of the fake the facade holds together.
	Reset func() (time.Time, error)
	// Log takes the contract's load failure.
	Log *slog.Logger
	// Now is the fake's clock; Advance moves it (Server.Advance: what falls due runs, the event
	// is raised), its refusals as httpmw answers them.
	Now     func() time.Time
	Advance func(time.Duration) (time.Time, error)
	// WorkspaceCreated is told of each workspace POST /_fake/workspaces made (the facade raises
	// its event).
	WorkspaceCreated func(core.Workspace)
	// CheckWebhookURL refuses a webhook URL the fake's policy does not let it deliver to (and
	// raises the refusal's event).
	CheckWebhookURL func(ctx context.Context, url string) error
	// EventPage tells each of a page of the facade's event record (Server.EventPage), oldest
	// first, and returns the next page's cursor, its refusals as httpmw answers them. Each event
	// is told rather than returned, so that the page is not copied to be converted.
	EventPage func(f EventFilter, each func(Event)) (next string, err error)
}

// API is the control API's own part: the contract check, and the control calls of the
// operations the core implements.
type API struct {
	core             *core.Core
	host             *hosted.Host
	mint             hosted.Minter
	scripts          *core.Scripts
	reset            func() (time.Time, error)
	log              *slog.Logger
	now              func() time.Time
	advance          func(time.Duration) (time.Time, error)
	workspaceCreated func(core.Workspace)
	checkWebhookURL  func(ctx context.Context, url string) error
	eventPage        func(EventFilter, func(Event)) (string, error)
}

// New is the control API over d.
func New(d Deps) *API {
	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &API{core: d.Core, host: d.Host, mint: d.Mint, scripts: d.Scripts, reset: d.Reset, log: log,
		now: d.Now, advance: d.Advance, workspaceCreated: d.WorkspaceCreated, checkWebhookURL: d.CheckWebhookURL,
		eventPage: d.EventPage}
}

// uuidPattern is what a uuid query parameter of the control API must match.
const uuidPattern = `^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`

// PrepareContract makes a freshly loaded control.openapi.json the fake's private copy: no
// servers (routes are matched by the fake's own mux), date-time queries read leniently, and
// `format: uuid` of its query parameters checked as a pattern: kin-openapi checks no uuid
// format unless one is registered process-wide, which would also change REST's answers (a
// malformed REST id is a 404 there).
func PrepareContract(doc *openapi3.T) {
	doc.Servers = nil
	openapicheck.RelaxDateTimeQueries(doc)
	for _, ref := range doc.Components.Parameters {
		p := ref.Value
		if p == nil || p.In != openapi3.ParameterInQuery || p.Schema == nil || p.Schema.Value == nil || p.Schema.Value.Format != "uuid" {
			continue
		}
		checked := *p.Schema.Value
		checked.Pattern = uuidPattern
		p.Schema = openapi3.NewSchemaRef("", &checked)
	}
}

// Validate checks each control request against the contract doc (loaded, or err when it could
// not be) before mux serves it, as REST requests are checked against openapi.json: parameters
// and bodies are refused with 400 validation_error naming the field. It holds no fake's state,
// so one is built per process over the shared control table; failed, when not nil, hears of a
// request refused because the contract could not be loaded.
func Validate(doc *openapi3.T, err error, mux *http.ServeMux, failed func(*http.Request, error)) http.Handler {
	if err != nil {
		// The embedded document is part of the build; a test loads it, so this cannot happen
		// in a released fake. Refuse rather than serve unchecked.
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if failed != nil {
				failed(r, err)
			}
			httpmw.WriteError(w, err)
		})
	}
	v := openapicheck.For(doc, "")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pattern := mux.Handler(r)
		if _, path, ok := strings.Cut(pattern, " "); ok {
			pattern = path
		}
		// The body is read within its limit before the contract check reads it, so that an
		// oversized body is refused as such (and never read whole), as on REST.
		if err := httpmw.BufferJSONBody(r, httpmw.MaxControlBody); err != nil {
			httpmw.WriteError(w, err)
			return
		}
		if err := v.Check(r, pattern); err != nil {
			httpmw.WriteError(w, err)
			return
		}
		mux.ServeHTTP(w, r)
	})
}
