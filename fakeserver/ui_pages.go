package fakeserver

import (
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// dashboardUI is one fake's dashboard: its front (dashboard.UI: the sessions, the login, the
// layout every page shows) and the fake whose pages it shows.
type dashboardUI struct {
	s     *Server
	front *dashboard.UI
}

// render writes a page through the front.
func (ui *dashboardUI) render(w http.ResponseWriter, r *http.Request, status int, name string, page dashboard.Page) {
	ui.front.Render(w, r, status, name, page)
}

// renderError shows an error of the Go API (unknown id, bad filter) as a page in the control
// API's status, or in its JSON shape for a client that did not ask for HTML.
func (ui *dashboardUI) renderError(w http.ResponseWriter, r *http.Request, err error) {
	ui.front.RenderError(w, r, answerOf(err))
}

// uiEndpointPage is one endpoint's deliveries, newest first, each with its attempts.
type uiEndpointPage struct {
	Endpoint   WebhookEndpoint
	Deliveries []uiDelivery
}

// uiDelivery is a delivery, what it is about, its body for reading, and the timeline of its
// attempts.
type uiDelivery struct {
	WebhookDelivery
	Subject uiSubject
	// Pretty is the body indented, cut at maxUIDeliveryBody; BodyCut counts the bytes cut.
	Pretty   string
	BodyCut  int
	Timeline []uiAttempt
}

// uiAttempt is one attempt of a delivery, or the next one queued.
type uiAttempt struct {
	N       int
	At      time.Time
	Resend  bool
	Status  string
	Code    string
	Latency string
	Error   string
	Next    time.Time
	Queued  bool
}

func (ui *dashboardUI) handleEndpoint(w http.ResponseWriter, r *http.Request) {
	id, err := parseID(httpmw.PathID(r, "id"), "Webhook endpoint")
	if err != nil {
		ui.renderError(w, r, err)
		return
	}
	ep, err := ui.s.core.EndpointByID(id)
	if err != nil {
		ui.renderError(w, r, err)
		return
	}
	ds, err := ui.s.WebhookDeliveries(id.String())
	if err != nil {
		ui.renderError(w, r, err)
		return
	}
	v := uiEndpointPage{Endpoint: endpointView(ep, "")}
	log := ui.s.attemptsOnEndpoint(id.String())
	for _, d := range ds { // newest first, at most the endpoint's log of 20
		ud := uiDelivery{WebhookDelivery: d, Subject: ui.s.eventSubject(d.Body), Timeline: ui.s.attemptsOf(d, log)}
		ud.Pretty, ud.BodyCut = prettyBody(d.Body)
		v.Deliveries = append(v.Deliveries, ud)
	}
	notice, ok := resentNotice(v.Deliveries, r.URL.Query().Get("resent"))
	ui.render(w, r, http.StatusOK, "endpoint", dashboard.Page{Title: "Webhook endpoint", Notice: notice, NoticeOK: ok, Data: v})
}
