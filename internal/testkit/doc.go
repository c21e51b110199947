// Package testkit is the SDK module's one place for test support: servicetest reaches the
// PostgreSQL and Redis servers the stores' tests use, storetest holds the stores' shared
// benchmarks and round-trip checks. Nothing outside tests imports them.
package testkit
