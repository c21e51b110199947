package drift_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/fakeserver/drift"
)

// BenchmarkCheckKeyless is drift without a key against a loopback fake: both contracts fetched,
// parsed and compared (issue 42: under 2 s).
func BenchmarkCheckKeyless(b *testing.B) {
	srv, _ := fakeserver.NewTest(b)
	b.ReportAllocs()
	var cpu time.Duration
	for b.Loop() {
		if cpu == 0 {
			cpu = cpuTime()
		}
		rep, err := drift.Check(context.Background(), srv.URL(), drift.WithHTTPClient(srv.Client()))
		if err != nil || rep.Drifted() {
			b.Fatal(err, rep)
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkImport1000 imports 1,000 reports from a loopback fake without rate limits (issue 42:
// under 30 s and 200 MiB); peak-heap-MiB is the most heap in use sampled during an import.
func BenchmarkImport1000(b *testing.B) {
	srv, seed := fakeserver.NewTest(b, fakeserver.WithoutRateLimits())
	if _, err := srv.SeedReports(seed.WorkspaceID, make([]fakeserver.SeededReport, 1000)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
		}
	}()
	var written countingWriter
	var cpu time.Duration
	for b.Loop() {
		if cpu == 0 {
			cpu = cpuTime()
		}
		written = 0
		sum, err := drift.Import(context.Background(), srv.URL(), seed.APIKey, &written, drift.WithHTTPClient(srv.Client()),
			drift.WithRequestsPerMinute(0), drift.WithLimit(1000), drift.WithFixtureKey(fixtureKey))
		if err != nil || sum.Reports != 1000 {
			b.Fatal(err, sum)
		}
	}
	reportCPU(b, cpu)
	close(stop)
	<-done
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(written)/(1<<20), "fixtures-MiB")
}

// cpuTime is the process's user and system CPU time so far: on a loaded machine the wall time
// of a benchmark counts the other processes' turns, its CPU time does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU seconds an op took, since the CPU time at start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric((cpuTime()-start).Seconds()/float64(b.N), "cpu-s/op")
}

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

// BenchmarkStartWith10000Imported loads a fixtures document of 10,000 recorded reports (copies
// of reports imported from a fake, with their results, file info, metadata, covers and
// transcripts) and starts a fake with it (issue 42: under 3 s).
func BenchmarkStartWith10000Imported(b *testing.B) {
	doc := importedDocument(b, 10_000)
	b.ReportAllocs()
	var cpu time.Duration
	for b.Loop() {
		if cpu == 0 {
			cpu = cpuTime()
		}
		f, err := fakeserver.LoadFixtures(bytes.NewReader(doc))
		if err != nil {
			b.Fatal(err)
		}
		srv, err := fakeserver.New(fakeserver.WithFixtures(f), fakeserver.WithManualClock(fakeserver.TestStart()))
		if err != nil {
			b.Fatal(err)
		}
		_ = srv.Close()
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(len(doc))/(1<<20), "document-MiB")
}

// importedDocument is a fixtures document of n recorded reports made from an import of
// liveFake's reports, each copy with its own id and creation time.
func importedDocument(b *testing.B, n int) []byte {
	b.Helper()
	live, seed := liveFake(b)
	var raw bytes.Buffer
	if _, err := drift.Import(context.Background(), live.URL(), seed.APIKey, &raw, drift.WithHTTPClient(live.Client()),
		drift.WithClock(live.Clock()), drift.WithFixtureKey(fixtureKey)); err != nil {
		b.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw.Bytes(), &doc); err != nil {
		b.Fatal(err)
	}
	ws := doc["workspaces"].([]any)[0].(map[string]any)
	recorded := ws["recorded_reports"].([]any)
	out := make([]any, n)
	start := fakeserver.TestStart()
	for i := range n {
		r := map[string]any{}
		for k, v := range recorded[i%len(recorded)].(map[string]any) {
			r[k] = v
		}
		r["id"] = fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		at := start.Add(time.Duration(i) * time.Second).Format("2006-01-02T15:04:05.000000+00:00")
		r["created_at"], r["updated_at"] = at, at
		delete(r, "started_at")
		out[i] = r
	}
	ws["recorded_reports"] = out
	b2, err := json.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	return b2
}
