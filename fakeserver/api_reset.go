package fakeserver

import (
	"log/slog"
	"sync"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/seeded"
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
// (a measurement, a webhook attempt, an upload's body, a download) records nothing into the new
// state. The admin token, the upload URL signing key and the options stay.
//
// The ids and keys of the start state repeat because the generator (see WithSeed) is rewound to
// where it stood when they were first made; with a seed, a suite that runs the same calls after
// a reset gets the same answers. The new state is built aside while the old one goes on
// serving, then put in its place at once: a request sees the old state or the new, never one
// half rebuilt (a fixture key never answers 401). A request let in before the reset whose
// operation runs after it is answered as the new state would answer it (401 for a key only the
// old state held), and the old state's webhook attempts still on the wire are cancelled: Reset
// returns once they have ended.
func (s *Server) Reset() (_ time.Time, err error) {
	defer apiError(&err)
	return s.reset()
}

// reset is Reset with its refusals as the HTTP answers below the facade read them (answerOf),
// for POST /_fake/reset (control.Deps.Reset).
func (s *Server) reset() (_ time.Time, err error) {
	defer func() { err = answerOf(err) }()
	s.start.mu.Lock()
	defer s.start.mu.Unlock()

	// The start state mints from a generator of its own, rewound to the start, so that requests
	// still served by the old state neither draw from it nor see their generator rewound.
	src := seeded.Random()
	if err := src.Restore(s.start.rand); err != nil {
		return time.Time{}, err
	}
	b := s.stagingView(s.core.Stage(s.opts.start, src), src)
	if err := b.loadStartFixtures(); err != nil {
		return time.Time{}, err
	}
	if s.start.demo != nil {
		if err := src.Restore(s.start.demo); err != nil {
			return time.Time{}, err
		}
		if _, err := b.seedDemo(); err != nil {
			return time.Time{}, err
		}
	}
	next := src.Save()
	var restored error
	err = s.core.Adopt(b.core, s.opts.start, func() {
		s.host.Swap(b.stagedFeeds)
		restored = s.rand.Restore(next)
		s.scripts.Clear()
		s.rest.ForgetRenderings()
		s.faults.Clear()
		s.journal.Clear()
		s.core.FlushNotices() // what the old state noticed goes before the record is emptied
		s.events.clear()
	})
	if err == nil {
		err = restored
	}
	if err != nil {
		return time.Time{}, err
	}
	s.start.fixtureIDs = b.start.fixtureIDs
	s.events.raise(s.Now(), slog.LevelInfo, EventReset, "fake reset", "", "", slog.String("now", fakeTime(s.Now())))
	return s.Now(), nil
}

// stagingView is the server as the fixtures loader and seedDemo see it while Reset builds the
// start state aside: its core is the staged one, its hosted feeds are staged, and it mints from
// src. Nothing else may use it; it serves no request.
func (s *Server) stagingView(staged *core.Core, src *seeded.Source) *Server {
	return &Server{
		opts:        s.opts,
		clock:       staged.Clock(),
		core:        staged,
		faults:      s.faults,
		log:         s.log,
		url:         s.url,
		uploadKey:   s.uploadKey,
		host:        s.host,
		stagedFeeds: s.host.Stage(),
		hooks:       s.hooks,
		journal:     s.journal,
		events:      s.events,
		rand:        src,
	}
}
