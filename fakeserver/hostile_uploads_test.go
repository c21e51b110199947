package fakeserver

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// TestUploadMemoryBounded (not parallel: it reads the heap) PUTs 64 MiB uploads (16 MiB in
// -short: the bounds are in proportion to the size, and the test delays every parallel one):
// each is read once, in chunks never copied together, the fake's upload budget refuses what it
// cannot hold before reading it, and the bytes of a reservation that lapses unused are freed.
func TestUploadMemoryBounded(t *testing.T) {
	size := int64(64 << 20)
	if testing.Short() {
		size = 16 << 20
	}
	srv, seed := NewTest(t, func(o *options) {
		o.uploadBudget = size * 100 / 64 // room for one upload, not two
		// 64 MiB bodies on a loaded machine: the connection timeouts (wall clock, 30 s stalls,
		// a minute idle) are not under test here and must not cut a slow PUT.
		o.timeouts = httpmw.Timeouts{Header: 10 * time.Minute, Idle: 10 * time.Minute, Body: 10 * time.Minute, Stall: 10 * time.Minute, Write: 10 * time.Minute}
	}, WithoutRateLimits())
	body := strings.Repeat("a", int(size))
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	allocated := func() uint64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.TotalAlloc
	}
	first := reserve(t, srv, seed.APIKey, 60_000)
	before := allocated()
	if status, b := put(t, srv, first.UploadURL, "audio/wav", nil, body); status != 200 {
		t.Fatalf("first PUT: %d %s", status, b)
	}
	if got := allocated() - before; got > uint64(size+size/4) {
		t.Errorf("reading a %d-byte upload allocated %d bytes: it was held more than once", size, got)
	}
	if held := srv.core.HeldUploadBytes(); held != size {
		t.Fatalf("held %d bytes, want %d", held, size)
	}

	// Past the budget: refused before the body is read, nothing held.
	second := reserve(t, srv, seed.APIKey, 60_000)
	status, b := put(t, srv, second.UploadURL, "audio/wav", nil, body)
	if status != http.StatusInsufficientStorage || errorCode(t, b) != "insufficient_storage" || !strings.Contains(string(b), "budget") {
		t.Fatalf("PUT past the budget: %d %s", status, b)
	}
	if held := srv.core.HeldUploadBytes(); held != size {
		t.Fatalf("held %d bytes after a refusal, want %d", held, size)
	}

	// The first reservation lapses unused: its bytes are freed.
	withAudio := heap()
	if _, err := srv.Advance(7*24*time.Hour + time.Second); err != nil {
		t.Fatal(err)
	}
	if held := srv.core.HeldUploadBytes(); held != 0 {
		t.Fatalf("held %d bytes after the reservation lapsed", held)
	}
	if after := heap(); after+uint64(size/2) > withAudio {
		t.Errorf("heap %d MiB with the upload, %d MiB after it lapsed: not freed", withAudio>>20, after>>20)
	}
	status, _, b = call(t, srv, "POST", "/api/rest/v1/reports", jsonHeader(bearer(seed.APIKey)),
		`{"report_id":"`+first.ReportID+`","original_filename":"a.wav","duration_ms":60000}`)
	if status != http.StatusNotFound {
		t.Fatalf("report from a lapsed reservation: %d %s", status, b)
	}

	// Room again; and what the budget can never hold is refused by its Content-Length.
	third := reserve(t, srv, seed.APIKey, 60_000)
	if status, b := put(t, srv, third.UploadURL, "audio/wav", nil, body); status != 200 {
		t.Fatalf("PUT after the lapse: %d %s", status, b)
	}
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _ = io.WriteString(conn, "PUT "+strings.TrimPrefix(third.UploadURL, srv.URL())+" HTTP/1.1\r\nHost: x\r\nContent-Type: audio/wav\r\nContent-Length: 629145600\r\n\r\nRIFF")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("a 600 MiB PUT: %v %v", resp, err)
	}
	if held := srv.core.HeldUploadBytes(); held != size {
		t.Fatalf("held %d bytes, want %d", held, size)
	}
}
