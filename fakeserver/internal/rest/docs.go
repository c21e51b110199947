package rest

import (
	"io/fs"
	"net/http"

	swaggerfiles "github.com/swaggo/files/v2"

	"github.com/podqa/podqa-go/fakeserver/internal/contractfiles"
)

// ServeOpenAPI serves openapi.json, the REST API's contract.
func (a *API) ServeOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(contractfiles.OpenAPI())
}

// ServeExplorer serves the REST API's interactive explorer.
func (a *API) ServeExplorer(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(explorerPage))
}

// ExplorerAssets serves Swagger UI's assets from the swaggo/files module, so that the
// explorer works with no internet.
func ExplorerAssets() http.Handler {
	assets, _ := fs.Sub(swaggerfiles.FS, ".")
	return http.StripPrefix(Base+"/docs/assets/", http.FileServerFS(assets))
}

// explorerPage is the interactive explorer: Swagger UI on the fake's own openapi.json. The page
// sets the document's base_url server variables to its own origin before rendering, so the
// server and "Computed URL" it shows are where its requests go (the served document keeps the
// service's default for users of the real API). The validator badge is off because it would
// call a third-party service.
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
function onThisFake(servers) {
  (servers || []).forEach(function (server) {
    if (server.variables && server.variables.base_url) {
      server.variables.base_url["default"] = window.location.origin;
    }
  });
}
fetch("/api/rest/v1/openapi.json").then(function (r) { return r.json(); }).then(function (spec) {
  onThisFake(spec.servers);
  Object.keys(spec.paths || {}).forEach(function (path) {
    var item = spec.paths[path];
    onThisFake(item.servers);
    Object.keys(item).forEach(function (method) {
      if (item[method] && item[method].servers) onThisFake(item[method].servers);
    });
  });
  window.ui = SwaggerUIBundle({
    spec: spec,
    dom_id: "#explorer",
    validatorUrl: null,
    persistAuthorization: true
  });
});
</script>
</body>
</html>
`
