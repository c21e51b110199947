package fakeserver

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// transcriptScripts holds transcripts scripted by the content of the audio they belong to.
type transcriptScripts struct {
	mu    sync.RWMutex
	bySum map[[sha256.Size]byte][]TranscriptLine
}

// maxTranscriptLines bounds one scripted transcript.
const maxTranscriptLines = 100_000

func checkTranscript(lines []TranscriptLine) error {
	if len(lines) > maxTranscriptLines {
		return core.ErrValidation("A transcript may have at most %d lines.", maxTranscriptLines)
	}
	for _, line := range lines {
		if line.Start < 0 || line.End < line.Start || (line.Confidence != nil && !(*line.Confidence >= 0 && *line.Confidence <= 1)) {
			return core.ErrValidation("transcript lines need 0 <= start <= end and confidence from 0 to 1.")
		}
	}
	return nil
}

// ScriptTranscript makes audio's transcript lines: any report whose audio has exactly these
// bytes (an upload, or audio at any URL) gets them from the fake's "transcription", unless the
// audio is a hosted episode with its own. It returns the audio's SHA-256 in hex. Scripting the
// same audio again replaces the transcript for reports analysed afterwards.
func (s *Server) ScriptTranscript(audio []byte, lines []TranscriptLine) (_ string, err error) {
	defer apiError(&err)
	sum := sha256.Sum256(audio)
	hexSum := hex.EncodeToString(sum[:])
	if err := s.ScriptTranscriptBySHA256(hexSum, lines); err != nil {
		return "", err
	}
	return hexSum, nil
}

// ScriptTranscriptBySHA256 is ScriptTranscript for audio known by its SHA-256 (64 hex digits).
func (s *Server) ScriptTranscriptBySHA256(audioSHA256 string, lines []TranscriptLine) (err error) {
	defer apiError(&err)
	raw, err := hex.DecodeString(strings.ToLower(audioSHA256))
	if err != nil || len(raw) != sha256.Size {
		return core.ErrValidation("audio_sha256 must be the SHA-256 of the audio's bytes as 64 hexadecimal digits.")
	}
	if err := checkTranscript(lines); err != nil {
		return err
	}
	var sum [sha256.Size]byte
	copy(sum[:], raw)
	kept := append([]TranscriptLine{}, lines...) // non-nil: an empty script is an empty transcript
	s.scripts.mu.Lock()
	defer s.scripts.mu.Unlock()
	if s.scripts.bySum == nil {
		s.scripts.bySum = map[[sha256.Size]byte][]TranscriptLine{}
	}
	s.scripts.bySum[sum] = kept
	return nil
}

// transcriptByContent returns the transcript scripted for audio with this SHA-256.
func (s *Server) transcriptByContent(sum [sha256.Size]byte) ([]core.TranscriptLine, bool) {
	s.scripts.mu.RLock()
	defer s.scripts.mu.RUnlock()
	script, ok := s.scripts.bySum[sum]
	if !ok {
		return nil, false
	}
	return coreLines(script), true
}

func coreLines(script []TranscriptLine) []core.TranscriptLine {
	lines := make([]core.TranscriptLine, len(script))
	for i, l := range script {
		lines[i] = core.TranscriptLine{Start: millis(l.Start), End: millis(l.End), Text: l.Text, Speaker: l.Speaker, Confidence: l.Confidence}
	}
	return lines
}
