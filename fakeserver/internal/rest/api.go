// Package rest is the fake's REST surface: the REST API under Base (routes generated from
// openapi.json behind their front), the webhook subscription calls at /webhook/subscribe, the
// PUT of a presigned upload URL, the cover pictures of reports, and the REST API's public
// documents. It stands on the core and the packages every surface shares (httpmw, openapicheck,
// views); it imports no other surface and not the facade, which mounts its handlers in its one
// route table (fakeserver/DESIGN.md).
package rest

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/views"
)

// Deps is what the REST surface needs of the fake around it.
type Deps struct {
	Core  *core.Core
	Clock *clock.Clock
	Log   *slog.Logger
	Views *views.Views
	// URL is the fake's base URL, under which upload URLs are minted.
	URL string
	// UploadKey signs upload URLs.
	UploadKey []byte
	// Enter lets a request in through one of the core's doors (and raises a refusal's event).
	Enter func(*http.Request, core.Door) (core.Principal, error)
	// CheckWebhookURL refuses a webhook URL the fake's policy does not let it deliver to.
	CheckWebhookURL func(ctx context.Context, url string) error
	// Subscribed is told of each endpoint a subscription call created.
	Subscribed func(core.Principal, core.Endpoint)
}

// API is the REST surface over one core. Its handlers are mounted by the facade's route table.
type API struct {
	core            *core.Core
	clock           *clock.Clock
	log             *slog.Logger
	views           *views.Views
	url             string
	uploadKey       []byte
	enter           func(*http.Request, core.Door) (core.Principal, error)
	checkWebhookURL func(ctx context.Context, url string) error
	subscribed      func(core.Principal, core.Endpoint)
	// cache keeps the JSON of finished reports.
	cache renderCache
}

// New is the REST surface of d.
func New(d Deps) *API {
	return &API{
		core: d.Core, clock: d.Clock, log: d.Log, views: d.Views, url: d.URL, uploadKey: d.UploadKey,
		enter: d.Enter, checkWebhookURL: d.CheckWebhookURL, subscribed: d.Subscribed,
	}
}

// ForgetRenderings empties the cache of finished reports' renderings (a reset does it: the
// stamps would tell a stale rendering anyway, and the memory goes back).
func (a *API) ForgetRenderings() {
	a.cache.mu.Lock()
	a.cache.entries = nil
	a.cache.mu.Unlock()
}

// CacheProbe is the test probe of the rendering cache: Off makes every request render anew,
// Count counts the answers the cache gives in Hits. Both are off outside tests.
func (a *API) CacheProbe() *CacheProbe { return &a.cache.probe }
