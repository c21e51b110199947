// Package fakeserver is an in-memory fake of the whole podqa service, for tests.
//
// The fake is the service, not a mock: it keeps state, enforces the service's rules and limits,
// and moves time on command. Use it in-process from Go tests with NewTest (or New), or run it as
// a program from a test suite in any language (see fakeserver/cmd/fakeserver); both expose the
// control API under /_fake that stands in for the web app and for the world around the service.
//
// # What it serves today
//
// Workspaces (personal and organisation, with owners), API keys, browser sessions, the three
// rate limits, parameter and body validation from openapi.json, GET /me, series and episodes,
// reports and their lifecycle on the clock, uploads through signed URLs the fake serves, credits
// with plan periods and top-ups, the public documents (openapi.json, an offline explorer,
// schema.graphql), the GraphQL API and its offline explorer, webhook endpoints with signed
// deliveries on the retry ladder, the feed checker, the emails the service would send, real
// audio measurement judged against standards, the clock, fault injection and the control API.
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
//     shows; the seeded Demo workspace has 12,000 credits and ten shows. Plan periods are calendar
//     months in UTC: finish_date is the first instant of the next month, when plan_used resets.
//   - "Too few credits" (402): with charging enabled, a report from a feed or series needs a
//     balance of at least the minimum charge (100 credits, since the duration is not known yet);
//     POST /uploads and a report from an upload need at least estimated_credits. Credits are
//     taken at completion from the soonest-expiring lot first (the plan lot expires at
//     finish_date; a top-up without expiry goes last); a shortfall at that point is forgiven,
//     not carried as debt. credits_charged is written with two decimals, such as "130.00".
//   - A report moves PENDING to SCHEDULED one second after creation and to IN_PROGRESS one
//     second later (both at once with pace 0), when its audio is fetched and measured. The
//     estimate is duration × pace / 1 h; every run takes 10% longer than its estimate, so
//     time_remaining ends slightly negative, as on the service. Audio that cannot be fetched or
//     measured ends the report FAILED at once.
//   - Reporting from a feed adds the show if the workspace lacks it (automated_reporting off) and
//     records the reported episode as seen; GET /series lists shows in the order they were added.
//     A report's original_filename is the enclosure URL's last path segment.
//   - Feed and enclosure URLs follow the webhook URL rule: in production mode the fake reaches
//     only addresses the service could (no loopback, private, link-local, unique-local,
//     metadata, unspecified or other internal address, in any spelling), checked on the address
//     actually dialled, so every redirect and a name that resolves inside are refused too. A
//     refused feed is 400 validation_error "The feed could not be read: the feed URL leads to an
//     address the service cannot reach (…)"; a refused enclosure fails the report. The fake's
//     own hosted feeds are always reachable (the fake is their host). WithPrivateURLs (program
//     flag -allow-private-urls; NewTest sets it) lifts the rule for tests' own servers.
//   - score (percent) is rounded to the nearest whole percent.
//   - Upload URLs are HMAC-signed URLs on the fake (/_uploads/{id}); a tampered or expired URL is
//     403 forbidden, a wrong Content-Type or an Authorization header 400. One file may be at
//     most 512 MiB, since the fake keeps uploads in memory. An upload report has no audio_url.
//   - Timestamps are always written as YYYY-MM-DDTHH:MM:SS.ffffff+00:00.
//   - Hosted feeds (POST /_fake/feeds, or HostFeed) are served at /_feeds/{id}/feed.rss with
//     their audio under /_feeds/{id}/audio/ and artwork at /_feeds/{id}/cover.png, keyless,
//     like any podcast host. Their episodes'
//     audio is a 16-bit WAV (stereo unless channels says 1) of speech-like sound synthesised on
//     each download to measure at the requested loudness (default −16 LUFS) and true peak
//     (default at most −1 dBTP), faded in, with ID3v2.4 tags and a cover: by default the
//     episode's title, the feed's title as artist and album, and a plain 1400×1400 PNG, so that
//     every check passes; tags, chapters and a cover of the test's own replace them, and
//     bare_audio leaves them out. An episode whose loudness and true peak no speech can have
//     together is refused when it is hosted. An episode without published_on is dated the fake
//     clock's day. No pure-Go MP3 encoder is maintained, so hosted audio is always WAV.
//   - A report's transcript is what the fake's "transcription" returns: the one scripted for its
//     hosted episode, else one scripted for the audio's content (POST /_fake/transcripts with
//     the SHA-256 of the bytes, or ScriptTranscript), with speakers renamed "Speaker 1",
//     "Speaker 2"... in order of first appearance; other audio has none (null). The audio is
//     hashed as it streams to analysis.
//   - Checks, limits and the three built-in standards (Podcast, AES speech, EBU R128): see
//     CHECKS.md beside this file, which lists the final check table. A check whose input is not
//     available has no row and does not count in stats.
//   - Audio is measured by the fake's own engine, which decodes WAV (PCM 8 to 32 bits and float),
//     MP3 (MPEG-1, 2 and 2.5 layer III), FLAC, Ogg Vorbis and Ogg Opus, recognised by their
//     leading bytes (the file name only breaks ties). MP4/M4A is probed for duration, channels,
//     rate, tags and cover but AAC is not decoded, so such a report fails with "AAC audio in
//     MP4/M4A is probed, not decoded"; so do undecodable files, with the decoder's reason. MP3
//     frames whose data is corrupt are decoded as silence, as ffmpeg conceals them, and the
//     report completes; only a file in which no frame decodes fails. Durations are the
//     decoded length: MP3 encoder delay and padding (LAME tag) and Opus pre-skip are removed as
//     ffmpeg's decoders do (ffprobe 5.1's duration field still counts them).
//   - WithoutRateLimits turns the three limits off for load tests; nothing else changes.
//   - Faults (Fault, InjectFault, POST /_fake/faults) act before the API, on the network's
//     wall time even on a manual clock: latency (with jitter), a throttled body, a connection
//     reset before or after the request body, a success answer cut after N bytes (the full
//     Content-Length declared, then the connection closed), or the 429/500/502/503/504 the
//     service or its front gives. after and probability make a flaky path; its pattern is drawn
//     from the fake's seed, the fault's place among those armed since the last ClearFaults and
//     the match's number, so it does not depend on what else runs concurrently. They apply to
//     REST, GraphQL, the webhook subscription calls (429 and 500 in their flat error shape),
//     /_uploads and the hosted feeds, never to /_fake. Closing the fake ends every fault's
//     wait. With no fault armed a request pays one atomic load.
//   - GraphQL (POST /api/graphql) runs schema.graphql through gqlgen over the same core as REST.
//     Credentials, the per-key minute limit, faults and last_used_at are REST's. A request with
//     no credential, or one that is refused, still runs as an anonymous caller (a refused one
//     counts against the address, and its 429 answers the whole request): currentApiKey is then
//     null, report(id) and series(id) answer, and every workspace field is an errors entry with
//     extensions.code invalid_api_key. Errors entries carry the REST error codes in
//     extensions.code (validation_error, not_found, invalid_api_key, internal_error); a query
//     that does not validate is gqlgen's 422 with its errors array, a POST not declared as JSON
//     a 400 with one validation_error entry; a rate limit or an injected fault is the REST
//     answer (429 envelope with Retry-After, plain-text 503, 500 envelope).
//   - GraphQL workspaces: an account belongs to its personal workspace and to the organisations
//     it owns (the fake has no plain members); organisations lists those by name. An
//     organisationId the acting account does not belong to is not_found. series(id) and its
//     alias read any show by id, and historicScores (one point per report of the show, oldest
//     first) carries ids and verdicts when the show is in the key's workspace or in one the
//     acting account belongs to. seriesId (and podcastId) without organisationId reads the
//     show's own workspace when the caller belongs to it, and matches nothing otherwise.
//   - GraphQL listings: seriesList orders titles case-insensitively (then exactly, then by when
//     the show was added; untitled shows last); a negative limit or offset is validation_error;
//     a status filter that is not one of the seven lower-case values (so any upper-case value)
//     and awaiting_review return an empty list. A series' lastCheck (and its source's) is when
//     its feed was last read: when the show was added, then at each feed check. coverImageUrl
//     is the feed's channel artwork as last read (when the show was added, then at each feed
//     check): itunes:image's href, else the RSS <image><url>; null when the feed names none, or
//     names a URL that is not absolute http(s). Hosted feeds name
//     /_feeds/{id}/cover.png, a plain 1400×1400 PNG the fake serves keyless.
//   - GraphQL JSON-string fields are the REST report's fields of the same name, rendered by the
//     same code and encoded once more; null where REST has null. transcriptIncluded is the
//     report's standard's choice as recorded at creation (true for the built-in standards).
//   - GET /api/graphql serves the fake's own small explorer page (query, variables, API key,
//     run, result), written for this project: no maintained Go module embeds GraphiQL's assets,
//     and the page must work with no internet, so it loads nothing from elsewhere.
//   - SeedReports (and POST /_fake/workspaces/{id}/reports with {reports: [{file_name,
//     duration_s, complete_after_s}]}, at most 100,000 per call) creates reports that skip download and
//     measurement: IN_PROGRESS at once, measured as passing 48 kHz stereo WAV at −16 LUFS, and
//     completing at a chosen clock instant through the ordinary completion (judged, charged).
//
// # Webhooks, emails and the feed checker
//
// POST /webhook/subscribe and DELETE /webhook/subscribe/{id} are served with the flat
// {error: string} answers of the specification. Settings' part is the control API:
//
//	POST   /_fake/workspaces/{id}/webhook-endpoints  {url, events, series_id?} -> 201 endpoint with its secret
//	GET    /_fake/workspaces/{id}/webhook-endpoints  -> {items: [endpoint]} (REST-made ones too, source "rest")
//	PATCH  /_fake/webhook-endpoints/{id}             {enabled: bool} -> 200 endpoint
//	DELETE /_fake/webhook-endpoints/{id}             -> 204 (Settings endpoints only)
//	POST   /_fake/webhook-endpoints/{id}/test        -> 201 delivery, after its first attempt
//	GET    /_fake/webhook-deliveries?endpoint_id=    -> {items: [delivery]} newest first
//	GET    /_fake/emails?workspace_id=               -> {items: [email]} newest first
//	PUT    /_fake/series/{id}/automated-reporting    {enabled: bool} -> 200
//
// with the Go methods CreateWebhookEndpoint, WebhookEndpoints, SetWebhookEndpointEnabled,
// DeleteWebhookEndpoint, SendTestEvent, WebhookDeliveries, Emails and SetAutomatedReporting.
// WithResolver injects the name lookups of webhook URLs (validation and connection) and
// WithWebhookTimeout shortens the receiver's 10-second budget.
//
// Choices where the specification is silent:
//
//   - Checks of a subscription run in this order: JSON object, url, events, each event name,
//     series_id, the URL itself, then the limit of five. A url that is not a string is "Invalid
//     webhook URL"; a series_id that is not a uuid is "Series not found"; unknown body fields
//     are ignored; duplicate event names count once; no Content-Type is required. The control
//     API's endpoint creation gives the same texts as messages in its own envelope (409 conflict
//     at the limit).
//   - Refused URLs: not absolute http(s), no host, credentials or a fragment in the URL, a port
//     outside 1 to 65535, a name that does not resolve, or any resolved address that is loopback,
//     private (RFC 1918, IPv6 unique-local), link-local (which holds 169.254.169.254 and the
//     other cloud metadata addresses), unspecified, multicast, broadcast, carrier-grade NAT
//     (which holds 100.100.100.200), documentation, benchmarking, reserved, NAT64 or 6to4. The
//     sender checks the addresses again when it connects, so a name that later resolves inside
//     is not reached. WithPrivateURLs lifts the address rule only.
//   - Every delivery is signed with the endpoint's whsec_ secret (32 random bytes); webhook-id is
//     "msg_" and 128 random bits; webhook-timestamp is the fake clock's time of the attempt, so a
//     receiver under a manual clock checks it against the fake's clock; the user-agent is
//     "Service/1.0 (podqa-fake webhooks)". A receiver's answer body is read up to 64 KiB and
//     dropped.
//   - The first attempt is made at the instant of the event, from the clock: on a manual clock
//     Advance (or POST /_fake/clock/advance) returns after it and after every retry that fell due;
//     on the real clock attempts run apart from the clock so a slow receiver holds nothing up.
//     Attempts of one batch to one URL go one after another in event order; different URLs go
//     concurrently. SendTestEvent makes its first attempt before it returns.
//   - Retries: after the n-th failed attempt the next is due 10 minutes × 2^(n−1) later, at most
//     6 hours, and goes out at the first sweep at or after that instant; sweeps run on multiples
//     of five minutes of the clock. The tenth failed attempt abandons the delivery (28.5 hours
//     after the first, plus sweep delays). A success of any delivery resets the endpoint's count
//     of deliveries in a row that exhausted the ladder; the fifth disables it and emails the
//     workspace's owners. Deliveries still queued for a disabled endpoint wait; re-enabling
//     (Settings endpoints only; REST ones answer 409 conflict) sends those due at the next sweep.
//   - Delivery status is pending, retrying, succeeded or abandoned; last_error is the latest
//     attempt's error (null after a success); response_code is the latest attempt's status (null
//     without an answer); attempts counts the attempts made, failed_attempts those that failed.
//     The log keeps each endpoint's 20 most recent deliveries; older ones still retrying go on.
//   - A report's url in events is the fake's base URL + /app/reports/{id} (the fake has no web
//     app, so it answers 404). issues list required checks first. The test event is built from
//     the workspace's most recently completed report, else a canned sample with fixed ids; it is
//     sent whatever events the endpoint takes, and refused (409) for a disabled or REST endpoint.
//   - Emails go to a personal workspace's user or an organisation's owners: report_failed (a
//     report FAILED), report_out_of_quota (an automatic report out of credits), feed_broken,
//     endpoint_disabled. The fake keeps the last 200 per workspace.
//   - The feed checker reads each tracked feed every hour (FeedCheckPeriod) from when the first
//     workspace added it; on a manual clock Advance waits for each read (at most 30 seconds). An episode is new when its guid (else audio URL) was never seen in the
//     feed and it comes before every known episode in the feed's order, newest first by date;
//     unknown episodes after a known one are backfill, recorded silently. A new episode is
//     recorded under every tracking workspace's series (unless that workspace already recorded
//     it) with episode.created, and reported on where automated_reporting is on: OUT_OF_QUOTA
//     at once, with report.out_of_quota and an email, when the workspace could not create a
//     report from a feed (balance under the minimum charge, with charging on).
//   - A feed is broken after three checks in a row fail: "fetch" when it cannot be read or
//     parsed, "ingest" when its newest episode's audio URL is not an absolute http(s) URL. The
//     event goes out on the transition, and not again within 24 hours of the last notice for
//     that feed; one good check mends it.
//   - A changed explicit flag, seen at a check, is stored on every tracking series and rewrites
//     the explicit_flag row (marked_explicit, status, warning) and stats of their COMPLETE
//     reports, keeping the hits heard; updated_at does not move and no event is sent. Reports
//     without the row keep none.
//   - Standards: custom standards are made through the control API (POST
//     /_fake/workspaces/{id}/standards, CreateStandard) from a built-in's limits, some of which
//     may be replaced, plus word lists and transcript_included; they are assigned per show (PUT /_fake/series/{id}/standard,
//     SetSeriesStandard; standard_id is required, null removes it) or as the workspace default (PUT
//     /_fake/workspaces/{id}/default-standard, SetDefaultStandard), and listed with GET
//     /_fake/workspaces/{id}/standards. A report's standard is fixed when it is created.
//   - explicit_flag follows the feed's current flag: whenever the fake reads a show's feed and
//     finds the flag changed, the show's finished reports are judged again (updated_at stays).
//   - file_info: size in bytes, duration in seconds (a JSON number with fractions); the codec
//     keys are left out when no codec was probed. metadata: the tags as strings (null when
//     absent; track_num as written, such as "7" or "7/12"), chapters as {start, end, title} with
//     times in milliseconds; null when the file's tags were not read. cover_image: width and
//     height in pixels, file_size in bytes, and a URL the fake serves without credentials at
//     /_covers/{token}; null when the file carries no cover. The token is the report id
//     enciphered with a key of this fake, so sharing a cover shares neither the report id (the
//     keyless GraphQL credential of the report) nor a guessable path. A cover is served only as
//     the PNG or JPEG its bytes are sniffed to be, whatever type the file declared; anything
//     else is 404.
//   - GraphQL cost limits (the specification is silent; these are the fake's choices): an
//     operation with more than 100 aliased fields, or whose cost exceeds 100,000, is refused
//     before any resolver runs, like a query that does not validate (422, one errors entry
//     saying why). Each field costs 1; stats, results, fileInfo, metadata and coverImage 10;
//     transcript 50; a list its limit (default included) times its items' cost, historicScores
//     20 times. An answer over 32 MiB is replaced by one errors entry (422). A request without
//     credentials (report(id) needs none) is limited to 100 a minute per address, the minute
//     budget of one key, answered 429 rate_limited with Retry-After like the other limits.
//   - Analysis ceilings (the specification is silent; the fake's choices): a file is measured
//     only if it has at most 2 channels (podcast audio is mono or stereo; the channels check
//     already fails anything else) and decodes to at most 12 hours. Channels are checked before
//     decoding, the duration while decoding, so a decompression bomb (a 70 KB FLAC of 2,000
//     frames of 65,535 constant samples on 8 channels, 50 minutes of audio) fails its report at
//     once, the ceiling named in the failure, instead of holding an analysis for a minute. Every
//     analysis, upload or download, stops when its 10-minute limit or Close ends its context.
//     On the real clock the analysis pool queues measurements per workspace and hands slots out
//     in turn, a workspace holding at most all slots but one, so one workspace's slow analyses
//     cannot starve another's.
//   - Connection timeouts (the fake's own server; Handler() is served as the caller likes):
//     headers within 10 s; a keep-alive connection idle for 60 s is closed; an API body must
//     arrive within 30 s and an answer be written within 2 minutes (the control API's when its
//     work is done: an Advance runs the analyses due); an upload PUT and hosted
//     audio may take as long as they keep moving, with no pause over 30 s. http.Server's
//     ReadTimeout and WriteTimeout are left unset because one figure cannot suit every route;
//     the deadlines are set per request through http.ResponseController.
//   - Every answer carries X-Content-Type-Options: nosniff; covers, hosted feeds, their audio
//     and artwork also carry Content-Security-Policy "default-src 'none'; style-src
//     'unsafe-inline'; sandbox", so no served file can run a script on the fake's origin.
//   - Analysis and the clock: on the real clock a report's audio is measured off the clock's
//     goroutine, by a pool of at most max(2, GOMAXPROCS) measurements at once (the rest queue),
//     so a long analysis delays no other timer; Close cancels queued and running measurements
//     and waits for them. On a manual clock measurements run inside Advance, in time order, as
//     before: Advance returns once the work due by the new instant is done.
//   - Refused credentials are counted per address in fixed five-minute windows; once a minute
//     of clock time at most, the records of windows that have ended are dropped, so a scan from
//     many addresses holds memory only for the windows of the last six minutes.
//   - Hosted audio is rendered once and kept in a cache of DefaultHostedAudioCache (64 MiB) by
//     default (WithHostedAudioCache; 0 turns it off): least recently downloaded first out, and
//     a rendering longer than the whole budget is streamed, never kept. The cache is keyed by
//     the SHA-256 of the synthesis spec (everything that sets the bytes: duration, rate,
//     channels, loudness, true peak, title, tags, chapters, cover); the synthesiser is
//     deterministic, so a repeat download is byte for byte the same, and an episode whose
//     values differ never meets another's bytes. Hosted episodes cannot change once published
//     (ChangeFeed changes the feed's flag and availability, not the audio).
//   - The program (cmd/fakeserver) takes -webhook-timeout, the Go option WithWebhookTimeout: the
//     time a receiver has to answer one delivery attempt, default 10s (the service's budget),
//     any Go duration above 0 (0 or less is refused rather than read as the default). It only
//     adds to the flags of fakeserver-control.md; none changed.
package fakeserver
