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
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// journal is a ring of the most recent requests, bounded in entries and in bytes held.
type journal struct {
	mu sync.Mutex
	// size is the most entries kept; entries grows to it as requests come.
	size    int
	entries []JournalEntry
	head    int // index of the oldest entry
	count   int
	held    int // bytes the entries hold, as entryBytes counts them
	budget  int
	seq     uint64
	// epoch counts clears: a request begun before one is not kept after it, since it was
	// served by the state the clear (a reset) replaced.
	// It changes under mu and is read without it when a request begins (began).
	epoch atomic.Uint64
	// ns makes entry ids: the entry's sequence number hashed under it. The entries in the ring
	// are numbered seq-count+1 to seq, oldest first.
	ns uuid.UUID
}

// journalStartEntries is the ring's first allocation, made by the first entry; it doubles up
// to the journal's size. A fake whose API is never called holds no ring.
const journalStartEntries = 8

func newJournal(size int, ns uuid.UUID) *journal {
	return &journal{size: size, budget: MaxJournalBytes, ns: ns}
}

func (j *journal) enabled() bool { return j != nil && j.size > 0 }

// entryBytes is what an entry holds: its strings and a fixed part for the rest.
func entryBytes(e *JournalEntry) int {
	const fixed = 256 // the struct, its id and the workspace and key ids
	return fixed + len(e.Path) + len(e.Query) + len(e.RequestContentType) + len(e.RequestBody) + len(e.ErrorCode)
}

// began returns the epoch a request begins in, for add.
func (j *journal) began() uint64 {
	return j.epoch.Load()
}

// add keeps e, of a request begun in epoch, unless the journal was cleared since.
func (j *journal) add(epoch uint64, e JournalEntry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if epoch != j.epoch.Load() {
		return
	}
	// The id is made when the entry is listed (entryID), not here on every request's path.
	j.seq++
	n := entryBytes(&e)
	for j.count > 0 && (j.count == j.size || j.held+n > j.budget) {
		j.dropOldest()
	}
	if j.count == len(j.entries) {
		grown := make([]JournalEntry, min(max(2*len(j.entries), journalStartEntries), j.size))
		for i := range j.count {
			grown[i] = j.entries[(j.head+i)%len(j.entries)]
		}
		j.entries, j.head = grown, 0
	}
	j.entries[(j.head+j.count)%len(j.entries)] = e
	j.count++
	j.held += n
}

func (j *journal) dropOldest() {
	j.held -= entryBytes(&j.entries[j.head])
	j.entries[j.head] = JournalEntry{}
	j.head = (j.head + 1) % len(j.entries)
	j.count--
}

