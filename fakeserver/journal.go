package fakeserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/internal/apitime"
)

// DefaultJournalSize is how many requests the request journal keeps unless WithJournalSize says
// otherwise; the oldest are dropped first.
const DefaultJournalSize = 10000

// MaxJournalBody is how much of a request body a journal entry keeps; the rest is cut and the
// entry marked truncated.
const MaxJournalBody = 64 << 10

// WithJournalSize sets how many requests the request journal keeps (default DefaultJournalSize);
// 0 turns the journal off.
func WithJournalSize(n int) Option { return func(o *options) { o.journalSize = n } }

// JournalEntry is one request the code under test sent to the REST API, GraphQL, the webhook
// subscription calls or an upload URL, as the request journal keeps it. Credentials are never
// kept whole: the Authorization header and cookies not at all, API keys and webhook secrets in
// the body or query only masked.
type JournalEntry struct {
	ID string `json:"id"`
	// At is the fake-clock instant the request arrived.
	At     time.Time `json:"-"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	// Query is the raw query string, credentials masked.
	Query  string `json:"query"`
	Status int    `json:"status"`
	// WorkspaceID, APIKeyID and MaskedKey name the working key (or, WorkspaceID only, the browser
	// session) the request carried; empty when it carried none that works.
	WorkspaceID string `json:"-"`
	APIKeyID    string `json:"-"`
	MaskedKey   string `json:"-"`
	// RequestContentType is the Content-Type header as sent.
	RequestContentType string `json:"request_content_type"`
	// RequestBody is the body as text (at most MaxJournalBody bytes, credentials masked); empty
	// for a body that is not UTF-8 text, such as uploaded audio.
	RequestBody          string `json:"request_body"`
	RequestBodyTruncated bool   `json:"request_body_truncated"`
	// ErrorCode is the code of an error answer in the REST envelope (or of the first GraphQL
	// error); empty otherwise.
	ErrorCode string `json:"-"`
	// Duration is how long the fake took to answer, on the wall clock.
	Duration time.Duration `json:"-"`
}

// MarshalJSON writes the entry in the control API's shape: nulls for what is absent.
func (e JournalEntry) MarshalJSON() ([]byte, error) {
	type plain JournalEntry
	return json.Marshal(struct {
		plain
		At          string  `json:"at"`
		WorkspaceID *string `json:"workspace_id"`
		APIKeyID    *string `json:"api_key_id"`
		MaskedKey   *string `json:"masked_key"`
		ErrorCode   *string `json:"error_code"`
		DurationMs  float64 `json:"duration_ms"`
	}{
		plain:       plain(e),
		At:          apitime.Format(e.At),
		WorkspaceID: nullable(e.WorkspaceID),
		APIKeyID:    nullable(e.APIKeyID),
		MaskedKey:   nullable(e.MaskedKey),
		ErrorCode:   nullable(e.ErrorCode),
		DurationMs:  float64(e.Duration.Microseconds()) / 1000,
	})
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// RequestFilter selects journal entries; zero fields match everything.
type RequestFilter struct {
	WorkspaceID string
	// Method matches one HTTP method, in any case.
	Method string
	// PathPrefix matches paths that begin with it.
	PathPrefix string
	// Status matches one answer status.
	Status int
	// Since keeps entries at or after this fake-clock instant.
	Since time.Time
	// Limit is the most entries returned (default 100).
	Limit int
}

// DefaultRequestLimit is how many entries Requests returns when the filter sets no Limit.
const DefaultRequestLimit = 100

// Requests returns the journal entries f selects, newest first.
func (s *Server) Requests(f RequestFilter) []JournalEntry {
	if f.Limit <= 0 {
		f.Limit = DefaultRequestLimit
	}
	f.Method = strings.ToUpper(f.Method)
	return s.journal.list(f)
}

// ClearRequests empties the request journal.
func (s *Server) ClearRequests() { s.journal.clear() }

// journal is a ring of the most recent requests.
type journal struct {
	mu      sync.Mutex
	entries []JournalEntry // ring buffer of cap size
	next    int            // index the next entry goes to
	full    bool
	seq     uint64
	// ns makes entry ids: the entry's sequence number hashed under it.
	ns uuid.UUID
}

func newJournal(size int, ns uuid.UUID) *journal {
	return &journal{entries: make([]JournalEntry, size), ns: ns}
}

func (j *journal) enabled() bool { return j != nil && len(j.entries) > 0 }

func (j *journal) add(e JournalEntry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	e.ID = uuid.NewSHA1(j.ns, strconv.AppendUint(nil, j.seq, 10)).String()
	j.entries[j.next] = e
	j.next++
	if j.next == len(j.entries) {
		j.next, j.full = 0, true
	}
}

func (j *journal) clear() {
	if !j.enabled() {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	clear(j.entries)
	j.next, j.full, j.seq = 0, false, 0
}

func (j *journal) list(f RequestFilter) []JournalEntry {
	out := []JournalEntry{}
	if !j.enabled() {
		return out
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	n := j.next
	if j.full {
		n = len(j.entries)
	}
	for i := 0; i < n && len(out) < f.Limit; i++ {
		e := &j.entries[(j.next-1-i+len(j.entries))%len(j.entries)]
		if f.matches(e) {
			out = append(out, *e)
		}
	}
	return out
}

func (f RequestFilter) matches(e *JournalEntry) bool {
	return (f.WorkspaceID == "" || e.WorkspaceID == f.WorkspaceID) &&
		(f.Method == "" || e.Method == f.Method) &&
		strings.HasPrefix(e.Path, f.PathPrefix) &&
		(f.Status == 0 || e.Status == f.Status) &&
		(f.Since.IsZero() || !e.At.Before(f.Since))
}

// secrets finds credentials in bodies and queries: API keys (with their prefix), webhook
// secrets and a sessionid given as a parameter.
var secrets = regexp.MustCompile(`podqa_api_[A-Za-z0-9_\-]+|whsec_[A-Za-z0-9+/=_\-]+|(sessionid=)[^&\s"]+`)

func maskSecrets(s string) string {
	if !strings.Contains(s, "podqa_api_") && !strings.Contains(s, "whsec_") && !strings.Contains(s, "sessionid=") {
		return s
	}
	return secrets.ReplaceAllStringFunc(s, func(m string) string {
		switch {
		case strings.HasPrefix(m, "podqa_api_"):
			return core.MaskKey(m)
		case strings.HasPrefix(m, "whsec_"):
			return "whsec_…"
		default:
			return "sessionid=…"
		}
	})
}

// journalBody keeps the first MaxJournalBody bytes the handler reads from a request body.
type journalBody struct {
	io.ReadCloser
	buf       bytes.Buffer
	truncated bool
}

func (b *journalBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if room := MaxJournalBody - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(n, room)])
		if n > room {
			b.truncated = true
		}
	} else if n > 0 {
		b.truncated = true
	}
	return n, err
}

