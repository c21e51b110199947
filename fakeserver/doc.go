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
// schema.graphql), the clock, fault injection and the control API. Every call of the service the
// fake does not serve yet answers 501 with the error code not_implemented, never a made-up
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
//   - score (percent) is rounded to the nearest whole percent.
//   - Upload URLs are HMAC-signed URLs on the fake (/_uploads/{id}); a tampered or expired URL is
//     403 forbidden, a wrong Content-Type or an Authorization header 400. One file may be at
//     most 512 MiB, since the fake keeps uploads in memory. An upload report has no audio_url.
//   - Timestamps are always written as YYYY-MM-DDTHH:MM:SS.ffffff+00:00.
//   - Hosted feeds (POST /_fake/feeds, or HostFeed) are served at /_feeds/{id}/feed.rss with
//     their audio under /_feeds/{id}/audio/, keyless, like any podcast host. Their episodes'
//     audio is a 16-bit WAV (stereo unless channels says 1) of speech-like sound synthesised on each download to measure at the
//     requested loudness (default −16 LUFS) and true peak (default at most −1 dBTP); an episode
//     whose loudness and true peak no speech can have together is refused when it is hosted. An
//     episode without published_on is dated the fake clock's day.
//   - Audio is measured by the fake's own engine, which decodes WAV (PCM 8 to 32 bits and float),
//     MP3 (MPEG-1/2 layer III), FLAC, Ogg Vorbis and Ogg Opus, recognised by their leading bytes
//     (the file name only breaks ties). MP4/M4A is probed for duration, channels, rate, tags and
//     cover but AAC is not decoded, so such a report fails with "AAC audio in MP4/M4A is probed,
//     not decoded"; so do undecodable files, with the decoder's reason. Durations are the
//     decoded length: MP3 encoder delay and padding (LAME tag) and Opus pre-skip are removed as
//     ffmpeg's decoders do (ffprobe 5.1's duration field still counts them).
//   - A report's transcript is the one scripted for its hosted episode, with speakers renamed
//     "Speaker 1", "Speaker 2"... in order of first appearance; other audio has none (null).
//   - The checks of the built-in Podcast standard so far: loudness_lufs (−16 ±1 LUFS; mono −19
//     ±1), peak (true peak at most −1 dBTP), and explicit_flag for feed reports whose feed's flag
//     is known (passing while no transcript hit counts).
//   - WithoutRateLimits turns the three limits off for load tests; nothing else changes.
package fakeserver
