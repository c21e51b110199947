package fakeserver

import (
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// TestJournalKeepsALineOfKeylessRequests is D4 of issue 32: keyless 404s with 500 KB paths and
// queries keep a line each, and listing them answers a few kilobytes.
func TestJournalKeepsALineOfKeylessRequests(t *testing.T) {
	// Not parallel: it reads the heap.
	srv, _ := NewTest(t)
	const long = 500 << 10
	// Each request costs a scan of its megabyte under -race, and the test holds up the parallel
	// ones: -short sends 8, which uncapped would keep 13.6 MB, over three times the bound.
	requests := 20
	if testing.Short() {
		requests = 8
	}
	path := "/api/rest/v1/" + strings.Repeat("p", long)
	query := "?q=" + strings.Repeat("é", long/2)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range requests {
		if status, _, _ := call(t, srv, "GET", path+query, nil, ""); status != http.StatusNotFound {
			t.Fatalf("status %d", status)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d keyless requests of %d KB hold %d bytes", requests, 2*long>>10, held)
	// Before the caps each kept about 1.7 MB (34 MB for 20); the rest of the fake, with the
	// journal off, holds about 2 MB after the same requests.
	if held > 4<<20 {
		t.Fatalf("%d keyless requests of %d KB hold %d bytes, want under 4 MiB", requests, 2*long>>10, held)
	}
	if perEntry := srv.journal.held / requests; perEntry > 256+4*MaxJournalLinePart {
		t.Fatalf("an entry counts %d bytes", perEntry)
	}
	got := srv.Requests(RequestFilter{Limit: requests})
	if len(got) != requests {
		t.Fatalf("%d entries", len(got))
	}
	for _, e := range got {
		if len(e.Path) > MaxJournalLinePart || !e.PathTruncated || len(e.Query) > MaxJournalLinePart || !e.QueryTruncated ||
			!strings.HasPrefix(path, e.Path) || !strings.HasPrefix(query[1:], e.Query) {
			t.Fatalf("entry: path %d bytes (%v), query %d bytes (%v)", len(e.Path), e.PathTruncated, len(e.Query), e.QueryTruncated)
		}
	}
	status, _, body := call(t, srv, "GET", "/_fake/requests?limit=1000", admin(srv), "")
	if status != http.StatusOK || len(body) > requests*1024 {
		t.Fatalf("listing answers %d with %d bytes", status, len(body))
	}
	if !strings.Contains(string(body), `"path_truncated":true`) || !strings.Contains(string(body), `"query_truncated":true`) {
		t.Fatalf("the listing does not say what was cut: %.300s", body)
	}
}

// TestJournalKeepsNoBodyOfRefusedGraphQL is D14: a keyless GraphQL body answered 429 (or any
// keyless body) is journaled without its body, saying so.
func TestJournalKeepsNoBodyOfRefusedGraphQL(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	h := http.Header{"Content-Type": {"application/json"}}
	small, _ := json.Marshal(map[string]string{"query": "{ user { id } }"})
	for range 100 {
		call(t, srv, "POST", "/api/graphql", h, string(small))
	}
	big, _ := json.Marshal(map[string]string{"query": "{ user { id } }" + strings.Repeat(" ", 60<<10)})
	if status, _, _ := call(t, srv, "POST", "/api/graphql", h, string(big)); status != http.StatusTooManyRequests {
		t.Fatalf("the 101st keyless request: %d", status)
	}
	keyed := h.Clone()
	keyed.Set("Authorization", "Bearer "+seed.APIKey)
	call(t, srv, "POST", "/api/graphql", keyed, string(small))
	got := srv.Requests(RequestFilter{Limit: 102})
	if len(got) != 102 {
		t.Fatalf("%d entries", len(got))
	}
	if e := got[0]; e.RequestBody != string(small) || e.RequestBodyTruncated {
		t.Errorf("keyed entry: %q truncated %v", e.RequestBody, e.RequestBodyTruncated)
	}
	for i, e := range got[1:] {
		if e.RequestBody != "" || !e.RequestBodyTruncated {
			t.Fatalf("keyless entry %d (%d): body of %d bytes, truncated %v", i, e.Status, len(e.RequestBody), e.RequestBodyTruncated)
		}
	}
	if got[1].Status != http.StatusTooManyRequests {
		t.Fatalf("newest keyless entry: %d", got[1].Status)
	}
}

// TestJournalCapsKeyedEntries: a keyed request keeps at most MaxJournalQuery bytes of query and
// MaxJournalLinePart of Content-Type, cut at a character boundary and marked.
func TestJournalCapsKeyedEntries(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithoutRateLimits())
	h := bearer(seed.APIKey)
	h.Set("Content-Type", "application/json; x="+strings.Repeat("c", 500))
	call(t, srv, "GET", "/api/rest/v1/reports?limit=5&x="+strings.Repeat("é", MaxJournalQuery), h, "")
	e := srv.Requests(RequestFilter{})[0]
	if e.WorkspaceID == "" || len(e.Query) > MaxJournalQuery || len(e.Query) < MaxJournalQuery-1 || !e.QueryTruncated ||
		!strings.HasPrefix(e.Query, "limit=5&x=") || strings.ToValidUTF8(e.Query, "?") != e.Query ||
		len(e.RequestContentType) != MaxJournalLinePart || !e.RequestContentTypeTruncated || e.PathTruncated {
		t.Fatalf("entry: %d query bytes (%v), %d content-type bytes (%v): %+v", len(e.Query), e.QueryTruncated, len(e.RequestContentType), e.RequestContentTypeTruncated, e)
	}
}

// TestJournalBoundedInBytes: whatever the entries' size, the journal holds at most
// MaxJournalBytes, dropping the oldest entries first.
func TestJournalBoundedInBytes(t *testing.T) {
	// Not parallel: it reads the heap.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	j := newJournal(MaxJournalSize, [16]byte{1})
	if len(j.entries) != 0 {
		t.Fatalf("a journal of %d entries reserves %d up front", MaxJournalSize, len(j.entries))
	}
	body := strings.Repeat("b", MaxJournalBody)
	const adds = 2 * MaxJournalBytes / MaxJournalBody
	for i := range adds {
		j.add(0, JournalEntry{Method: "POST", Path: "/api/rest/v1/reports", RequestBody: strings.Clone(body), Status: i})
		if j.held > MaxJournalBytes {
			t.Fatalf("after %d entries of 64 KiB the journal holds %d bytes", i+1, j.held)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d entries of 64 KiB: %d kept, %d bytes counted, %d bytes on the heap", adds, j.count, j.held, held)
	if held > MaxJournalBytes+8<<20 {
		t.Fatalf("the heap holds %d bytes", held)
	}
	got := j.list(RequestFilter{Limit: 1})
	if len(got) != 1 || got[0].Status != adds-1 || j.count < MaxJournalBytes/(MaxJournalBody+1024) {
		t.Fatalf("kept %d, newest %+v", j.count, got)
	}
	runtime.KeepAlive(j)
}

// TestJournalSizeBounded is D15: a journal size past MaxJournalSize is an error, not an
// out-of-memory death.
func TestJournalSizeBounded(t *testing.T) {
	t.Parallel()
	for _, n := range []int{-1, MaxJournalSize + 1, 1_000_000_000, int(^uint(0) >> 1)} {
		if srv, err := New(WithJournalSize(n)); err == nil || !strings.Contains(err.Error(), "journal size must be from 0 to 100000") {
			if srv != nil {
				_ = srv.Close()
			}
			t.Errorf("WithJournalSize(%d): %v", n, err)
		}
	}
}

func TestCutText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		want string
		cut  bool
	}{
		{"abc", 3, "abc", false},
		{"abcd", 3, "abc", true},
		{"aé", 2, "a", true},
		{"aéb", 3, "aé", true},
		{"€€", 4, "€", true},
		{"", 0, "", false},
		{"\xff\xfe\xfd\xfc\xfb\xfa", 4, "\xff\xfe\xfd\xfc", true},
	}
	for _, tt := range tests {
		got, cut := cutText(tt.in, tt.n)
		if got != tt.want || cut != tt.cut {
			t.Errorf("cutText(%q, %d) = %q, %v; want %q, %v", tt.in, tt.n, got, cut, tt.want, tt.cut)
		}
	}
}
