package journal

import (
	"runtime"
	"strings"
	"testing"
)

// The facade's figures: fakeserver.MaxJournalSize, DefaultJournalSize, MaxJournalBytes and
// MaxJournalBody.
const (
	maxSize     = 100_000
	defaultSize = 10000
	maxBytes    = 64 << 20
	maxBody     = 64 << 10
)

// testLimits are the limits the facade passes to New.
var testLimits = Limits{Bytes: maxBytes, Body: maxBody, Path: 1 << 10, Query: 4 << 10, LinePart: 128}

// TestJournalBoundedInBytes: whatever the entries' size, the journal holds at most
// maxBytes, dropping the oldest entries first.
func TestJournalBoundedInBytes(t *testing.T) {
	// Not parallel: it reads the heap.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	j := New(maxSize, testLimits, [16]byte{1})
	if len(j.entries) != 0 {
		t.Fatalf("a journal of %d entries reserves %d up front", maxSize, len(j.entries))
	}
	body := strings.Repeat("b", maxBody)
	const adds = 2 * maxBytes / maxBody
	for i := range adds {
		j.add(0, record{Entry: Entry{Method: "POST", Path: "/api/rest/v1/reports", RequestBody: strings.Clone(body), Status: i}})
		if j.held > maxBytes {
			t.Fatalf("after %d entries of 64 KiB the journal holds %d bytes", i+1, j.held)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d entries of 64 KiB: %d kept, %d bytes counted, %d bytes on the heap", adds, j.count, j.held, held)
	if held > maxBytes+8<<20 {
		t.Fatalf("the heap holds %d bytes", held)
	}
	got := j.List(Filter{Limit: 1})
	if len(got) != 1 || got[0].Status != adds-1 || j.count < maxBytes/(maxBody+1024) {
		t.Fatalf("kept %d, newest %+v", j.count, got)
	}
	runtime.KeepAlive(j)
}

// TestJournalMemory holds 10,000 entries of 1 KiB bodies, the default size, within 16 MiB.
func TestJournalMemory(t *testing.T) {
	body := strings.Repeat("x", 1<<10)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	j := New(defaultSize, testLimits, [16]byte{1})
	for range defaultSize + 500 {
		j.add(0, record{Entry: Entry{Method: "POST", Path: "/api/rest/v1/reports", RequestContentType: "application/json",
			RequestBody: strings.Clone(body), WorkspaceID: "0b0e3c4e-1111-4000-8000-000000000000", APIKeyID: "0b0e3c4e-1111-4000-8000-000000000001", MaskedKey: "podqa_api_abcdef…"}})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("10,000 entries of 1 KiB bodies hold %.2f MiB", float64(held)/(1<<20))
	if held > 16<<20 {
		t.Fatalf("journal holds %d bytes, more than 16 MiB", held)
	}
	runtime.KeepAlive(j)
}
