package graphql

import _ "embed"

// explorerPage is the fake's own GraphQL explorer, written for this project: no Go module
// maintains GraphiQL's assets for embedding, and the fake must work with no internet, so the
// page loads nothing from anywhere but the fake itself.
//
//go:embed explorer.html
var explorerPage []byte

// ExplorerPage returns the HTML of the interactive explorer served at GET /api/graphql: a query
// editor, a variables editor, an API key field, a run button and a result pane, posting to the
// same path. Without a key the browser's session cookie, if any, is sent instead.
func ExplorerPage() []byte { return append([]byte(nil), explorerPage...) }
