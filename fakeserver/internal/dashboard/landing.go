package dashboard

import (
	"net/http"
	"strings"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// The fake's front door: GET / (a small page for a browser, the same links as JSON for any
// other client), the favicon, and /app/reports/{id}, the report link of events and REST
// answers, which leads to the dashboard's page of the report (through its login).

// landingLink is one link of the landing page.
type landingLink struct {
	Key, Title, Path, What string
}

// landingView is the landing page's data.
type landingView struct {
	Version string
	Links   []landingLink
}

// landingLinks are what a newcomer opens first, in that order, the REST API's under restBase.
func landingLinks(restBase string) []landingLink {
	return []landingLink{
		{"dashboard", "Dashboard", Path + "/", "reports, webhook deliveries, emails, the request journal and the clock (needs the admin token)"},
		{"rest_explorer", "REST explorer", restBase + "/docs", "the REST API, tried from the browser"},
		{"graphql_explorer", "GraphQL explorer", "/api/graphql", "the GraphQL API, tried from the browser"},
		{"control_contract", "Control API contract", "/_fake/openapi.json", "the calls that drive the fake (OpenAPI)"},
		{"rest_contract", "REST API contract", restBase + "/openapi.json", "the service's REST API (OpenAPI)"},
		{"graphql_schema", "GraphQL schema", "/schema.graphql", "the service's GraphQL schema (SDL)"},
		{"health", "Health", "/_fake/healthz", "answers ok while the fake runs"},
	}
}

// landingAnswer is GET / for a client that did not ask for HTML.
type landingAnswer struct {
	Name  string            `json:"name"`
	Links map[string]string `json:"links"`
}

// Landing serves GET /: the page for a browser (by Accept: text/html), JSON otherwise, with
// the links of the fake at baseURL (its REST API under restBase).
func Landing(baseURL func() string, restBase string) http.Handler {
	links := landingLinks(restBase)
	return Headers(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Accept")
		pages, perr := Shared() // the process's templates, parsed on first use
		if !WantsHTML(r) || perr != nil {
			answer := make(map[string]string, len(links))
			base := strings.TrimSuffix(baseURL(), "/")
			for _, l := range links {
				answer[l.Key] = base + l.Path
			}
			httpmw.WriteJSON(w, http.StatusOK, landingAnswer{Name: "podqa fake", Links: answer})
			return
		}
		var buf strings.Builder
		if err := pages.Render(&buf, "landing", Page{Title: "Start", Data: landingView{Links: links}}); err != nil {
			httpmw.WriteError(w, &httpmw.Error{Status: http.StatusInternalServerError, Code: core.CodeInternal, Message: "The page could not be rendered: " + err.Error()})
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.Method != http.MethodHead {
			_, _ = w.Write([]byte(buf.String()))
		}
	}))
}

// ServeAppReport is /app/reports/{id}, the report's link in events and REST answers: a 303 to
// the dashboard's page of the report, whose login brings the browser back to it. The target is
// built from the parsed id, so the link leads nowhere else; an id that is not a canonical UUID
// is a 404.
func ServeAppReport(w http.ResponseWriter, r *http.Request) {
	id, ok := core.CanonicalID(httpmw.PathID(r, "id"))
	if !ok {
		httpmw.WriteError(w, core.ErrNotFound("Report"))
		return
	}
	http.Redirect(w, r, Path+"/reports/"+id.String(), http.StatusSeeOther)
}
