package journal

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

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// Journal is a ring of the most recent requests, bounded in entries and in bytes held.
type Journal struct {
	mu sync.Mutex
	// size is the most entries kept; entries grows to it as requests come.
	size    int
	limits  Limits
	entries []record
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

// startEntries is the ring's first allocation, made by the first entry; it doubles up to the
// journal's size. A fake whose API is never called holds no ring.
const startEntries = 8

// New is a journal of at most size entries (0 keeps none) within limits, whose entry ids are
// their sequence numbers hashed under ns.
func New(size int, limits Limits, ns uuid.UUID) *Journal {
	return &Journal{size: size, limits: limits, budget: limits.Bytes, ns: ns}
}

// Enabled reports whether j keeps entries at all.
func (j *Journal) Enabled() bool { return j != nil && j.size > 0 }

// Held is the bytes j's entries hold, as it counts them against Limits.Bytes.
func (j *Journal) Held() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.held
}

// entryBytes is what an entry holds: its strings and a fixed part for the rest.
func entryBytes(e *record) int {
	const fixed = 256 // the struct, its id and the workspace and key ids
	return fixed + len(e.Path) + len(e.Query) + len(e.RequestContentType) + len(e.RequestBody) + len(e.ErrorCode)
}

// began returns the epoch a request begins in, for add.
func (j *Journal) began() uint64 {
	return j.epoch.Load()
}

// add keeps e, of a request begun in epoch, unless the journal was cleared since.
func (j *Journal) add(epoch uint64, e record) {
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
		grown := make([]record, min(max(2*len(j.entries), startEntries), j.size))
		for i := range j.count {
			grown[i] = j.entries[(j.head+i)%len(j.entries)]
		}
		j.entries, j.head = grown, 0
	}
	j.entries[(j.head+j.count)%len(j.entries)] = e
	j.count++
	j.held += n
}

func (j *Journal) dropOldest() {
	j.held -= entryBytes(&j.entries[j.head])
	j.entries[j.head] = record{}
	j.head = (j.head + 1) % len(j.entries)
	j.count--
}

