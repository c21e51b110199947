package fakeserver

// WithSeed makes every id, API key, session token, webhook secret, webhook-id, upload URL
// signature and the admin token (unless WithAdminToken names one) the fake mints follow from
// seed: two fakes with the same seed, clock start, clock mode and sequence of calls answer byte
// for byte the same, so suites can keep golden files. Without it the values are random.
// Requests that run concurrently mint in whatever order they are served; send them one after
// another where the answers must repeat.
func WithSeed(seed uint64) Option {
	return func(o *options) { o.seed, o.seeded = seed, true }
}
