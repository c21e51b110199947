package core

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"time"
)

// ScriptLine is a line of a scripted transcript as the Go API and the control API give it:
// offsets from the start of the audio. The core keeps a transcript in whole milliseconds
// (TranscriptLine); ScriptedLines converts.
type ScriptLine struct {
	Start      time.Duration
	End        time.Duration
	Text       string
	Speaker    *string
	Confidence *float64
}

// MaxScriptLines bounds one scripted transcript.
const MaxScriptLines = 100_000

// CheckScript refuses a transcript that is too long or has a line out of order or a confidence
// outside 0 to 1.
func CheckScript(lines []ScriptLine) error {
	if len(lines) > MaxScriptLines {
		return ErrValidation("A transcript may have at most %d lines.", MaxScriptLines)
	}
	for _, line := range lines {
		if line.Start < 0 || line.End < line.Start || (line.Confidence != nil && !(*line.Confidence >= 0 && *line.Confidence <= 1)) {
			return ErrValidation("transcript lines need 0 <= start <= end and confidence from 0 to 1.")
		}
	}
	return nil
}

// ScriptedLines is script as the core keeps a transcript, in whole milliseconds.
func ScriptedLines(script []ScriptLine) []TranscriptLine {
	lines := make([]TranscriptLine, len(script))
	for i, l := range script {
		lines[i] = TranscriptLine{Start: int(l.Start.Milliseconds()), End: int(l.End.Milliseconds()), Text: l.Text, Speaker: l.Speaker, Confidence: l.Confidence}
	}
	return lines
}

// Scripts holds transcripts scripted by the content of the audio they belong to: what the
// Go API's ScriptTranscript and POST /_fake/transcripts set and the fake's "transcription"
// reads. The zero value holds none.
type Scripts struct {
	mu    sync.RWMutex
	bySum map[[sha256.Size]byte][]ScriptLine
}

// Script makes lines the transcript of the audio whose SHA-256 is audioSHA256 (64 hex digits,
// either case), replacing any scripted before.
func (s *Scripts) Script(audioSHA256 string, lines []ScriptLine) error {
	raw, err := hex.DecodeString(strings.ToLower(audioSHA256))
	if err != nil || len(raw) != sha256.Size {
		return ErrValidation("audio_sha256 must be the SHA-256 of the audio's bytes as 64 hexadecimal digits.")
	}
	if err := CheckScript(lines); err != nil {
		return err
	}
	var sum [sha256.Size]byte
	copy(sum[:], raw)
	kept := append([]ScriptLine{}, lines...) // non-nil: an empty script is an empty transcript
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bySum == nil {
		s.bySum = map[[sha256.Size]byte][]ScriptLine{}
	}
	s.bySum[sum] = kept
	return nil
}

// Transcript is the transcript scripted for audio with this SHA-256.
func (s *Scripts) Transcript(sum [sha256.Size]byte) ([]TranscriptLine, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	script, ok := s.bySum[sum]
	if !ok {
		return nil, false
	}
	return ScriptedLines(script), true
}

// Clear forgets every scripted transcript.
func (s *Scripts) Clear() {
	s.mu.Lock()
	s.bySum = nil
	s.mu.Unlock()
}
