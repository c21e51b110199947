// Package fakeserver is an in-memory fake of the whole podqa service, for tests.
//
// The fake is the service, not a mock: it keeps state, enforces the service's rules and limits,
// measures real audio, delivers signed webhooks on the retry ladder and moves time on command.
// It serves REST, GraphQL and the webhook subscription calls, and the control API under /_fake
// that stands in for the web app and the world around the service.
//
// # Starting it
//
// In a Go test, [NewTest] starts a fake on a manual clock with the Demo workspace and its key,
// accepts webhook and feed URLs on loopback, and closes the fake when the test ends; package
// [github.com/podqa/podqa-go/fakeserver/clienttest] adds a client bound to it. [New] starts the
// fake as the service would be: on the real clock, with no workspace until [Server.SeedDemo] (or
// [WithFixtures]) makes one,
// refusing loopback and private URLs until [WithPrivateURLs] allows them. It takes [Option]
// values such as [WithManualClock], [WithSeed], [WithFixtures] and [WithPrivateURLs].
// [Server.URL], [Server.Client] and [Server.Handler] reach it. From any language, run the
// program cmd/fakeserver (or its container image): it prints one JSON line with its URL, key and
// admin token.
//
// # Time
//
// Every rule reads the fake's clock. [Server.Advance] moves a manual clock, running what falls
// due in time order; [Server.Clock] gives code under test a clock whose Sleep does the same, so
// a wait in an SDK call passes at once; [TestStart] is where [NewTest]'s clock starts.
//
// # Control
//
// Go methods such as [Server.CreateWorkspace], [Server.HostFeed], [Server.InjectFault],
// [Server.Requests] and [Server.Reset] have routes under /_fake, described by control.openapi.json
// (served at /_fake/openapi.json). A refusal is an [*Error] with the HTTP status and code the
// routes answer with.
//
// # Routes
//
// routes.go is the fake's route table: every route of REST, GraphQL, the webhook subscription
// calls, the control API, uploads, hosted feeds, covers and the documents, with the middleware
// each passes through in order. Read it first.
//
// # Choices
//
// Where the specification leaves a choice open, BEHAVIOUR.md beside this file says what the fake
// does, section by section, with the tests that show it; CHECKS.md holds the check table.
package fakeserver
