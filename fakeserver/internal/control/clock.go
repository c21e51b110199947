package control

import (
	"math"
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/internal/apitime"
)

// clockJSON is the fake's time as GET /_fake/clock and POST /_fake/clock/advance answer it.
type clockJSON struct {
	Now string `json:"now"`
}

// ServeGetClock is GET /_fake/clock: Server.Now over HTTP.
func (a *API) ServeGetClock(w http.ResponseWriter, r *http.Request) {
	httpmw.Respond(w, http.StatusOK, clockJSON{Now: apitime.Format(a.now())}, nil)
}

// ServeAdvance is POST /_fake/clock/advance: Server.Advance over HTTP, by a number of seconds
// from 0 to core.MaxAdvance, answering the new instant.
func (a *API) ServeAdvance(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Seconds *float64 `json:"seconds"`
	}
	if !httpmw.DecodeBody(w, r, &body) {
		return
	}
	if body.Seconds == nil || math.IsNaN(*body.Seconds) || *body.Seconds < 0 || *body.Seconds > core.MaxAdvance.Seconds() {
		httpmw.WriteError(w, core.ErrValidation("seconds must be a number from 0 to %d.", int64(core.MaxAdvance.Seconds())))
		return
	}
	now, err := a.advance(time.Duration(*body.Seconds * float64(time.Second)))
	httpmw.Respond(w, http.StatusOK, clockJSON{Now: apitime.Format(now)}, err)
}
