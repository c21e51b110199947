package fakeserver

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/internal/apitime"
	"github.com/podqa/podqa-go/internal/ids"
)

// maxJournalLimit bounds one GET /_fake/requests answer.
const maxJournalLimit = 10000

func (s *Server) handleListRequests(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := RequestFilter{Method: q.Get("method"), PathPrefix: q.Get("path_prefix"), Limit: DefaultRequestLimit}
	if v := q.Get("workspace_id"); v != "" {
		id, ok := ids.Canonical(v)
		if !ok {
			writeError(w, core.ErrValidation("workspace_id must be a uuid."))
			return
		}
		f.WorkspaceID = id.String()
	}
	if v := q.Get("status"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 100 || n > 599 {
			writeError(w, core.ErrValidation("status must be an HTTP status from 100 to 599."))
			return
		}
		f.Status = n
	}
	if v := q.Get("since"); v != "" {
		t, err := apitime.ParseLenient(v)
		if err != nil {
			writeError(w, core.ErrValidation("since must be a date-time such as 2026-01-05T09:00:00Z."))
			return
		}
		f.Since = t
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxJournalLimit {
			writeError(w, core.ErrValidation("limit must be an integer from 1 to %d.", maxJournalLimit))
			return
		}
		f.Limit = n
	}
	if f.Method != "" && strings.ContainsFunc(f.Method, func(c rune) bool { return c < 'A' || c > 'z' || (c > 'Z' && c < 'a') }) {
		writeError(w, core.ErrValidation("method must be an HTTP method such as POST."))
		return
	}
	writeJSON(w, http.StatusOK, map[string][]JournalEntry{"items": s.Requests(f)})
}

func (s *Server) handleClearRequests(w http.ResponseWriter, r *http.Request) {
	s.ClearRequests()
	w.WriteHeader(http.StatusNoContent)
}
