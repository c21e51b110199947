// Package operations is the genqlient-generated GraphQL client of the
// stable podqa GraphQL surface (schema.graphql at the repository root).
//
// Everything in operations.gen.go is generated from the *.graphql files in
// this directory; edit those and run `go generate ./...`. The JSONString,
// DateTime, Date and UUID scalars are bound to string here: the
// hand-written graphqlclient package decodes them.
package operations

//go:generate env GOWORK=off go tool -modfile=../../../internal/tools/tools.mod genqlient genqlient.yaml
