package dashboard

import (
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// A workspace's webhook endpoints, each with the count of its deliveries and of those failing.

const (
	// maxURL bounds an endpoint's URL in the list of a workspace's endpoints (its own page
	// shows it whole).
	maxURL = 300
	// maxWebhooksPageBytes is the page's size whatever tenants send
	// (TestWebhooksPageBoundedWhateverTenantsSend).
	maxWebhooksPageBytes = 64 << 10
)

// Endpoint is a webhook endpoint of a workspace: fakeserver.WebhookEndpoint's fields, which the
// facade converts (a conversion that stops compiling if the two drift).
type Endpoint struct {
	ID        string
	Secret    string
	URL       string
	Events    []string
	SeriesID  string
	Enabled   bool
	Source    string
	CreatedAt time.Time
}

// webhooksView is a workspace's webhook endpoints with their deliveries.
type webhooksView struct {
	WorkspaceID string
	Endpoints   []endpointListed
}

// endpointListed is an endpoint as the list shows it.
type endpointListed struct {
	Endpoint
	Deliveries int
	Failing    int
}

// endpointRow is an endpoint as the list of a workspace's endpoints shows it, with the count
// of its deliveries (ds) and of those failing.
func endpointRow(ep Endpoint, ds []core.Delivery) endpointListed {
	ue := endpointListed{Endpoint: ep, Deliveries: len(ds)}
	ue.URL, _ = CutRunes(ep.URL, maxURL) // whole on the endpoint's own page
	for _, d := range ds {
		if d.Status == "retrying" || d.Status == "abandoned" {
			ue.Failing++
		}
	}
	return ue
}

// ServeWebhooks is a workspace's webhook endpoints.
func (ui *UI) ServeWebhooks(w http.ResponseWriter, r *http.Request) {
	ws, err := ui.WorkspaceID(r)
	if err != nil {
		ui.RenderError(w, r, err)
		return
	}
	eps, err := ui.deps.Endpoints(ws)
	if err != nil {
		ui.RenderError(w, r, err)
		return
	}
	v := webhooksView{WorkspaceID: ws.String()}
	for _, ep := range eps {
		var ds []core.Delivery
		if id, ok := core.CanonicalID(ep.ID); ok {
			ds, _ = ui.deps.Core.Deliveries(&id)
		}
		v.Endpoints = append(v.Endpoints, endpointRow(ep, ds))
	}
	ui.Render(w, r, http.StatusOK, "webhooks", Page{Title: "Webhook endpoints", Data: v})
}
