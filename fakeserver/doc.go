// Package fakeserver is an in-memory fake of the whole podqa service, for tests.
//
// The fake is the service, not a mock: it keeps state, enforces the service's rules and limits,
// and moves time on command. Use it in-process from Go tests with NewTest (or New), or run it as
// a program from a test suite in any language (see fakeserver/cmd/fakeserver); both expose the
// control API under /_fake that stands in for the web app and for the world around the service.
//
// # What it serves today
//
// Workspaces (personal and organisation, with owners), API keys, browser sessions, GET /me, the
// three rate limits, the clock, fault injection and the control API. Every other call of the
// service answers 501 with the error code not_implemented until it lands, never a made-up
// success.
//
// # Time
//
// Every time rule reads the fake's clock. New follows the wall clock unless WithManualClock is
// given; NewTest always starts a manual clock at TestStart(). Advance (or POST
// /_fake/clock/advance) runs everything that falls due in the span, in time order.
//
// # Choices where the specification is silent
//
//   - Rate-limit windows are aligned to the clock: the per-key minute window runs from hh:mm:00,
//     the hourly write window from hh:00:00, the refused-credentials window from a multiple of
//     five minutes. Retry-After is the whole seconds, rounded up, until that window ends. A request
//     refused by a limit still counts in its window; a write refused by the minute limit does not
//     count against the hourly one.
//   - A personal workspace's id is its user's id (GET /me names "the organisation or user the key
//     is bound to").
//   - An organisation created through the control API gets one owner account; its keys act as
//     that owner. A refused credential always gets the same message, whatever the reason.
//   - Keys are 192 random bits after the podqa_api_ prefix and are stored only as SHA-256
//     digests; masked_key is the prefix, six more characters and an ellipsis.
//   - A browser session (sessionid cookie, minted by POST /_fake/workspaces/{id}/sessions) is
//     not subject to the per-key limits; a write with only a session is refused as missing
//     credentials.
//   - Paths outside the contract answer 404 and known paths with another method 405 before any
//     credential check, so the retired /podcasts paths are 404 with or without a key.
//   - The free plan, used when the control API names none, grants 1,200 credits a month and three
//     shows; the seeded Demo workspace has 12,000 credits and ten shows.
package fakeserver
