package fakeserver

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// shortTimeouts makes the fake's connection timeouts tiny, so that a test sees them act without
// sleeping: it only waits, bounded, for the server to close the connection.
func shortTimeouts(o *options) {
	o.timeouts = httpmw.Timeouts{Header: 200 * time.Millisecond, Idle: 200 * time.Millisecond,
		Body: 200 * time.Millisecond, Stall: 200 * time.Millisecond, Write: 5 * time.Second}
}

// waitClosed reads from conn until the server closes it; it fails if that takes longer than
// limit, a watchdog minutes above the timeout under test so that only a hang fails it.
func waitClosed(t *testing.T, conn net.Conn, limit time.Duration) time.Duration {
	t.Helper()
	began := time.Now()
	_ = conn.SetReadDeadline(began.Add(limit))
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server kept the connection open for %v", limit)
	}
	return time.Since(began)
}

// TestServerClosesStalledAndIdleConnections: a body that stops arriving, on an API route and on
// an upload, and a keep-alive connection left idle are all closed by the server.
func TestServerClosesStalledAndIdleConnections(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, shortTimeouts, WithoutRateLimits())
	res := reserve(t, srv, seed.APIKey, 60_000)
	addr := strings.TrimPrefix(srv.URL(), "http://")
	upload := strings.TrimPrefix(res.UploadURL, srv.URL())
	tests := []struct {
		name    string
		request string
		// readAnswer reads one full answer before waiting (the idle case).
		readAnswer bool
	}{
		{"stalled API body", "POST /api/rest/v1/uploads HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + seed.APIKey +
			"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"file_name\":", false},
		{"stalled upload body", "PUT " + upload + " HTTP/1.1\r\nHost: x\r\nContent-Type: audio/wav\r\nContent-Length: 100000\r\n\r\nRIFF", false},
		{"stalled headers", "GET /api/rest/v1/me HTTP/1.1\r\nHost: x\r\n", false},
		{"idle keep-alive", "GET /api/rest/v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + seed.APIKey + "\r\n\r\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, tt.request); err != nil {
				t.Fatal(err)
			}
			if tt.readAnswer {
				resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
				if err != nil || resp.StatusCode != 200 || resp.Close {
					t.Fatalf("answer %v %v", resp, err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			waitClosed(t, conn, 2*time.Minute)
		})
	}
}
