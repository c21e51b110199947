//go:build unix

package fakeserver

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/rest"
)

// BenchmarkServeReportLoopback is GET /reports/{id} of a completed report from 16 keep-alive
// connections over loopback, served by the fake as the program runs it (text log at INFO, rate
// limits off as for any load test) and by a plain net/http server writing the same body, in one
// run. The client is a minimal HTTP/1.1 reader, as wrk is, so that the ratio of the two is the
// servers' and not the Go client's: compare server=fake with server=plain (target ≥ 0.8× the
// plain server's throughput). On a shared machine compare cpu-ns/op, the process's CPU time per
// request (client and server), which the machine's other load does not inflate as it does ns/op.
func BenchmarkServeReportLoopback(b *testing.B) {
	srv, plain, key, path, want := reportAndPlainServers(b)
	for _, bc := range []struct{ name, base string }{{"fake", srv.URL()}, {"plain", plain.URL}} {
		b.Run("server="+bc.name, func(b *testing.B) {
			getRaw(b, bc.base, path, key, len(want))
		})
	}
}

// BenchmarkListFirstPageLoopback is GET /reports (the first page of 50, newest first) over
// loopback from 16 keep-alive connections, with 1,000 and 100,000 completed reports in the
// workspace: the page costs what it holds, not what the workspace holds.
func BenchmarkListFirstPageLoopback(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("reports=%d", n), func(b *testing.B) {
			srv, err := New(WithManualClock(TestStart()), WithoutRateLimits())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = srv.Close() })
			seed, err := srv.SeedDemo()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := srv.SeedReports(seed.WorkspaceID, make([]SeededReport, n)); err != nil {
				b.Fatal(err)
			}
			path := rest.Base + "/reports"
			body := loopbackBody(b, srv.URL()+path, seed.APIKey)
			if got := bytes.Count(body, []byte(`"status":"COMPLETE"`)); got != DefaultReportPageSize {
				b.Fatalf("first page holds %d completed reports, want %d: %s", got, DefaultReportPageSize, body)
			}
			getRaw(b, srv.URL(), path, seed.APIKey, -1)
		})
	}
}

// loopbackBody GETs url once with the Go client and returns the body of its 200 answer.
func loopbackBody(b *testing.B, url, key string) []byte {
	b.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("%d %s %v", resp.StatusCode, body, err)
	}
	return body
}

// getRaw times GETs of path from 16 keep-alive connections to base (http://host:port), each
// answer read by rawClient; wantLen ≥ 0 is the body's length every answer must have.
func getRaw(b *testing.B, base, path, key string, wantLen int) {
	addr := strings.TrimPrefix(base, "http://")
	request := []byte("GET " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + key + "\r\n\r\n")
	b.SetParallelism(16 / runtime.GOMAXPROCS(0))
	b.ReportAllocs()
	// The setup's garbage (100,000 seeded reports make a lot) is collected before the clock
	// starts, not charged to the requests.
	runtime.GC()
	b.ResetTimer()
	began := processCPU(b)
	defer func() { b.ReportMetric(float64(processCPU(b)-began)/float64(b.N), "cpu-ns/op") }()
	b.RunParallel(func(pb *testing.PB) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			b.Error(err)
			return
		}
		defer conn.Close()
		c := &rawClient{r: bufio.NewReaderSize(conn, 64<<10)}
		for pb.Next() {
			if _, err := conn.Write(request); err != nil {
				b.Error(err)
				return
			}
			status, n, err := c.readResponse()
			if err != nil {
				b.Error(err)
				return
			}
			if status != http.StatusOK || (wantLen >= 0 && n != wantLen) {
				b.Errorf("status %d, %d body bytes (want 200, %d)", status, n, wantLen)
				return
			}
		}
	})
}

// rawClient reads HTTP/1.1 answers with as little work as it can: the status, Content-Length or
// chunked framing, and the body discarded.
type rawClient struct {
	r *bufio.Reader
}