// Clear empties j; a request begun before is not kept after it.
func (j *Journal) Clear() {
	if !j.Enabled() {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	clear(j.entries)
	j.head, j.count, j.held, j.seq = 0, 0, 0, 0
	j.epoch.Add(1)
}

// Requests returns the entries f selects, newest first: Server.Requests and GET /_fake/requests
// both. A Limit of 0 or less is the limits' Listed; Method matches in any case.
func (j *Journal) Requests(f Filter) []Entry {
	if f.Limit <= 0 {
		f.Limit = j.limits.Listed
	}
	f.Method = strings.ToUpper(f.Method)
	return j.List(f)
}

// List returns the entries f selects, newest first, at most f.Limit.
func (j *Journal) List(f Filter) []Entry {
	out := []Entry{}
	if !j.Enabled() {
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
func (j *Journal) entryID(seq uint64) string {
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

// journalBody keeps the first Limits.Body bytes the handler reads from a request body.
type journalBody struct {
	io.ReadCloser
	limit     int
	buf       bytes.Buffer
	truncated bool
}

func (b *journalBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if room := b.limit - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(n, room)])
		if n > room {
			b.truncated = true
		}
	} else if n > 0 {
		b.truncated = true
	}
	return n, err
}

// Recorder keeps the status of an answer and, for an error answer of a journaled request, the
// start of the body (to read its error code). The chain's outermost logger makes one per request
// (NewRecorder); the journal takes it over, so that a journaled request has one.
type Recorder struct {
	statusRecorder
	// peekOK also keeps the start of a 200 answer (GraphQL reports errors in one).
	peekOK  bool
	errBody []byte
	// journaled is set once journaled records the request through this recorder.
	journaled bool
}

const maxErrorPeek = 4 << 10

func (r *Recorder) Write(b []byte) (int, error) {
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

// Record records every request to next in j: the fake-clock instant from clk, the credential
// from the request's call (or, for a request no door let in, peeked at in c without touching
// its last use or limits).
func (j *Journal) Record(clk *clock.Clock, c *core.Core, next http.Handler) http.Handler {
	if !j.Enabled() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		epoch := j.began()
		at := clk.Now()
		// As sent: a handler may rewrite the query it reads.
		path, query := r.URL.Path, r.URL.RawQuery
		var body *journalBody
		if r.Body != nil && r.Body != http.NoBody {
			body = &journalBody{ReadCloser: r.Body, limit: j.limits.Body}
			r.Body = body
		}
		// logRequests' recorder when nothing has used it yet, else one of the journal's own.
		rec, fresh := w.(*Recorder)
		if !fresh || rec.status != 0 || rec.journaled {
			rec = NewRecorder(w)
		}
		rec.journaled, rec.peekOK = true, r.URL.Path == "/api/graphql"
		next.ServeHTTP(rec, r)
		e := record{Entry: Entry{
			At:       at,
			Method:   j.method(r.Method),
			Status:   rec.status,
			Duration: time.Since(began),
		}}
		if e.Status == 0 {
			e.Status = http.StatusOK
		}
		if p, entered := httpmw.CallOf(r.Context()).Entered(); entered {
			// The principal a door let in is the credential identify would resolve.
			identifyPrincipal(p, &e)
		} else {
			identify(c, r, &e)
		}
		// A request without a working credential, or refused before it ran, keeps a line.
		line := (e.WorkspaceID == "" && e.workspace == uuid.Nil && !strings.HasPrefix(r.URL.Path, "/_uploads/")) || refusedBeforeRunning(e.Status)
		pathCap, queryCap := j.limits.Path, j.limits.Query
		if line {
			pathCap, queryCap = j.limits.LinePart, j.limits.LinePart
		}
		if query == "" && path == r.RequestURI && len(path) <= pathCap && len(r.Method) <= len(http.MethodOptions) {
			// The path is the whole request target, a part of the request line's string, whose
			// method is short and whose protocol is 8 bytes: the entry keeps that line alive,
			// the path and at most 17 bytes more, instead of a copy.
			e.Path = path
		} else {
			e.Path, e.PathTruncated = httpmw.CutText(path, pathCap)
		}
		e.Query, e.QueryTruncated = httpmw.CutText(query, queryCap)
		e.Query = maskSecrets(e.Query)
		e.RequestContentType, e.RequestContentTypeTruncated = httpmw.CutText(r.Header.Get("Content-Type"), j.limits.LinePart)
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
		e.ErrorCode, _ = httpmw.CutText(answerErrorCode(e.Status, rec.errBody), j.limits.LinePart)
		e.FaultID = httpmw.CallOf(r.Context()).Fault()
		j.add(epoch, e)
	})
}

// method is a request's method as an entry keeps it: the constant of a standard method, else a
// copy of at most Limits.LinePart bytes.
func (j *Journal) method(m string) string {
	for _, std := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodOptions} {
		if m == std {
			return std
		}
	}
	m, _ = httpmw.CutText(m, j.limits.LinePart)
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

// identify fills in the workspace and key a request's credential names, without touching the
// key's last use or the rate limits: for a request no door let in (refused, or not passing one).
func identify(c *core.Core, r *http.Request, e *record) {
	var cred core.Credential
	var ok bool
	if header := r.Header.Get("Authorization"); header != "" {
		token, found := core.BearerToken(header)
		if !found {
			return
		}
		cred, ok = c.PeekKey(token)
	} else if cookie, err := r.Cookie("sessionid"); err == nil {
		cred, ok = c.PeekSession(cookie.Value)
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
func identifyPrincipal(p core.Principal, e *record) {
	e.workspace = p.Workspace.ID
	if p.Key != nil && p.Key.ID != uuid.Nil {
		e.apiKey, e.MaskedKey = p.Key.ID, p.Key.MaskedKey
	}
}

// workspaceID is e's WorkspaceID, made from the id the journal keeps when it has one.
func (e *record) workspaceID() string {
	if e.workspace != uuid.Nil {
		return e.workspace.String()
	}
	return e.WorkspaceID
}

// named is e as it is listed: WorkspaceID and APIKeyID made from the ids the journal keeps.
func (e *record) named() Entry {
	out := e.Entry
	out.WorkspaceID = e.workspaceID()
	if e.apiKey != uuid.Nil {
		out.APIKeyID = e.apiKey.String()
	}
	return out
}
