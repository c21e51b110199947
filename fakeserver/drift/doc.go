// Package drift tells whether the fake is still the service, and brings a real workspace into
// the fake.
//
// Check compares a service (the live one, at the base URL it is given) with the fake's own
// contracts: the public openapi.json and schema.graphql, and with an API key also the answers
// of read-only calls. Each difference is classed additive (the service grew; the fake should
// learn it) or breaking (it would break a v1 client).
//
// Import writes a fixtures document of an API key's workspace: its series, their episodes and
// its reports as recorded, which the fake loads with WithFixtures (the program's -fixtures) and
// serves as recorded.
//
// Both only read: they never write to the service, never spend credits, pace themselves to its
// limits, wait out 429 answers by their Retry-After and retry 5xx answers as the SDK's client
// does, reach only the base URL they are given, and never print or store the key.
package drift