func (j *journal) clear() {
	if !j.enabled() {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	clear(j.entries)
	j.head, j.count, j.held, j.seq = 0, 0, 0, 0
	j.epoch.Add(1)
}

func (j *journal) list(f RequestFilter) []JournalEntry {
	out := []JournalEntry{}
	if !j.enabled() {
		return out
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	for i := j.count - 1; i >= 0 && len(out) < f.Limit; i-- {
		e := &j.entries[(j.head+i)%len(j.entries)]
		if f.matches(e) {
			out = append(out, e.named())
			// The ring holds consecutive sequence numbers, the newest j.seq.
			out[len(out)-1].ID = j.entryID(j.seq - uint64(j.count-1-i))
		}
	}
	return out
}

// entryID is the id of the entry with sequence number seq: seq hashed under the journal's
// namespace.
func (j *journal) entryID(seq uint64) string {
	return uuid.NewSHA1(j.ns, strconv.AppendUint(nil, seq, 10)).String()
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
	// journaled is set once journaled records the request through this recorder.
	journaled bool
}

const maxErrorPeek = 4 << 10

func (r *journalRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.journaled && (r.status >= 400 || (r.peekOK && r.status == http.StatusOK)) && len(r.errBody) < maxErrorPeek {
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
		epoch := s.journal.began()
		at := s.clock.Now()
		// As sent: a handler may rewrite the query it reads.
		path, query := r.URL.Path, r.URL.RawQuery
		var body *journalBody
		if r.Body != nil && r.Body != http.NoBody {
			body = &journalBody{ReadCloser: r.Body}
			r.Body = body
		}
		// logRequests' recorder when nothing has used it yet, else one of the journal's own.
		rec, fresh := w.(*journalRecorder)
		if !fresh || rec.status != 0 || rec.journaled {
			rec = &journalRecorder{statusRecorder: statusRecorder{ResponseWriter: w}}
		}
		rec.journaled, rec.peekOK = true, r.URL.Path == "/api/graphql"
		next.ServeHTTP(rec, r)
		e := JournalEntry{
			At:       at,
			Method:   journalMethod(r.Method),
			Status:   rec.status,
			Duration: time.Since(began),
		}
		if e.Status == 0 {
			e.Status = http.StatusOK
		}
		if p, entered := httpmw.CallOf(r.Context()).Entered(); entered {
			// The principal a door let in is the credential identify would resolve.
			identifyPrincipal(p, &e)
		} else {
			s.identify(r, &e)
		}
		// A request without a working credential, or refused before it ran, keeps a line.
		line := (e.WorkspaceID == "" && e.workspace == uuid.Nil && !strings.HasPrefix(r.URL.Path, "/_uploads/")) || refusedBeforeRunning(e.Status)
		pathCap, queryCap := MaxJournalPath, MaxJournalQuery
		if line {
			pathCap, queryCap = MaxJournalLinePart, MaxJournalLinePart
		}
		if query == "" && path == r.RequestURI && len(path) <= pathCap && len(r.Method) <= len(http.MethodOptions) {
			// The path is the whole request target, a part of the request line's string, whose
			// method is short and whose protocol is 8 bytes: the entry keeps that line alive,
			// the path and at most 17 bytes more, instead of a copy.
			e.Path = path
		} else {
			e.Path, e.PathTruncated = cutText(path, pathCap)
		}
		e.Query, e.QueryTruncated = cutText(query, queryCap)
		e.Query = maskSecrets(e.Query)
		e.RequestContentType, e.RequestContentTypeTruncated = cutText(r.Header.Get("Content-Type"), MaxJournalLinePart)
		if body != nil && line {
			e.RequestBodyTruncated = body.buf.Len() > 0 || body.truncated || r.ContentLength > 0
		} else if body != nil {
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
		e.ErrorCode, _ = cutText(answerErrorCode(e.Status, rec.errBody), MaxJournalLinePart)
		s.journal.add(epoch, e)
	})
}

// journalMethod is a request's method as an entry keeps it: the constant of a standard method,
// else a copy of at most MaxJournalLinePart bytes.
func journalMethod(m string) string {
	for _, std := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodOptions} {
		if m == std {
			return std
		}
	}
	m, _ = cutText(m, MaxJournalLinePart)
	return m
}

// refusedBeforeRunning reports an answer given before any handler ran: a refused credential,
// an unknown path or method, a body too large, a rate limit.
func refusedBeforeRunning(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusMethodNotAllowed,
		http.StatusRequestEntityTooLarge, http.StatusTooManyRequests:
		return true
	}
	return false
}

// cutText is a copy of the first n bytes at most of s, cut at a character boundary, and whether
// anything was cut. It is always a copy: a request's method, path and query are substrings of
// its whole request line, which an entry must not keep alive (but for a short line, see
// journaled).
func cutText(s string, n int) (string, bool) {
	if len(s) <= n {
		return strings.Clone(s), false
	}
	cut := n
	for cut > 0 && cut > n-utf8.UTFMax && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.Clone(s[:cut]), true
}

// identify fills in the workspace and key a request's credential names, without touching the
// key's last use or the rate limits: for a request no door let in (refused, or not passing one).
func (s *Server) identify(r *http.Request, e *JournalEntry) {
	var cred core.Credential
	var ok bool
	if header := r.Header.Get("Authorization"); header != "" {
		token, found := core.BearerToken(header)
		if !found {
			return
		}
		cred, ok = s.core.PeekKey(token)
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

// identifyPrincipal fills in e's credential from the principal a request entered as, as
// identify does from the credential it presents.
func identifyPrincipal(p core.Principal, e *JournalEntry) {
	e.workspace = p.Workspace.ID
	if p.Key != nil && p.Key.ID != uuid.Nil {
		e.apiKey, e.MaskedKey = p.Key.ID, p.Key.MaskedKey
	}
}

// workspaceID is e's WorkspaceID, made from the id the journal keeps when it has one.
func (e *JournalEntry) workspaceID() string {
	if e.workspace != uuid.Nil {
		return e.workspace.String()
	}
	return e.WorkspaceID
}

// named is e as it is listed: WorkspaceID and APIKeyID made from the ids the journal keeps.
func (e JournalEntry) named() JournalEntry {
	e.WorkspaceID = e.workspaceID()
	if e.apiKey != uuid.Nil {
		e.APIKeyID = e.apiKey.String()
	}
	e.workspace, e.apiKey = uuid.Nil, uuid.Nil
	return e
}
