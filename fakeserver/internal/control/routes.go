package control

import "net/http"

// Route is one row of the control API's route table: an http.ServeMux pattern and the call
// that serves it.
type Route struct {
	Pattern string
	Handler http.HandlerFunc
}

// Routes is the rows of the control calls this package serves, for the facade's control table
// (fakeserver/routes.go, controlRows), which mounts them behind the admin guard and the
// contract's checks with the calls of the packages that own theirs.
func (a *API) Routes() []Route {
	return []Route{
		// Workspaces, keys, sessions.
		{"POST /_fake/workspaces", a.ServeCreateWorkspace},
		{"POST /_fake/workspaces/{id}/api-keys", a.ServeCreateAPIKey},
		{"POST /_fake/workspaces/{id}/sessions", a.ServeCreateSession},
		{"DELETE /_fake/workspaces/{id}/owners", a.ServeRemoveOwners},
		{"PATCH /_fake/api-keys/{id}", a.ServePatchAPIKey},
		// The clock.
		{"GET /_fake/clock", a.ServeGetClock},
		{"POST /_fake/clock/advance", a.ServeAdvance},
		// Credits.
		{"PATCH /_fake/workspaces/{id}/credits", a.ServePatchCredits},
		{"POST /_fake/workspaces/{id}/topups", a.ServeAddTopup},
		// Webhooks, emails and automated reporting.
		{"GET /_fake/webhook-deliveries", a.ServeListDeliveries},
		{"POST /_fake/workspaces/{id}/webhook-endpoints", a.ServeCreateEndpoint},
		{"GET /_fake/workspaces/{id}/webhook-endpoints", a.ServeListEndpoints},
		{"PATCH /_fake/webhook-endpoints/{id}", a.ServePatchEndpoint},
		{"DELETE /_fake/webhook-endpoints/{id}", a.ServeDeleteEndpoint},
		{"POST /_fake/webhook-endpoints/{id}/test", a.ServeTestEvent},
		{"POST /_fake/webhook-deliveries/{id}/resend", a.ServeResendDelivery},
		{"GET /_fake/emails", a.ServeListEmails},
		{"PUT /_fake/series/{id}/automated-reporting", a.ServeAutomatedReporting},
		// Seeded reports.
		{"POST /_fake/workspaces/{id}/reports", a.ServeSeedReports},
		// The account of a report.
		{"GET /_fake/reports/{id}", a.ServeReportAccount},
		// The listings for any language, paged by cursor.
		{"GET /_fake/workspaces", a.ServeListWorkspaces},
		{"GET /_fake/feeds", a.ServeListFeeds},
		{"GET /_fake/reports", a.ServeListReports},
		{"GET /_fake/events", a.ServeListEvents},
	}
}
