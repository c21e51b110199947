package journal

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/internal/apitime"
	"github.com/podqa/podqa-go/internal/ids"
)

// MaxRequestsLimit bounds one GET /_fake/requests answer.
const MaxRequestsLimit = 10000

// ServeRequests is the control call GET /_fake/requests: Requests over HTTP, the filter read
// from the query, each bad parameter refused with 400 validation_error naming it.
func (j *Journal) ServeRequests(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := Filter{Method: q.Get("method"), PathPrefix: q.Get("path_prefix")}
	if v := q.Get("workspace_id"); v != "" {
		id, ok := ids.Canonical(v)
		if !ok {
			httpmw.WriteError(w, core.ErrValidation("workspace_id must be a uuid."))
			return
		}
		f.WorkspaceID = id.String()
	}
	if v := q.Get("status"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 100 || n > 599 {
			httpmw.WriteError(w, core.ErrValidation("status must be an HTTP status from 100 to 599."))
			return
		}
		f.Status = n
	}
	if v := q.Get("since"); v != "" {
		t, err := apitime.ParseLenient(v)
		if err != nil {
			httpmw.WriteError(w, core.ErrValidation("since must be a date-time such as 2026-01-05T09:00:00Z."))
			return
		}
		f.Since = t
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxRequestsLimit {
			httpmw.WriteError(w, core.ErrValidation("limit must be an integer from 1 to %d.", MaxRequestsLimit))
			return
		}
		f.Limit = n
	}
	if f.Method != "" && strings.ContainsFunc(f.Method, func(c rune) bool { return c < 'A' || c > 'z' || (c > 'Z' && c < 'a') }) {
		httpmw.WriteError(w, core.ErrValidation("method must be an HTTP method such as POST."))
		return
	}
	httpmw.WriteJSON(w, http.StatusOK, map[string][]Entry{"items": j.Requests(f)})
}

// ServeClearRequests is the control call DELETE /_fake/requests: Clear over HTTP.
func (j *Journal) ServeClearRequests(w http.ResponseWriter, r *http.Request) {
	j.Clear()
	w.WriteHeader(http.StatusNoContent)
}