// journalRecorder keeps the status and, for an error answer, the start of the body (to read its
// error code).
type journalRecorder struct {
	statusRecorder
	// peekOK also keeps the start of a 200 answer (GraphQL reports errors in one).
	peekOK  bool
	errBody []byte
}

const maxErrorPeek = 4 << 10

func (r *journalRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if (r.status >= 400 || (r.peekOK && r.status == http.StatusOK)) && len(r.errBody) < maxErrorPeek {
		r.errBody = append(r.errBody, b[:min(len(b), maxErrorPeek-len(r.errBody))]...)
	}
	return r.statusRecorder.Write(b)
}

// errorCode reads the code of the REST envelope, or of the first GraphQL error.
func answerErrorCode(status int, body []byte) string {
	if !bytes.Contains(body, []byte(`"code"`)) {
		return ""
	}
	var env struct {
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
		Errors []struct {
			Extensions struct {
				Code string `json:"code"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	if json.Unmarshal(body, &env) != nil {
		return ""
	}
	if status >= 400 && env.Error != nil {
		return env.Error.Code
	}
	if len(env.Errors) > 0 {
		return env.Errors[0].Extensions.Code
	}
	return ""
}

// journaled records every request to next in the journal.
func (s *Server) journaled(next http.Handler) http.Handler {
	if !s.journal.enabled() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		at := s.clock.Now()
		var body *journalBody
		if r.Body != nil && r.Body != http.NoBody {
			body = &journalBody{ReadCloser: r.Body}
			r.Body = body
		}
		rec := &journalRecorder{statusRecorder: statusRecorder{ResponseWriter: w}, peekOK: r.URL.Path == "/api/graphql"}
		next.ServeHTTP(rec, r)
		e := JournalEntry{
			At:                 at,
			Method:             r.Method,
			Path:               r.URL.Path,
			Query:              maskSecrets(r.URL.RawQuery),
			Status:             rec.status,
			RequestContentType: r.Header.Get("Content-Type"),
			Duration:           time.Since(began),
		}
		if e.Status == 0 {
			e.Status = http.StatusOK
		}
		if body != nil {
			if utf8.Valid(body.buf.Bytes()) || body.truncated {
				text := body.buf.String()
				if body.truncated {
					text = strings.ToValidUTF8(text, "")
				}
				if utf8.ValidString(text) {
					e.RequestBody = maskSecrets(text)
				}
			}
			e.RequestBodyTruncated = body.truncated
		}
		e.ErrorCode = answerErrorCode(e.Status, rec.errBody)
		s.identify(r, &e)
		s.journal.add(e)
	})
}

// identify fills in the workspace and key a request's credential names, without touching the
// key's last use or the rate limits.
func (s *Server) identify(r *http.Request, e *JournalEntry) {
	var cred core.Credential
	var ok bool
	if header := r.Header.Get("Authorization"); header != "" {
		scheme, token, found := strings.Cut(header, " ")
		if !found || !strings.EqualFold(scheme, "Bearer") {
			return
		}
		cred, ok = s.core.PeekKey(strings.TrimSpace(token))
	} else if cookie, err := r.Cookie("sessionid"); err == nil {
		cred, ok = s.core.PeekSession(cookie.Value)
	}
	if !ok {
		return
	}
	e.WorkspaceID = cred.Workspace.String()
	if cred.Key != uuid.Nil {
		e.APIKeyID, e.MaskedKey = cred.Key.String(), cred.MaskedKey
	}
}

// maxJournalLimit bounds one GET /_fake/requests answer.
const maxJournalLimit = 10000

func (s *Server) handleListRequests(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := RequestFilter{Method: q.Get("method"), PathPrefix: q.Get("path_prefix"), Limit: DefaultRequestLimit}
	if v := q.Get("workspace_id"); v != "" {
		id, err := uuid.Parse(v)
		if err != nil || len(v) != 36 {
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
