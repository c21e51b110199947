package fakeserver

import (
	"net/http"
	"strings"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// scriptedTranscript is the body of POST /_fake/transcripts and its answer.
type scriptedTranscript struct {
	AudioSHA256 string               `json:"audio_sha256"`
	Transcript  []transcriptLineJSON `json:"transcript"`
}

func (s *Server) handleScriptTranscript(w http.ResponseWriter, r *http.Request) {
	var body scriptedTranscript
	if !decodeBody(w, r, &body) {
		return
	}
	if body.Transcript == nil {
		writeError(w, core.ErrValidation("transcript is required: a list of {start, end, text, speaker?, confidence?}."))
		return
	}
	err := s.ScriptTranscriptBySHA256(body.AudioSHA256, transcriptOf(body.Transcript))
	body.AudioSHA256 = strings.ToLower(body.AudioSHA256)
	respond(w, http.StatusCreated, body, err)
}
