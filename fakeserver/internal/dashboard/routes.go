package dashboard

import "net/http"

// Route is one row of the dashboard's route table: a ServeMux pattern and its handler.
type Route struct {
	Pattern string
	Handler http.Handler
}

// Routes is the dashboard's route table under /_fake/ui, for the facade's uiRows
// (fakeserver/routes.go), which mounts it: HTML pages for a browser (or any client with the
// admin token as a bearer header), the state its script polls, and the forms it posts. Every
// row but the login form and the static files needs the admin token (Guard); the facade puts
// every POST through the same-origin check first (sharedUI in fakeserver/surfaces.go).
// The rows bind ui's methods without calling them, so a nil ui lists the patterns.
func (ui *UI) Routes() []Route {
	page := ui.Guard
	return []Route{
		// Login, logout, and the script and style sheet, which need no token.
		{"GET " + Path + "/login", http.HandlerFunc(ui.ServeLoginForm)},
		{"POST " + Path + "/login", http.HandlerFunc(ui.ServeLogin)},
		{"POST " + Path + "/logout", http.HandlerFunc(ui.ServeLogout)},
		{"GET " + StaticPrefix + "{file}", Static()},
		// The fake: overview and clock, hosted feeds, the journal, faults, the event record.
		{"GET " + Path, page(ui.ServeOverview)},
		{"GET " + Path + "/{$}", page(ui.ServeOverview)},
		{"GET " + Path + "/state", page(ui.ServeState)},
		{"POST " + Path + "/clock/advance", page(ui.ServeAdvance)},
		{"GET " + Path + "/feeds", page(ui.ServeFeeds)},
		{"GET " + Path + "/requests", page(ui.ServeRequests)},
		{"GET " + Path + "/requests/{id}", page(ui.ServeRequest)},
		{"GET " + Path + "/faults", page(ui.ServeFaults)},
		{"GET " + Path + "/events", page(ui.ServeEvents)},
		// Per workspace: reports (paged by cursor) with credits, a report's account and plot,
		// webhook endpoints and their deliveries, emails.
		{"GET " + Path + "/workspaces/{id}", page(ui.ServeWorkspace)},
		{"GET " + Path + "/reports/{id}", page(ui.ServeReport)},
		{"GET " + Path + "/workspaces/{id}/webhooks", page(ui.ServeWebhooks)},
		{"GET " + Path + "/endpoints/{id}", page(ui.ServeEndpoint)},
		{"POST " + Path + "/deliveries/{id}/resend", page(ui.ServeResend)},
		{"GET " + Path + "/workspaces/{id}/emails", page(ui.ServeEmails)},
	}
}
