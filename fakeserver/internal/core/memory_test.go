package core

import (
	"context"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
)

// BenchmarkMemoryPerCompletedReport creates completed upload reports, each judged and charged,
// and reports the heap they hold per report (target: at most 3 KiB).
func BenchmarkMemoryPerCompletedReport(b *testing.B) {
	const n = 20_000
	for b.Loop() {
		off := false
		c := New(clock.NewManual(start), Deps{
			Analyze: func(context.Context, io.Reader, string) (Measurement, error) {
				return Measurement{Duration: 42 * time.Minute, Size: 40 << 20, Channels: 2, SampleRate: 44100,
					CodecName: "pcm_s16le", FormatName: "wav", IntegratedLUFS: -16.3, SamplePeakDB: -1.2, TruePeakDB: -0.9}, nil
			},
		})
		ws, _ := c.CreateWorkspace(NewWorkspace{Type: Personal, Name: "Mem", ChargingEnabled: &off})
		rec, key, _ := c.CreateAPIKey(ws.ID, "", false)
		_ = rec
		p, _ := c.Authenticate(key)
		audio := []byte("RIFF")
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n {
			res, err := c.Reserve(p, "episode.wav", "audio/wav", 42*60_000)
			if err != nil {
				b.Fatal(err)
			}
			if err := c.StoreUpload(res.ID, audio); err != nil {
				b.Fatal(err)
			}
			if _, _, err := c.CreateReportFromUpload(p, res.ID, "episode.wav", 42*60_000); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := c.Clock().Advance(time.Hour); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if got := listReports(b, c, p, ReportFilter{Status: StatusComplete}, 1, 0); len(got.Items) != 1 || got.Items[0].Stats == nil {
			b.Fatal("reports did not complete")
		}
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "heapB/report")
		runtime.KeepAlive(c)
	}
}
