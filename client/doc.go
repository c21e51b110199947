// Package client is the Go client of the podqa REST API: reports on the audio quality of podcast
// episodes, the series (shows) they belong to, credits, uploads and webhook subscriptions.
//
// Create a Client with New and an API key, then call its methods; every call takes a context
// first and returns typed values:
//
//	c, err := client.New(os.Getenv("PODQA_API_KEY"))
//	me, err := c.Me(ctx)                       // the recommended connection test
//	page, err := c.ListReports(ctx, client.ListReportsParams{Status: client.StatusComplete})
//	for r, err := range c.AllReports(ctx, client.ListReportsParams{}) { ... }
//	report, err := c.WaitForReport(ctx, created.ID)
//
// The methods are flat on Client and named after the resource: Me, GetCredits; ListSeries,
// AllSeries, GetSeries, ListEpisodes, AllEpisodes; ListReports, AllReports, GetReport,
// GetTranscript, WaitForReport; CreateReportFromFeed, CreateReportFromSeries,
// CreateReportFromUpload, ReserveUpload, and Upload and UploadFile, which run the whole upload
// flow; SubscribeWebhook, UnsubscribeWebhook.
//
// # Client rules built in
//
// The service asks its clients to follow a set of rules; this package follows them so that
// callers need not:
//
//   - Every request carries Authorization: Bearer <key>. The key is never logged and never
//     appears in an error, and printing a Client does not show it.
//   - The content type of every response is checked before it is parsed. A success that is not
//     JSON is an *APIError (ErrUnexpectedResponse); a non-JSON error response, such as the
//     plain-text 503 of the service's front, is an *APIError with an empty Code and the raw
//     Body.
//   - Errors are branched on their code, never on their message: every failure is an
//     *APIError with the code, and errors.Is works with the sentinels (ErrNotFound,
//     ErrRateLimited, ErrInvalidAPIKey, ...). Errors of the webhook subscription calls, which
//     carry only a message, are mapped to the same type. Transport errors are wrapped, so
//     errors.Is(err, context.DeadlineExceeded) works.
//   - Reads (GET) are retried on connection errors, timeouts, 5xx (except 501) and 429.
//   - Writes (POST /reports from a feed or a series, POST /uploads, the webhook calls) are
//     retried only when the request cannot have been carried out: a 429, a non-JSON 503 (the
//     front refused it before the API saw it), a failure to connect. A JSON 5xx or a timeout
//     may have created something, so it is returned, not repeated.
//   - The upload form of POST /reports is idempotent (the report id is the client's), so it is
//     retried like a read, and a 409 conflict after one of its own attempts that may have gone
//     through counts as success (see CreateReportFromUpload).
//   - 400, 401, 402, 403, 404, 405 and 409 are never retried: the request itself is wrong.
//   - A success whose body breaks off (a cut connection, an attempt timeout while reading it)
//     is a failed attempt, retried like a lost connection under the rules above; a call never
//     returns half a decoded value. The body of a success is therefore read whole within the
//     attempt.
//   - Each attempt is bounded by the HTTP client's Timeout: DefaultAttemptTimeout by default,
//     the given client's own with WithHTTPClient (give it a Timeout; http.Client's zero value
//     has none). An attempt that times out is retried as above.
//   - A 429 waits exactly its Retry-After, unless that exceeds RetryPolicy.MaxRetryAfter: then
//     the call returns the 429 at once with APIError.RetryAfter set. Other retries back off
//     exponentially with jitter; so does a 429 or 503 whose Retry-After is unreadable, negative,
//     zero, in the past or overflowing. Waits end early when the context ends, and a wait that would
//     outlast the context's deadline is not started.
//   - Request bodies are rewound for every attempt.
//   - The client trusts no server: a success body longer than MaxResponseBody (64 MiB) fails
//     with ErrResponseTooLarge, and a redirect that leaves the origin (scheme, host or port) of
//     a request carrying the API key, or of a POST, is not followed: the call returns an
//     *APIError with the 3xx status, so the key never reaches another origin and a write is
//     never replayed there.
//   - Upload measures the audio's duration itself when none is given (WAV, MP3, FLAC, Ogg, M4A
//     and ADTS AAC),
//     PUTs the bytes with exactly the reserved Content-Type and no service credentials (retried
//     like a read: the same bytes to the same object), and keeps the signed URL out of errors.
//   - Unknown response fields are ignored and unknown enum values (a new Status, a new check
//     name) are kept as they arrived; Status.IsKnown tells them apart.
//   - Pagination: Page carries has_more and the applied limit and offset; the All* iterators
//     walk every page and skip rows already seen, since offsets window a live listing.
//   - Timestamps are decoded from the service's fixed form; FormatTime writes it, for
//     watermarks that are compared as strings.
//   - The verdict of a report is Report.Passed (stats.passed), never failures == 0.
//   - WaitForReport sizes its pauses from stats.time_remaining, treats a negative remaining time
//     as still working, honours Retry-After and gives up at a ceiling.
//
// # Watching what the client sends
//
// WithMiddleware puts functions around every HTTP request the client sends, each attempt of a
// retried call included (Attempt gives its number), and sees each response or error: for logs,
// metrics and tracing, without wrapping the http.RoundTripper by hand (see ExampleWithMiddleware).
// Without it the client takes no extra step. Every exported error value prints its message with
// %v and its name (such as client.ErrNotFound) with %#v.
//
// # Requests the typed methods do not cover
//
// Do sends a RawRequest (any method and path under the base URL, a JSON body) with the same
// credentials, retries, middleware and errors as the typed methods, and returns the raw answer:
// for an endpoint or a field newer than this package. graphqlclient sends its queries so.
//
// # Time
//
// Every pause (retry backoff, Retry-After, WaitForReport's polls) is slept on the client's
// Clock, and Retry-After dates are read against it: SystemClock unless WithClock says
// otherwise. graphqlclient and poller built on the client use the same clock by default.
//
// # Testing against the fake
//
// The fakeserver package of this module is an in-memory fake of the whole service. Package
// clienttest returns a fake and a client bound to it in one call: the fake's URL, its
// in-process HTTP client and its clock (fakeserver's Server.Clock), whose Sleep moves the
// fake's time, so that code under test that waits finishes at once.
package client
