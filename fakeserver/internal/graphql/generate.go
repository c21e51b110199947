// Package graphql holds the gqlgen configuration of the fake server's
// GraphQL endpoint. gqlgen generates, from schema.graphql at the repository
// root, the executor (subpackage exec) and the models (subpackage model);
// run `go generate ./...` after editing the schema. Resolvers are written by
// hand elsewhere (fakeserver/internal/graphqlapi) and are not generated.
package graphql

//go:generate env GOWORK=off go tool -modfile=../../../internal/tools/tools.mod gqlgen generate --config gqlgen.yml
