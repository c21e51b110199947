// Package webhook receives the podqa service's webhooks: it verifies their Standard Webhooks
// signatures, decodes their events into typed values and offers an http.Handler that does both
// and drops redeliveries.
//
// Three layers, use the one that fits:
//
//   - Verifier (NewVerifier, Verify) checks a delivery's headers and raw body: the webhook-id,
//     webhook-timestamp and webhook-signature headers, a timestamp within 5 minutes of the
//     clock in either direction, and one matching `v1,<base64 HMAC-SHA256>` among the
//     space-delimited signatures, compared in constant time. Failures wrap sentinel errors
//     (ErrMissingHeaders, ErrInvalidTimestamp, ErrTimestampTooOld, ErrTimestampTooNew,
//     ErrInvalidSignature) for errors.Is. The clock and the tolerance are options.
//   - Parse decodes a verified body into an Event: the envelope (Type, Timestamp, Test) and
//     typed data for the five event types. Report events carry the same client.Result type as
//     REST for their issues. Unknown event types are returned with their raw data, not refused.
//   - NewHandler returns an http.Handler that does the whole job for net/http: limits and reads the body, verifies, parses,
//     skips test events if asked, drops deliveries already processed, and calls your function.
//
// # Built on the standard-webhooks library
//
// Verification is built on github.com/standard-webhooks/standard-webhooks/libraries/go (the
// reference Go implementation). It parses and validates the secret, and its Sign defines what a
// valid signature is. Verify does not call the library's Verify, for two reasons: that reads
// time.Now, so its timestamp check cannot use an injected clock and does not return this
// package's errors; and it formats the whole body into a new string before hashing, which
// measured two to three times the cost of the HMAC alone on a 64 KiB body
// (BenchmarkLibraryVerify64KiB against BenchmarkHMACSHA256_64KiB). Verify therefore checks the
// timestamp itself and computes the HMAC once over the header text and the body as received,
// then compares it with every candidate exactly as the library parses them. NewVerifier signs
// a probe message both ways and refuses to build a Verifier if they differ, and the tests and
// FuzzVerify check that Verify accepts exactly the signatures the library accepts.
//
// # Handler statuses
//
// The sender counts any 2xx as delivered and retries anything else (about 10 minutes later,
// doubling, up to 10 attempts over roughly 28 hours), so the status says whether a retry can
// help:
//
//	405  not a POST (with Allow: POST)
//	413  body larger than WithMaxBodyBytes (DefaultMaxBodyBytes, 4 MiB); not verified
//	400  not a well-formed delivery: a webhook header missing (ErrMissingHeaders), a
//	     webhook-timestamp that is not Unix seconds (ErrInvalidTimestamp), an unreadable body,
//	     or a verified body Parse refuses (ErrMalformedPayload)
//	401  not authentic or not fresh: no matching signature (ErrInvalidSignature), or
//	     webhook-timestamp outside the tolerance (ErrTimestampTooOld, ErrTimestampTooNew)
//	200  handled: the callback returned nil; or a duplicate (webhook-id already processed);
//	     or a test event ignored under WithIgnoreTestEvents. The body says which.
//	409  a delivery with the same webhook-id is being processed at this moment, here or by
//	     another instance sharing the DedupStore (ErrInFlight), with Retry-After: the claim TTL
//	500  the callback returned an error (ErrCallback), or the DedupStore failed or is
//	     unreachable (ErrDedupStore)
//
// "In progress elsewhere" is answered 409, not 503 or 429: the service's sender retries any
// non-2xx about 10 minutes later whatever the status; a 4xx keeps load balancers and retrying
// proxies from replaying it at once to another instance (which would only meet the same claim)
// and keeps it out of 5xx error-rate alerts, and Retry-After tells any sender that honours it
// when the claim ends at the latest.
//
// Response bodies are one short line of text; the callback's own error is never sent back.
// WithErrorHook reports every error answer with its reason.
//
// # The 10-second budget
//
// The sender waits 10 seconds for an answer, then counts the attempt as failed and retries it
// later; the retry goes through the callback again only if the first attempt did not succeed.
// Keep the callback short: record the event (enqueue it, write it to a table) and return, and
// do slow work such as fetching the full report over REST elsewhere. WithTimeout puts a
// deadline on the callback's context so that it can give up in time; without it the context
// ends only when the sender hangs up. DeliveryFromContext gives the callback the webhook-id and
// the attempt's timestamp.
//
// # De-duplication
//
// Delivery is at least once, so the same delivery can arrive more than once with the same
// webhook-id (the sender timed out on a success, or a network error ate the answer). Handler
// de-duplicates on webhook-id, never on the body's timestamp or a report id, which are not
// unique per delivery:
//
//   - Only verified deliveries reach the DedupStore, so a forger cannot fill it or claim ids.
//   - The callback runs only under a claim on the id (DedupStore.Claim, for WithClaimTTL,
//     two minutes by default). Of two requests with the same id at once, in one process or in
//     several sharing a store, one claims it and the other is answered 409; the sender retries
//     it later.
//   - The id is completed only after the callback returns nil. A failed (or panicking)
//     callback releases the claim, and the sender's retry runs the callback again in full.
//   - A redelivery of a completed id is answered 200 without calling the callback.
//   - A receiver that dies mid-callback leaves a claim that expires after its TTL; the
//     sender's next retry (about 10 minutes later) then runs the callback. Keep the claim TTL
//     above the callback's longest run: once it expires, a redelivery may run it concurrently.
//   - Several instances share a store with WithDedupStore: webhookpg.New (PostgreSQL) and
//     webhookredis.New (Redis) measure TTLs on the database server's clock, so the instances'
//     clocks never decide.
//   - The default MemoryStore remembers ids for 30 hours (the whole retry ladder with margin),
//     at most 100,000 of them, forgetting the oldest first; its clock is the Verifier's.
//   - If the callback succeeded but the store cannot complete the id, 200 is still answered
//     (the event is handled) and the error goes to the WithErrorHook hook. Since the answer
//     does not depend on it, the shared stores write completions behind: the 200 waits for
//     the claim's round trip only, and a failed write reaches the store's own error hook;
//     flush the store after the server's Shutdown.
//
// # Choices the specification leaves open
//
//   - The secret must begin with whsec_ and decode (standard base64) to at least one byte;
//     the library alone would accept a secret without the prefix, or an empty one.
//   - webhook-timestamp must be plain decimal seconds with no sign or leading zeros: the
//     signed string holds the header text, and any other spelling would sign differently from
//     the canonical form the library uses.
//   - A token in webhook-signature with a version other than v1 is skipped, not an error;
//     only a header with no matching v1 token fails.
//   - The tolerance is inclusive: exactly 5 minutes away is accepted.
//   - The envelope timestamp is read as RFC 3339 (the service writes `+00:00`, and `Z` is
//     accepted too) and returned in UTC.
//   - Report events: status is kept as sent even when it is not one of the three documented
//     values, since new values may appear; a known event type whose data lacks its objects
//     (data.report; data.series and data.episode; data.series and data.failure) is
//     ErrMalformedPayload. JSON nulls of string fields read as empty strings, as in package
//     client; the scored fields (passed, score, passes, failures, total) are pointers and
//     issues a nil slice when null.
//   - Handler does not check Content-Type (the service always sends application/json): the
//     signature already authenticates the body, and Parse refuses anything that is not a
//     JSON event.
//   - Test events are acknowledged, not processed, only when WithIgnoreTestEvents is given;
//     by default they reach the callback with Event.Test set.
package webhook
