// Package journal is the fake's request journal: a ring of the most recent requests to the
// service's APIs, bounded in entries and in bytes, and the middleware that records a request
// (Record) with credentials masked. It stands on the core and httpmw; the facade mounts Record
// in its one middleware chain and shows the entries as fakeserver.JournalEntry
// (fakeserver/DESIGN.md).
package journal

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/internal/apitime"
)

// Limits bound a journal's entries; the facade passes its documented figures (MaxJournalBody
// and the rest), so that each is written once.
type Limits struct {
	// Bytes bounds what the entries hold together; past it the oldest are dropped first.
	Bytes int
	// Body is how much of a request body an entry keeps.
	Body int
	// Path and Query cap an entry's path and query.
	Path, Query int
	// LinePart caps each text of an entry kept as a line (a request without a working
	// credential, or refused before it ran), and an entry's content type and error code.
	LinePart int
	// Listed is how many entries Requests returns when the filter sets no Limit.
	Listed int
}

// Entry is one request as the journal keeps it; fakeserver.JournalEntry is the same fields, and
// the facade converts one to the other (a conversion that stops compiling if they drift).
type Entry struct {
	ID                          string        `json:"id"`
	At                          time.Time     `json:"-"`
	Method                      string        `json:"method"`
	Path                        string        `json:"path"`
	PathTruncated               bool          `json:"path_truncated"`
	Query                       string        `json:"query"`
	QueryTruncated              bool          `json:"query_truncated"`
	Status                      int           `json:"status"`
	WorkspaceID                 string        `json:"-"`
	APIKeyID                    string        `json:"-"`
	MaskedKey                   string        `json:"-"`
	RequestContentType          string        `json:"request_content_type"`
	RequestContentTypeTruncated bool          `json:"request_content_type_truncated"`
	RequestBody                 string        `json:"request_body"`
	RequestBodyTruncated        bool          `json:"request_body_truncated"`
	ErrorCode                   string        `json:"-"`
	Duration                    time.Duration `json:"-"`
	FaultID                     string        `json:"-"`
}

// record is an entry in the ring: for a request the REST front let in, WorkspaceID and APIKeyID
// are kept as ids, and their strings made when the entry is listed (named), not on every
// request's path.
type record struct {
	Entry
	workspace, apiKey uuid.UUID
}

// MarshalJSON writes the entry in the control API's shape: nulls for what is absent.
func (e Entry) MarshalJSON() ([]byte, error) {
	type plain Entry
	return json.Marshal(struct {
		plain
		At          string  `json:"at"`
		WorkspaceID *string `json:"workspace_id"`
		APIKeyID    *string `json:"api_key_id"`
		MaskedKey   *string `json:"masked_key"`
		ErrorCode   *string `json:"error_code"`
		DurationMs  float64 `json:"duration_ms"`
		FaultID     *string `json:"fault_id"`
	}{
		plain:       plain(e),
		At:          apitime.Format(e.At),
		WorkspaceID: nullable(e.WorkspaceID),
		APIKeyID:    nullable(e.APIKeyID),
		MaskedKey:   nullable(e.MaskedKey),
		ErrorCode:   nullable(e.ErrorCode),
		DurationMs:  float64(e.Duration.Microseconds()) / 1000,
		FaultID:     nullable(e.FaultID),
	})
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Filter selects entries; zero fields match everything (fakeserver.RequestFilter, its Method
// upper-cased and its Limit defaulted).
type Filter struct {
	WorkspaceID string
	Method      string
	PathPrefix  string
	Status      int
	Since       time.Time
	Limit       int
}

func (f Filter) matches(e *record) bool {
	return (f.WorkspaceID == "" || e.workspaceID() == f.WorkspaceID) &&
		(f.Method == "" || e.Method == f.Method) &&
		strings.HasPrefix(e.Path, f.PathPrefix) &&
		(f.Status == 0 || e.Status == f.Status) &&
		(f.Since.IsZero() || !e.At.Before(f.Since))
}

// NewRecorder is the recorder of an answer to w.
func NewRecorder(w http.ResponseWriter) *Recorder {
	return &Recorder{statusRecorder: statusRecorder{ResponseWriter: w}}
}

// Status is the status the answer was written with; 0 before anything was written.
func (r *Recorder) Status() int { return r.status }

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
