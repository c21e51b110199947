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
//	409  a delivery with the same webhook-id is being processed at this moment (ErrInFlight)
//	500  the callback returned an error (ErrCallback), or the DedupStore failed
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
//   - Only verified deliveries reach the DedupStore, so a forger cannot fill it or mark ids.
//   - The id is marked only after the callback returns nil. A failed callback leaves nothing
//     behind, and the retry runs the callback again.
//   - A redelivery of a marked id is answered 200 without calling the callback.
//   - Two concurrent requests with the same id in one process: the second is answered 409 and
//     retried by the sender later. Across processes, share a DedupStore (WithDedupStore); a
//     race between processes can still run the callback twice, so the callback should be
//     idempotent anyway.
//   - The default MemoryStore remembers ids for 30 hours (the whole retry ladder with margin),
//     at most 100,000 of them, forgetting the oldest first; its clock is the Verifier's.
//   - If the callback succeeded but the store cannot mark the id, 200 is still answered (the
//     event is handled) and the error goes to the WithErrorHook hook.
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
