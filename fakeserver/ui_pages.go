package fakeserver

import (
	"net/http"

	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
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
