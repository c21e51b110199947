// Package contract holds the contract tests of podqa-go: they load the
// repository's contract files (openapi.json and schema.graphql), validate
// them, and check them against tables transcribed from the service
// specification, so that a drift between the specification, the contract
// files and the generated code fails CI.
package contract
