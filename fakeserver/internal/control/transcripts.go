package control

import (
	"net/http"
	"strings"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// TranscriptLineJSON is a line of a scripted transcript as the control API and fixtures spell
// it: offsets in milliseconds from the start.
type TranscriptLineJSON struct {
	Start      int64    `json:"start"`
	End        int64    `json:"end"`
	Text       string   `json:"text"`
	Speaker    *string  `json:"speaker,omitempty"`
	Confidence *float64 `json:"confidence,omitempty"`
}

// ScriptOf is lines as the core takes a script; nil stays nil.
func ScriptOf(lines []TranscriptLineJSON) []core.ScriptLine {
	if lines == nil {
		return nil
	}
	out := make([]core.ScriptLine, len(lines))
	for i, l := range lines {
		out[i] = core.ScriptLine{
			Start: httpmw.Scaled(l.Start, time.Millisecond), End: httpmw.Scaled(l.End, time.Millisecond),
			Text: l.Text, Speaker: l.Speaker, Confidence: l.Confidence,
		}
	}
	return out
}

// scriptedTranscript is the body of POST /_fake/transcripts and its answer.
type scriptedTranscript struct {
	AudioSHA256 string               `json:"audio_sha256"`
	Transcript  []TranscriptLineJSON `json:"transcript"`
}

// ServeScriptTranscript is POST /_fake/transcripts: Server.ScriptTranscriptBySHA256 over HTTP
// (core.Scripts), answering the script with the sum in lower case.
func (a *API) ServeScriptTranscript(w http.ResponseWriter, r *http.Request) {
	var body scriptedTranscript
	if !httpmw.DecodeBody(w, r, &body) {
		return
	}
	if body.Transcript == nil {
		httpmw.WriteError(w, core.ErrValidation("transcript is required: a list of {start, end, text, speaker?, confidence?}."))
		return
	}
	err := a.scripts.Script(body.AudioSHA256, ScriptOf(body.Transcript))
	body.AudioSHA256 = strings.ToLower(body.AudioSHA256)
	httpmw.Respond(w, http.StatusCreated, body, err)
}
