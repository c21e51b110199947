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
)

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
