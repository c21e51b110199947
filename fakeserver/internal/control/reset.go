package control

import (
	"net/http"

	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/internal/apitime"
)

// ServeReset is POST /_fake/reset: Server.Reset over HTTP (Deps.Reset), answering the clock's
// instant after it.
func (a *API) ServeReset(w http.ResponseWriter, r *http.Request) {
	now, err := a.reset()
	httpmw.Respond(w, http.StatusOK, struct {
		Now string `json:"now"`
	}{Now: apitime.Format(now)}, err)
}
