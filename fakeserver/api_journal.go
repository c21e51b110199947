package fakeserver

import (
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/journal"
)

// DefaultJournalSize is how many requests the request journal keeps unless WithJournalSize says
// otherwise; the oldest are dropped first.
const DefaultJournalSize = 10000

// MaxJournalBody is how much of a request body a journal entry keeps; the rest is cut and the
// entry marked truncated.
const MaxJournalBody = 64 << 10

// MaxJournalSize is the most entries WithJournalSize may ask for.
const MaxJournalSize = 100_000

// MaxJournalBytes bounds what the journal's entries hold together; past it the oldest entries
// are dropped first, however few the journal then keeps.
const MaxJournalBytes = 64 << 20

// The caps of a journal entry's other texts; a capped text is cut at a character boundary and
// its entry marked (path_truncated, query_truncated, request_content_type_truncated). A request
// without a working credential, or refused before it ran (401, 403, 404, 405, 413, 429), keeps
// a line: path and query cut to MaxJournalLinePart bytes each and no body.
const (
	MaxJournalPath     = 1 << 10
	MaxJournalQuery    = 4 << 10
	MaxJournalLinePart = 128
)

// WithJournalSize sets how many requests the request journal keeps (default DefaultJournalSize,
// at most MaxJournalSize); 0 turns the journal off.
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
	// Path is the request's path, at most MaxJournalPath bytes.
	Path          string `json:"path"`
	PathTruncated bool   `json:"path_truncated"`
	// Query is the raw query string, at most MaxJournalQuery bytes, credentials masked.
	Query          string `json:"query"`
	QueryTruncated bool   `json:"query_truncated"`
	Status         int    `json:"status"`
	// WorkspaceID, APIKeyID and MaskedKey name the working key (or, WorkspaceID only, the browser
	// session) the request carried; empty when it carried none that works.
	WorkspaceID string `json:"-"`
	APIKeyID    string `json:"-"`
	MaskedKey   string `json:"-"`
	// RequestContentType is the Content-Type header as sent, at most MaxJournalLinePart bytes.
	RequestContentType          string `json:"request_content_type"`
	RequestContentTypeTruncated bool   `json:"request_content_type_truncated"`
	// RequestBody is the body as text (at most MaxJournalBody bytes, credentials masked); empty
	// for a body that is not UTF-8 text, such as uploaded audio, and for an entry kept as a line
	// (then RequestBodyTruncated is set).
	RequestBody          string `json:"request_body"`
	RequestBodyTruncated bool   `json:"request_body_truncated"`
	// ErrorCode is the code of an error answer in the REST envelope (or of the first GraphQL
	// error); empty otherwise.
	ErrorCode string `json:"-"`
	// Duration is how long the fake took to answer, on the wall clock.
	Duration time.Duration `json:"-"`
	// FaultID is the armed fault that acted on the request (see Server.AddFault); empty when
	// none did.
	FaultID string `json:"-"`
}

// MarshalJSON writes the entry in the control API's shape: nulls for what is absent.
func (e JournalEntry) MarshalJSON() ([]byte, error) { return journal.Entry(e).MarshalJSON() }

// journalLimits are the figures above, as the journal applies them.
func journalLimits() journal.Limits {
	return journal.Limits{
		Bytes: MaxJournalBytes, Body: MaxJournalBody, Path: MaxJournalPath, Query: MaxJournalQuery, LinePart: MaxJournalLinePart,
		Listed: DefaultRequestLimit,
	}
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
	entries := s.journal.Requests(journal.Filter(f))
	out := make([]JournalEntry, len(entries))
	for i, e := range entries {
		out[i] = JournalEntry(e)
	}
	return out
}

// maxJournalLimit bounds one answer of the journal's control call and dashboard page.
const maxJournalLimit = journal.MaxRequestsLimit

// ClearRequests empties the request journal.
func (s *Server) ClearRequests() { s.journal.Clear() }

// cutText is httpmw.CutText: a copy of at most n bytes of s, cut at a character boundary.
func cutText(s string, n int) (string, bool) { return httpmw.CutText(s, n) }
