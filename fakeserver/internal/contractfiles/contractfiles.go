// Package contractfiles embeds the repository's contract files, byte for byte, so the fake can
// serve them. The copies beside this file are made by go generate and checked by CI's drift
// check; edit the originals at the repository root.
package contractfiles

import _ "embed"

//go:generate cp ../../../openapi.json ../../../schema.graphql .

//go:embed openapi.json
var openAPI []byte

//go:embed schema.graphql
var schemaGraphQL []byte

// OpenAPI returns openapi.json.
func OpenAPI() []byte { return append([]byte(nil), openAPI...) }

// SchemaGraphQL returns schema.graphql.
func SchemaGraphQL() []byte { return append([]byte(nil), schemaGraphQL...) }
