package fakeserver

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/rest"
)

// servedAnswer is all a client sees of one answer: its status, framing, headers (but Date) and
// body, and whether reading the body failed (a truncating fault).
type servedAnswer struct {
	status        int
	contentLength int64
	chunked       bool
	header        http.Header
	body          string
	readFailed    bool
}

// serveOnce makes r on a connection of its own and keeps what the client sees.
func serveOnce(t *testing.T, srv *Server, r *http.Request) servedAnswer {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, r.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	header := resp.Header.Clone()
	if header.Get("Date") == "" {
		t.Errorf("%s %s: no Date header", r.Method, r.URL)
	}
	header.Del("Date")
	return servedAnswer{
		status: resp.StatusCode, contentLength: resp.ContentLength, chunked: slices.Contains(resp.TransferEncoding, "chunked"),
		header: header, body: string(body), readFailed: err != nil,
	}
}

// journalLine is what the journal keeps of a request, but its time, duration and id.
func journalLine(e JournalEntry) JournalEntry {
	e.ID, e.At, e.Duration = "", time.Time{}, 0
	return e
}

// TestCachedReportAnswersMatchTheFullPath serves each request twice, once rendering the report
// anew and once from the rendering cache inside GetReport, and holds the two to the same
// status, framing, headers, body bytes and journal entry: across owners' keys and sessions,
// HEAD, other workspaces' and unusable keys, a report before and after it completes, faults,
// and a reset. Each request the cache must answer, it answers, and it answers no other.
func TestCachedReportAnswersMatchTheFullPath(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	hosted := hostedReport(t, srv, seed, HostedEpisode{Title: "Cached", Duration: time.Second, Format: "wav"})
	seeded, err := srv.SeedReports(seed.WorkspaceID, []SeededReport{{}, {CompleteAfter: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	bare, later := seeded[0], seeded[1]
	session, err := srv.CreateSession(seed.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	_, otherKey := newOrg(t, srv, "Other")
	spare, err := srv.CreateAPIKey(seed.WorkspaceID, "spare")
	if err != nil {
		t.Fatal(err)
	}

	get := func(method, key, id, query string) func() *http.Request {
		return func() *http.Request {
			r, err := http.NewRequest(method, srv.URL()+rest.Base+"/reports/"+id+query, nil)
			if err != nil {
				t.Fatal(err)
			}
			if key != "" {
				r.Header.Set("Authorization", "Bearer "+key)
			}
			return r
		}
	}
	var faultID string
	arm := func(f Fault) func(t *testing.T) {
		return func(t *testing.T) {
			id, err := srv.InjectFault(f)
			if err != nil {
				t.Fatal(err)
			}
			faultID = id
		}
	}
	disarm := func(t *testing.T) {
		if err := srv.RemoveFault(faultID); err != nil {
			t.Fatal(err)
		}
	}
	truncate := int64(100)
	var again string
	steps := []struct {
		name          string
		before, after func(t *testing.T)
		req           func() *http.Request
		status        int
		// cached is whether the cache answers the request.
		cached bool
		// cut is set when a fault cuts the answer.
		cut bool
	}{
		{name: "owner's key", req: get("GET", seed.APIKey, hosted, ""), status: 200, cached: true},
		{name: "HEAD", req: get("HEAD", seed.APIKey, hosted, ""), status: 200, cached: true},
		{name: "another key of the workspace", req: get("GET", spare.Key, hosted, ""), status: 200, cached: true},
		{name: "session cookie", req: func() *http.Request {
			r := get("GET", "", hosted, "")()
			r.AddCookie(&http.Cookie{Name: "sessionid", Value: session})
			return r
		}, status: 200, cached: true},
		{name: "report without a show", req: get("GET", seed.APIKey, bare, ""), status: 200, cached: true},
		// By the id rule, an upper-case id names no report (TestIDRuleOnEveryRoute).
		{name: "upper-case id", req: get("GET", seed.APIKey, strings.ToUpper(hosted), ""), status: 404},
		{name: "unknown query parameter", req: get("GET", seed.APIKey, hosted, "?limit=5"), status: 200, cached: true},
		{name: "invalid id", req: get("GET", seed.APIKey, "not-a-uuid", ""), status: 400},
		{name: "unknown report", req: get("GET", seed.APIKey, "0b7c1a36-4a52-4c3e-9a6e-000000000000", ""), status: 404},
		{name: "another workspace's key", req: get("GET", otherKey.Key, hosted, ""), status: 404},
		{name: "unknown key", req: get("GET", "podqa_api_nosuchkey", hosted, ""), status: 401},
		{name: "no credential", req: get("GET", "", hosted, ""), status: 401},
		{
			name:   "disabled key",
			before: func(t *testing.T) { setKeyDisabled(t, srv, spare.ID, true) },
			after:  func(t *testing.T) { setKeyDisabled(t, srv, spare.ID, false) },
			req:    get("GET", spare.Key, hosted, ""), status: 401,
		},
		{name: "report in progress", req: get("GET", seed.APIKey, later, ""), status: 200},
		{
			name:   "the same report once complete",
			before: func(t *testing.T) { advance(t, srv, 2*time.Minute) },
			req:    get("GET", seed.APIKey, later, ""), status: 200, cached: true,
		},
		{
			name:   "fault answering 503",
			before: arm(Fault{PathPrefix: rest.Base + "/reports/", Status: 503}), after: disarm,
			req: get("GET", seed.APIKey, hosted, ""), status: 503,
		},
		{
			name:   "fault answering 429",
			before: arm(Fault{Method: "GET", PathPrefix: rest.Base + "/reports", Status: 429}), after: disarm,
			req: get("GET", seed.APIKey, hosted, ""), status: 429,
		},
		{
			name:   "fault truncating the answer",
			before: arm(Fault{PathPrefix: rest.Base + "/reports/", TruncateAfterBytes: &truncate}), after: disarm,
			req: get("GET", seed.APIKey, hosted, ""), status: 200, cached: true, cut: true,
		},
		{
			name:   "fault on another method",
			before: arm(Fault{Method: "POST", PathPrefix: rest.Base + "/reports", Status: 500}), after: disarm,
			req: get("GET", seed.APIKey, hosted, ""), status: 200, cached: true,
		},
		{
			name:   "after a reset",
			before: func(t *testing.T) { reset(t, srv) },
			req:    get("GET", seed.APIKey, hosted, ""), status: 404,
		},
		{
			name: "a report made again after the reset",
			before: func(t *testing.T) {
				again = hostedReport(t, srv, seed, HostedEpisode{Title: "Again", Duration: time.Second, Format: "wav"})
			},
			req:    func() *http.Request { return get("GET", seed.APIKey, again, "")() },
			status: 200, cached: true,
		},
	}
	for _, st := range steps {
		if st.before != nil {
			st.before(t)
		}
		srv.rest.CacheProbe().Mode.Store(rest.CacheOff)
		full := serveOnce(t, srv, st.req())
		srv.rest.CacheProbe().Mode.Store(rest.CacheCount)
		hits := srv.rest.CacheProbe().Hits.Load()
		cached := serveOnce(t, srv, st.req())
		if got := srv.rest.CacheProbe().Hits.Load() - hits; got != map[bool]uint64{true: 1}[st.cached] {
			t.Errorf("%s: the cache answered %d times, want cached=%v", st.name, got, st.cached)
		}
		if full.status != st.status {
			t.Errorf("%s: status %d, want %d: %s", st.name, full.status, st.status, full.body)
		}
		if full.status != cached.status || full.contentLength != cached.contentLength || full.chunked != cached.chunked || full.readFailed != cached.readFailed {
			t.Errorf("%s: full path %d (length %d, chunked %v, read failed %v), cached path %d (length %d, chunked %v, read failed %v)", st.name,
				full.status, full.contentLength, full.chunked, full.readFailed, cached.status, cached.contentLength, cached.chunked, cached.readFailed)
		}
		if !headersEqual(full.header, cached.header) {
			t.Errorf("%s: headers differ:\nfull   %v\ncached %v", st.name, full.header, cached.header)
		}
		if full.body != cached.body {
			t.Errorf("%s: bodies differ:\nfull   %q\ncached %q", st.name, full.body, cached.body)
		}
		if full.status == 200 && st.req().Method == "GET" && full.body == "" {
			t.Errorf("%s: no body", st.name)
		}
		entries := srv.Requests(RequestFilter{Limit: 2})
		// The journal keeps the entry of a cut answer after the cut, when the client has
		// already seen it end: those two entries may still be on their way.
		if !st.cut && len(entries) != 2 {
			t.Errorf("%s: the journal holds %d entries of the two requests", st.name, len(entries))
		} else if !st.cut && journalLine(entries[1]) != journalLine(entries[0]) {
			t.Errorf("%s: journal entries differ:\nfull   %+v\ncached %+v", st.name, entries[1], entries[0])
		}
		if st.after != nil {
			st.after(t)
		}
	}
	srv.rest.CacheProbe().Mode.Store(0)
}

func headersEqual(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

func setKeyDisabled(t *testing.T, srv *Server, id string, disabled bool) {
	t.Helper()
	if err := srv.SetAPIKeyDisabled(id, disabled); err != nil {
		t.Fatal(err)
	}
}

func reset(t *testing.T, srv *Server) {
	t.Helper()
	if _, err := srv.Reset(); err != nil {
		t.Fatal(err)
	}
}
