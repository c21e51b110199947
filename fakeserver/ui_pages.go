package fakeserver

import (
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
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

// handleAdvance moves a manual clock by the form's Go duration ("90s", "1h30m").
func (ui *dashboardUI) handleAdvance(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, dashboard.MaxForm)
	by := strings.TrimSpace(r.PostFormValue("by"))
	d, err := time.ParseDuration(by)
	if err != nil || d <= 0 || d > maxAdvance {
		ui.renderError(w, r, core.ErrValidation("Advance by a duration such as 90s or 1h30m, more than 0 and at most %s (got %q).", maxAdvance, by))
		return
	}
	if _, err := ui.s.Advance(d); err != nil {
		ui.renderError(w, r, err)
		return
	}
	http.Redirect(w, r, dashboard.LocalPath(r.PostFormValue("back")), http.StatusSeeOther)
}

// webhooksView is a workspace's webhook endpoints with their deliveries.
type webhooksView struct {
	WorkspaceID string
	Endpoints   []uiEndpoint
}

type uiEndpoint struct {
	WebhookEndpoint
	Deliveries int
	Failing    int
}

// endpointRow is an endpoint as the list of a workspace's endpoints shows it, with the count
// of its deliveries (ds) and of those failing.
func endpointRow(ep WebhookEndpoint, ds []WebhookDelivery) uiEndpoint {
	ue := uiEndpoint{WebhookEndpoint: ep, Deliveries: len(ds)}
	ue.URL, _ = dashboard.CutRunes(ep.URL, maxUIURL) // whole on the endpoint's own page
	for _, d := range ds {
		if d.Status == "retrying" || d.Status == "abandoned" {
			ue.Failing++
		}
	}
	return ue
}

// uiWorkspaceID parses the {id} of a workspace page; an unknown one is 404.
func (s *Server) uiWorkspaceID(r *http.Request) (uuid.UUID, error) {
	id, err := parseID(httpmw.PathID(r, "id"), "Workspace")
	if err != nil {
		return uuid.Nil, err
	}
	if _, err := s.core.Workspace(id); err != nil {
		return uuid.Nil, err
	}
	return id, nil
}

func (ui *dashboardUI) handleWebhooks(w http.ResponseWriter, r *http.Request) {
	ws, err := ui.s.uiWorkspaceID(r)
	if err != nil {
		ui.renderError(w, r, err)
		return
	}
	eps, err := ui.s.WebhookEndpoints(ws.String())
	if err != nil {
		ui.renderError(w, r, err)
		return
	}
	v := webhooksView{WorkspaceID: ws.String()}
	for _, ep := range eps {
		ds, _ := ui.s.WebhookDeliveries(ep.ID)
		v.Endpoints = append(v.Endpoints, endpointRow(ep, ds))
	}
	ui.render(w, r, http.StatusOK, "webhooks", dashboard.Page{Title: "Webhook endpoints", Data: v})
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

// emailsView is a workspace's simulated emails, newest first.
type emailsView struct {
	WorkspaceID string
	Emails      []uiEmail
	// Capped says older emails were sent than the page shows; Total counts them all.
	Capped bool
	Total  int
}

func (ui *dashboardUI) handleEmails(w http.ResponseWriter, r *http.Request) {
	ws, err := ui.s.uiWorkspaceID(r)
	if err != nil {
		ui.renderError(w, r, err)
		return
	}
	es, err := ui.s.Emails(ws.String())
	if err != nil {
		ui.renderError(w, r, err)
		return
	}
	v := emailsView{WorkspaceID: ws.String(), Total: len(es)}
	for _, e := range es { // newest first
		if len(v.Emails) == dashboard.MaxList {
			v.Capped = true
			break
		}
		v.Emails = append(v.Emails, emailRow(e))
	}
	ui.render(w, r, http.StatusOK, "emails", dashboard.Page{Title: "Emails", Data: v})
}

// overviewOf is the overview of every workspace, the oldest dashboard.MaxList listed.
func overviewOf(all []Workspace, feeds, faults int) overviewView {
	v := overviewView{Total: len(all), Feeds: feeds, Faults: faults}
	for _, ws := range all[:min(len(all), dashboard.MaxList)] {
		v.Workspaces = append(v.Workspaces, workspaceRow(ws))
	}
	return v
}

// overviewView is the overview: the fake's clock and what it holds.
type overviewView struct {
	// Workspaces are the oldest dashboard.MaxList; Total counts them all (GET /_fake/workspaces
	// lists them by cursor).
	Workspaces    []Workspace
	Total         int
	Feeds, Faults int
}

func (ui *dashboardUI) handleOverview(w http.ResponseWriter, r *http.Request) {
	v := overviewOf(ui.s.Workspaces(), len(ui.s.host.Feeds()), len(ui.s.Faults()))
	ui.render(w, r, http.StatusOK, "overview", dashboard.Page{Title: "Overview", Data: v})
}
