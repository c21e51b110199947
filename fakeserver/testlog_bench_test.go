package fakeserver

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"runtime"
	"testing"
)

// iterTB is one benchmark iteration as a test: NewTest's cleanups run at the iteration's end,
// and its Log does what testing's does for a line (the caller's file and line, the text, kept
// in the test's output), into a buffer the iteration drops.
type iterTB struct {
	testing.TB // the benchmark: Helper, Errorf, Fatalf, Name, Failed
	cleanups   []func()
	out        bytes.Buffer
}

func (it *iterTB) Cleanup(f func()) { it.cleanups = append(it.cleanups, f) }

func (it *iterTB) Log(args ...any) {
	_, file, line, _ := runtime.Caller(1)
	fmt.Fprintf(&it.out, "    %s:%d: %s", filepath.Base(file), line, fmt.Sprintln(args...))
}

func (it *iterTB) end() {
	for i := len(it.cleanups) - 1; i >= 0; i-- {
		it.cleanups[i]()
	}
	it.cleanups = it.cleanups[:0]
	it.out.Reset()
}

// BenchmarkNewTestAndGetMeLogging is BenchmarkNewTestAndGetMe through NewTest, with the fake's
// log into the test's Log at its default level (log=info), at DEBUG (every request too), and
// off (log=off: discarded, as NewTest did before it spoke). Compare the rows with
// benchstat -col /log: log=info may cost at most 10% more than log=off.
func BenchmarkNewTestAndGetMeLogging(b *testing.B) {
	for _, bb := range []struct {
		name string
		opts []Option
	}{
		{"log=off", []Option{WithLogger(slog.New(slog.DiscardHandler))}},
		{"log=info", nil},
		{"log=debug", []Option{WithTestLogLevel(slog.LevelDebug)}},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			it := &iterTB{TB: b}
			var logged int
			for b.Loop() {
				srv, seed := NewTest(it, bb.opts...)
				req, _ := http.NewRequest("GET", srv.URL()+"/api/rest/v1/me", nil)
				req.Header.Set("Authorization", "Bearer "+seed.APIKey)
				resp, err := srv.Client().Do(req)
				if err != nil || resp.StatusCode != 200 {
					b.Fatal(err, resp)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				logged = it.out.Len()
				it.end()
			}
			b.ReportMetric(float64(logged), "log-bytes/op")
		})
	}
}

// BenchmarkTestLogLine is what one INFO line of the fake costs a NewTest test: the text
// handler's formatting and the test's Log (as iterTB does it). NewTest and a GET /me log one
// line at INFO, two at DEBUG (log-bytes/op of BenchmarkNewTestAndGetMeLogging).
func BenchmarkTestLogLine(b *testing.B) {
	it := &iterTB{TB: b}
	sink := &testSink{t: it}
	log := sink.logger(slog.LevelInfo)
	b.ReportAllocs()
	for b.Loop() {
		log.Info("workspace created", "kind", EventWorkspaceCreated, "workspace_id", "76fde24d-7f9b-4449-b9fb-5e3e6a5507cc", "type", "personal")
		it.out.Reset()
	}
}
