package dashboard

import (
	"net/http"
	"strings"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// ServeAdvance is the clock's advance form of every page: it moves a manual clock by the
// form's Go duration ("90s", "1h30m"), at most core.MaxAdvance as from the control API, and
// returns to the page it was sent from.
func (ui *UI) ServeAdvance(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, MaxForm)
	by := strings.TrimSpace(r.PostFormValue("by"))
	d, err := time.ParseDuration(by)
	if err != nil || d <= 0 || d > core.MaxAdvance {
		ui.RenderError(w, r, core.ErrValidation("Advance by a duration such as 90s or 1h30m, more than 0 and at most %s (got %q).", core.MaxAdvance, by))
		return
	}
	if _, err := ui.deps.Advance(d); err != nil {
		ui.RenderError(w, r, err)
		return
	}
	http.Redirect(w, r, LocalPath(r.PostFormValue("back")), http.StatusSeeOther)
}
