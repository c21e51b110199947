package fakeserver

import (
	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
)

// dashboardUI is one fake's dashboard: its front (dashboard.UI: the sessions, the login, the
// layout every page shows) and the fake whose pages it shows.
type dashboardUI struct {
	s     *Server
	front *dashboard.UI
}
