package hosted

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// Hosting an episode costs work that depends on its values alone: planning the synthesis and,
// for an MP3, calibrating it (a few encodes of an excerpt). The host keeps what that work found,
// by the episode's values, across Reset, so that a reset that hosts the same fixtures again
// costs no synthesis, and the audio itself is rendered on its first download.

// maxPrepared bounds how many episodes' preparations the host remembers.
const maxPrepared = 4096

// preparation is what hosting an episode found: the synthesiser's target and the file's length,
// or why the episode cannot be hosted.
type preparation struct {
	synthPeak *float64
	length    int64
	err       error
}

// preparedMemo remembers preparations by the episode's values.
type preparedMemo struct {
	mu    sync.Mutex
	m     map[audioKey]preparation
	count atomic.Int64 // preparations made, not remembered
}

// prepare checks e, applying its defaults and calibration, and returns its audio's length,
// from the memo when an episode of the same values was prepared before.
func (h *Host) prepare(e *Episode, feedTitle string) (int64, error) {
	if err := checkValues(e, feedTitle); err != nil {
		return 0, err
	}
	key := preparedKey(*e)
	h.prepared.mu.Lock()
	p, ok := h.prepared.m[key]
	h.prepared.mu.Unlock()
	if !ok {
		h.prepared.count.Add(1)
		p.err = checkAudio(e)
		if p.err == nil {
			p.synthPeak = e.synthPeak
			p.length, p.err = audioLength(*e)
		}
		h.prepared.mu.Lock()
		if h.prepared.m == nil {
			h.prepared.m = map[audioKey]preparation{}
		}
		if len(h.prepared.m) >= maxPrepared {
			for k := range h.prepared.m { // forget one: the memo only saves work
				delete(h.prepared.m, k)
				break
			}
		}
		h.prepared.m[key] = p
		h.prepared.mu.Unlock()
	}
	e.synthPeak = p.synthPeak
	return p.length, p.err
}

// Preparations returns how many episodes the host has prepared (planned, and calibrated when
// MP3) rather than found in its memo: the work hosting has cost, for tests.
func (h *Host) Preparations() int64 { return h.prepared.count.Load() }

// preparedKey names an episode's preparation by everything it depends on: the values that set
// the audio (before calibration) and whether the audio is the undecodable stand-in.
func preparedKey(e Episode) audioKey {
	e.synthPeak = nil
	k := audioKeyOf(e)
	if e.FailAnalysis {
		k = sha256.Sum256(append(k[:], "fail_analysis"...))
	}
	return k
}

// EpisodeError is a refused episode of a feed: its place in the feed (-1 when it was added on
// its own) and title, and why. It unwraps to a *core.Error whose message names the episode.
type EpisodeError struct {
	Index int
	Title string
	// Err is the refusal, without the episode's name.
	Err   error
	named error
}

func episodeErr(index int, title string, err error) error {
	var ce *core.Error
	if !errors.As(err, &ce) {
		return err
	}
	name := fmt.Sprintf("Episode %q", title)
	if index >= 0 {
		name = fmt.Sprintf("Episode %d (%q)", index, title)
	}
	return &EpisodeError{Index: index, Title: title, Err: err, named: &core.Error{Code: ce.Code, Message: name + ": " + ce.Message, RetryAfter: ce.RetryAfter}}
}

func (e *EpisodeError) Error() string { return e.named.Error() }

// Unwrap returns the refusal with the episode named.
func (e *EpisodeError) Unwrap() error { return e.named }
