package fakeserver

import (
	"io/fs"
	"net/http"

	swaggerfiles "github.com/swaggo/files/v2"

	"github.com/podqa/podqa-go/fakeserver/internal/contractfiles"
)

// The public documents need no key and count against no limit.
func (s *Server) docsRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/rest/v1/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(contractfiles.OpenAPI())
	})
	mux.HandleFunc("GET /api/rest/v1/docs", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(explorerPage))
	})
	// Swagger UI's assets come from the swaggo/files module and are served by the fake itself,
	// so the explorer works with no internet.
	assets, _ := fs.Sub(swaggerfiles.FS, ".")
	mux.Handle("GET /api/rest/v1/docs/assets/", http.StripPrefix("/api/rest/v1/docs/assets/", http.FileServerFS(assets)))
}

// explorerPage is the interactive explorer: Swagger UI on the fake's own openapi.json. The
// validator badge is off because it would call a third-party service.
const explorerPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>podqa REST API explorer (fake)</title>
<link rel="stylesheet" href="/api/rest/v1/docs/assets/swagger-ui.css">
</head>
<body>
<div id="explorer"></div>
<script src="/api/rest/v1/docs/assets/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({
  url: "/api/rest/v1/openapi.json",
  dom_id: "#explorer",
  validatorUrl: null,
  persistAuthorization: true,
  requestInterceptor: function (req) {
    // The document's server is the production base; send requests to this fake instead.
    var u = new URL(req.url, window.location.origin);
    if (u.origin !== window.location.origin) {
      req.url = window.location.origin + u.pathname + u.search;
    }
    return req;
  }
});
</script>
</body>
</html>
`