// readResponse reads one answer and returns its status and its body's length.
func (c *rawClient) readResponse() (status, bodyLen int, err error) {
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return 0, 0, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, 0, fmt.Errorf("status line %q", line)
	}
	if status, err = strconv.Atoi(string(line[9:12])); err != nil {
		return 0, 0, err
	}
	contentLength, chunked := -1, false
	for {
		line, err := c.r.ReadSlice('\n')
		if err != nil {
			return 0, 0, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if contentLength, err = strconv.Atoi(string(value)); err != nil {
				return 0, 0, err
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		}
	}
	if !chunked {
		if contentLength < 0 {
			return 0, 0, fmt.Errorf("answer without length")
		}
		_, err := c.r.Discard(contentLength)
		return status, contentLength, err
	}
	for {
		line, err := c.r.ReadSlice('\n')
		if err != nil {
			return 0, 0, err
		}
		size, err := strconv.ParseInt(string(bytes.TrimRight(line, "\r\n")), 16, 32)
		if err != nil {
			return 0, 0, err
		}
		if _, err := c.r.Discard(int(size) + 2); err != nil {
			return 0, 0, err
		}
		if size == 0 {
			return status, bodyLen, nil
		}
		bodyLen += int(size)
	}
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkServeReportInterleaved is BenchmarkServeReportLoopback's comparison made robust to a
// busy machine: the same GETs from 16 keep-alive connections to each server, in rounds of 1,000
// requests that alternate between the fake and the plain handler, so that both see the same
// load. It reports each server's process CPU and wall time per request and the plain server's
// totals over the fake's (cpu-ratio, tput-ratio: the fake's share of the plain server's speed;
// target ≥ 0.8). An op is one request to each server (B/op and allocs/op count both).
func BenchmarkServeReportInterleaved(b *testing.B) {
	srv, plain, key, path, want := reportAndPlainServers(b)
	const clients, round = 16, 1000
	servers := [2]*loopbackClients{
		dialClients(b, srv.URL(), path, key, clients),
		dialClients(b, plain.URL, path, key, clients),
	}
	b.ReportAllocs()
	runtime.GC()
	b.ResetTimer()
	var cpu, wall [2]time.Duration
	for done := 0; done < b.N; done += round {
		n := min(round, b.N-done)
		for i, s := range servers {
			c0, w0 := processCPU(b), time.Now()
			s.serve(b, n, len(want))
			cpu[i] += processCPU(b) - c0
			wall[i] += time.Since(w0)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpu[0])/float64(b.N), "fake-cpu-ns/op")
	b.ReportMetric(float64(cpu[1])/float64(b.N), "plain-cpu-ns/op")
	b.ReportMetric(float64(wall[0])/float64(b.N), "fake-ns/op")
	b.ReportMetric(float64(wall[1])/float64(b.N), "plain-ns/op")
	b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "cpu-ratio")
	b.ReportMetric(float64(wall[1])/float64(wall[0]), "tput-ratio")
}

// loopbackClients are keep-alive connections to one server, each sending the same GET.
type loopbackClients struct {
	request []byte
	conns   []net.Conn
	readers []*rawClient
}

// dialClients opens n connections to base for GETs of path with key.
func dialClients(b *testing.B, base, path, key string, n int) *loopbackClients {
	addr := strings.TrimPrefix(base, "http://")
	c := &loopbackClients{request: []byte("GET " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + key + "\r\n\r\n")}
	for range n {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { conn.Close() })
		c.conns = append(c.conns, conn)
		c.readers = append(c.readers, &rawClient{r: bufio.NewReaderSize(conn, 64<<10)})
	}
	return c
}

// serve makes n GETs spread over the connections, each answer 200 with wantLen body bytes.
func (c *loopbackClients) serve(b *testing.B, n, wantLen int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for i, conn := range c.conns {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				if _, err := conn.Write(c.request); err != nil {
					b.Error(err)
					return
				}
				status, got, err := c.readers[i].readResponse()
				if err != nil || status != http.StatusOK || got != wantLen {
					b.Errorf("status %d, %d body bytes, %v (want 200, %d)", status, got, err, wantLen)
					return
				}
			}
		})
	}
	wg.Wait()
}

// reportAndPlainServers starts the fake as the program runs it (text log at INFO, rate limits
// off as for any load test) with a completed report, and a plain net/http server writing that
// report's body; it returns both, a key, the report's path and the body.
func reportAndPlainServers(b *testing.B) (srv *Server, plain *httptest.Server, key, path string, want []byte) {
	b.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	srv, key, path = completedReport(b, WithoutRateLimits(), WithLogger(logger))
	want = loopbackBody(b, srv.URL()+path, key)
	plain = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(want)
	}))
	b.Cleanup(plain.Close)
	return srv, plain, key, path, want
}
