package fakeserver

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// transcriptScripts holds transcripts scripted by the content of the audio they belong to
// (core.Scripts, which POST /_fake/transcripts sets too).
type transcriptScripts = core.Scripts

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
	return s.scripts.Script(audioSHA256, scriptLines(lines))
}

// transcriptByContent returns the transcript scripted for audio with this SHA-256.
func (s *Server) transcriptByContent(sum [sha256.Size]byte) ([]core.TranscriptLine, bool) {
	return s.scripts.Transcript(sum)
}

// scriptLines is lines as the core takes a script; nil stays nil.
func scriptLines(lines []TranscriptLine) []core.ScriptLine {
	if lines == nil {
		return nil
	}
	out := make([]core.ScriptLine, len(lines))
	for i, l := range lines {
		out[i] = core.ScriptLine(l)
	}
	return out
}

func coreLines(script []TranscriptLine) []core.TranscriptLine {
	return core.ScriptedLines(scriptLines(script))
}
