// Package wait is the one poll-until-final loop of the SDK: client.WaitForReport and
// graphqlclient.WaitForLatestReport are both this loop, each with its own poll and pause rule,
// so that the ceiling, the waiting out of a Retry-After and the last pause that ends at the
// ceiling are written once.
package wait

import (
	"context"
	"time"
)

// Clock tells the time and sleeps; client.Clock satisfies it.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

// Loop is one wait: what it polls, when a value ends it, how long it pauses in between and how
// its failures read. Every field but Progress is required.
type Loop[T any] struct {
	// Clock reads the time and sleeps the pauses.
	Clock Clock
	// Ceiling is how long the loop waits in all, counted from the start of Run.
	Ceiling time.Duration
	// Poll reads the value once.
	Poll func(ctx context.Context) (T, error)
	// Final reports whether v ends the wait.
	Final func(v T) bool
	// Pause sizes the pause after a poll of v that is not final. It is called once per such
	// poll, so it may keep state (a count of polls without an estimate, say).
	Pause func(v T) time.Duration
	// RetryAfter says whether a poll's error is a refusal to wait out, and for how long; any
	// other error ends the loop and is returned as it is.
	RetryAfter func(err error) (time.Duration, bool)
	// Progress, when set, is called with every value polled, the final one included.
	Progress func(v T)
	// Timeout is the error Run returns at the ceiling. last is the last value polled (polled is
	// false when no poll succeeded) and pollErr the error of the last poll, nil if it succeeded.
	Timeout func(last T, polled bool, pollErr error) error
	// Interrupted is the error Run returns when a pause ends early with err (ctx ended).
	Interrupted func(err error) error
}

// Run polls until Final, an error RetryAfter refuses, the ceiling or the end of ctx. It
// returns the final value with a nil error; otherwise the last value polled (the zero T if
// none) with the poll's error, Timeout's or Interrupted's. Each pause is Pause's (or the
// Retry-After), shortened so that the last one ends at the ceiling, for one more poll there.
func (l *Loop[T]) Run(ctx context.Context) (T, error) {
	deadline := l.Clock.Now().Add(l.Ceiling)
	var last T
	polled := false
	for {
		v, err := l.Poll(ctx)
		var pause time.Duration
		if err != nil {
			ra, ok := l.RetryAfter(err)
			if !ok {
				return last, err
			}
			pause = ra
		} else {
			last, polled = v, true
			if l.Progress != nil {
				l.Progress(v)
			}
			if l.Final(v) {
				return v, nil
			}
			pause = l.Pause(v)
		}
		left := deadline.Sub(l.Clock.Now())
		if left <= 0 {
			return last, l.Timeout(last, polled, err)
		}
		if err := l.Clock.Sleep(ctx, min(pause, left)); err != nil {
			return last, l.Interrupted(err)
		}
	}
}
