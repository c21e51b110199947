package fakeserver

import (
	"log/slog"
	"sync"
	"time"
)

// startState is what Reset rebuilds: the generator's state once New had drawn its own values
// (before any fixtures), and, once SeedDemo has run, the generator's state when it ran.
type startState struct {
	mu   sync.Mutex
	rand []byte
	// demo is the generator's state when SeedDemo first ran; nil until then.
	demo []byte
	// fixtureIDs is what the fixtures' refs became.
	fixtureIDs FixtureIDs
}

// Reset returns the fake to its start state and returns the clock's instant: every workspace,
// report, feed, upload, fault, delivery, email, scripted transcript and journal entry goes, the
// fixtures (WithFixtures) and the Demo workspace (if SeedDemo made it) come back with the same
// ids and keys as at start, and a manual clock is back at its start instant. Work in flight
// (a measurement, a webhook attempt) records nothing into the new state. The admin token, the
// upload URL signing key and the options stay.
//
// The ids and keys of the start state repeat because the generator (see WithSeed) is rewound to
// where it stood when they were first made; with a seed, a suite that runs the same calls after
// a reset gets the same answers. Requests sent while Reset runs may see either state.
func (s *Server) Reset() (_ time.Time, err error) {
	defer apiError(&err)
	s.start.mu.Lock()
	defer s.start.mu.Unlock()
	s.core.Reset(s.opts.start)
	s.host.Reset()
	s.scripts.mu.Lock()
	s.scripts.bySum = nil
	s.scripts.mu.Unlock()
	s.renderCache.mu.Lock()
	s.renderCache.entries = nil
	s.renderCache.mu.Unlock()
	s.faults.clear()
	s.journal.clear()
	s.core.FlushNotices() // what the old state noticed goes before the record is emptied
	s.events.clear()

	if err := s.rand.Restore(s.start.rand); err != nil {
		return time.Time{}, err
	}
	if err := s.loadStartFixtures(); err != nil {
		return time.Time{}, err
	}
	if s.start.demo != nil {
		if err := s.rand.Restore(s.start.demo); err != nil {
			return time.Time{}, err
		}
		if _, err := s.seedDemo(); err != nil {
			return time.Time{}, err
		}
	}
	s.events.raise(s.Now(), slog.LevelInfo, EventReset, "fake reset", "", "", slog.String("now", fakeTime(s.Now())))
	return s.Now(), nil
}
