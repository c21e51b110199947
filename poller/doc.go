// Package poller watches a podqa workspace for completed reports by polling, for integrations
// that cannot receive webhooks. It follows the service's polling recipe:
//
//   - Each poll asks GET /reports?status=COMPLETE&updated_since=<watermark>&limit=100 and reads
//     every page (filtering on updated_since, never created_since: reports finish out of order).
//   - The new watermark comes from the updated_at of every item of every page, not from the
//     first item, since the listing is ordered by created_at.
//   - When paging cannot be finished (an error, a cancelled context, a 429 whose Retry-After is
//     longer than the poller waits) the old watermark is kept.
//   - Watermarks are always written in the API's fixed form 2026-01-05T09:00:00.000000+00:00,
//     which compares correctly as a string; a stored or given watermark in another RFC 3339 form
//     (such as `Z`) is converted on load. The first watermark must be given (WithStartWatermark,
//     WithStartTime): an empty one is refused with ErrNoWatermark, never read as "all reports".
//   - Reports are recognised by id, so none is handed to the handler twice.
//   - WithFetchReports reads GET /reports/{id} before the handler, for the current verdict
//     (passed can change after completion without updated_at moving).
//   - Retries are the client's: 5xx and transport errors per its RetryPolicy, and 429 waits up
//     to its MaxRetryAfter. On top, a poll waits out a 429's Retry-After up to WithMaxRetryAfter
//     on its own Clock; any other 4xx ends the poll with the error. GET /credits, the slow
//     billing call, is never made.
//
// # Why a report completing during paging is not lost
//
// The listing is a live window ordered by created_at, paged by offset. A report that completes
// while a poll pages joins the listing at its place by created_at. If that place is on a page
// already read, this poll misses it, and a later page may show a report with a higher
// updated_at; taking that maximum as the watermark would skip the missed report for ever.
//
// The poller therefore never moves the watermark past the instant the first page was read: any
// report missed that way completed after that instant, so the next poll, asking updated_since
// the new watermark, lists it. That instant is not known on the client, but two lower bounds
// are: the highest updated_at of the first page, and the highest updated_at of all pages minus
// the time paging took on the poller's Clock (the service stamped it no later than the last
// page, which came at most that long after the first). The watermark becomes the higher of the
// two, less a small overlap (WithOverlap, default one second) for a report stamped a moment
// before it became visible, and never lower than before. A poll of a single page reads one
// consistent snapshot, so its watermark is simply its highest updated_at less the overlap.
//
// Reports read again in the overlap are skipped by id. The poller remembers the ids it
// delivered only while their updated_at is above the watermark (they are forgotten once the
// listing can no longer return them), and keeps them in the Store with the watermark, so that
// a restart delivers nothing twice either. Memory is therefore bounded by the reports completed
// within the overlap window (plus, while a handler failure holds the watermark back, those
// delivered since).
//
// Cost: a poll that finds n reports it has not delivered and r already delivered ones above the
// watermark makes max(1, ceil((n+r)/100)) list requests, plus one GET per report with
// WithFetchReports and one repeat per 429 waited out (a row pushed onto the next page by a new
// completion is read twice and counts in r). After a poll of one page, r counts the reports it
// delivered within the overlap (one second) below its highest updated_at, so at least that one;
// after a poll of several pages, those within the overlap plus the time that poll's paging took
// (or down to its first page's highest updated_at, if higher). Without the overlap design the
// figure would be max(1, ceil(n/100)), at the price of losing reports that complete during paging.
//
// # Delivery guarantees
//
// The handler sees each completion at least once and, in normal operation, exactly once,
// across polls and restarts. A handler error leaves the watermark just below that report (the
// watermark never advances past it) and the next poll offers it again; other reports of the
// poll are still delivered. A crash between a handler call and the next Save of the state can
// deliver the reports of that poll again.
//
// # Several replicas: the lease
//
// A poller whose Store is a LeaseStore (pollerpg.New on PostgreSQL, pollerredis.New on Redis,
// or a MemoryLeaseStore shared in one process) polls only while it holds the store's lease, so that
// of N replicas sharing the store exactly one polls at a time:
//
//   - The lease has a TTL (WithLeaseTTL, 15 s by default) measured on the store's clock (the
//     database server's: Postgres clock_timestamp(), Redis PEXPIRE), so skew between the
//     replicas' clocks never decides who holds it. The holder renews it every third of the TTL
//     (one round trip), during polls and, in Run, between them.
//   - Run on a replica that does not hold it waits until the holder's lease would expire and
//     tries again: a holder that stops or dies is taken over within one TTL.
//   - A holder that cannot renew (refused, or the store unreachable or slow; it retries every
//     sixth of the TTL) cancels its poll, at the latest two thirds of the TTL after it sent its
//     last request that succeeded (the acquisition or a renewal), timed on its monotonic clock:
//     before the store could give the lease to another, however late that answer came. It stops
//     before saving.
//   - Every save is fenced: SaveFenced writes only while the lease's token is still the
//     store's and unexpired, in the same statement or script, so a stale holder's save is
//     refused (ErrLeaseLost) and never applied. The token grows each time the lease changes
//     hands, and a poller reloads the state whenever its token changed.
//   - Under a lease the reports delivered so far are saved after every page but the last (the
//     watermark stays until paging finishes), so a holder that dies mid-poll costs at most the
//     reports it had delivered in the page it died in: the replica taking over delivers those
//     again, and nothing else twice. The tests kill the holder of three pollers mid-page on
//     5,000 reports and count exactly those (TestPollers of pollerpg and pollerredis).
//   - The store unreachable: the poll fails with the error, the stored watermark stays, and the
//     next poll under a lease starts from it; nothing is lost.
//
// FileStore is for one process and has no lease; with MemoryStore and FileStore a single
// process polls as it always did.
//
// # Choices the recipe leaves open
//
//   - Run pauses the interval (default five minutes, WithInterval within five to fifteen) plus
//     up to 10% at random (WithJitter), never past fifteen minutes unless WithIntervalUnbounded
//     overrides the bounds; a 429 that ended a poll makes the next pause at least its
//     Retry-After. The first poll runs at once.
//   - A 429 is waited out within a poll up to WithMaxRetryAfter (default two minutes, at most
//     three times a poll), after the client's own waits; beyond, the poll ends.
//   - Run ends only on what another poll cannot cure: no watermark, an unreadable store (a
//     corrupt state; a LeaseStore that cannot be reached is tried again), or a 4xx other than
//     429 from the listing. A failed GET /reports/{id} (WithFetchReports) ends
//     that poll alone, keeping the watermark.
//   - A handler error does not stop the poll: the other reports are still delivered, and the
//     errors come back joined, each a *HandlerError.
//   - The overlap defaults to one second.
//   - PollOnce takes the handler as an argument, as Run does, rather than binding one in New.
//
// Clocks: the poller measures paging time and waits on a client.Clock, the client's unless
// WithClock gives another. Against a fake on a manual clock, give the client the fake's clock
// (client.WithClock(srv.Clock())), or the fake's time jumps go unmeasured and its pauses are
// slept on the wall clock.
package poller
