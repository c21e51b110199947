package fakeserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/internal/apitime"
)

// BenchmarkNewTestAndGetMe is a test's fixed cost: a started fake with its seeded workspace,
// one GET /me, and the close. Compare with BenchmarkHTTPTestServerAndGet. The process's first
// fake, which builds what every fake shares (route tables, contracts), runs before the timing.
func BenchmarkNewTestAndGetMe(b *testing.B) {
	b.ReportAllocs()
	one := func() {
		srv, err := New(WithManualClock(TestStart()))
		if err != nil {
			b.Fatal(err)
		}
		seed, err := srv.SeedDemo()
		if err != nil {
			b.Fatal(err)
		}
		req, _ := http.NewRequest("GET", srv.URL()+"/api/rest/v1/me", nil)
		req.Header.Set("Authorization", "Bearer "+seed.APIKey)
		resp, err := srv.Client().Do(req)
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(err, resp)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err := srv.Close(); err != nil {
			b.Fatal(err)
		}
	}
	one()
	for b.Loop() {
		one()
	}
}

// BenchmarkHTTPTestServerAndGet is the baseline: an httptest server and one GET.
func BenchmarkHTTPTestServerAndGet(b *testing.B) {
	b.ReportAllocs()
	body := []byte(`{"workspace":{"type":"personal","id":"x","name":"Demo"},"key":null}`)
	for b.Loop() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		}))
		resp, err := srv.Client().Get(srv.URL + "/api/rest/v1/me")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		srv.Close()
	}
}

// completedReport starts a fake holding one completed report and returns the fake, the key and
// the report's path.
func completedReport(b *testing.B, opts ...Option) (*Server, string, string) {
	b.Helper()
	srv, err := New(append([]Option{WithManualClock(TestStart()), WithAnalysisPace(0)}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	seed, err := srv.SeedDemo()
	if err != nil {
		b.Fatal(err)
	}
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Bench", Episodes: []HostedEpisode{{Title: "e", Duration: 3 * time.Second}}})
	if err != nil {
		b.Fatal(err)
	}
	req, _ := http.NewRequest("POST", srv.URL()+"/api/rest/v1/reports", strings.NewReader(`{"feed_url":"`+feed.FeedURL+`"}`))
	req.Header.Set("Authorization", "Bearer "+seed.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	if err != nil || resp.StatusCode != 201 {
		b.Fatal(err, resp)
	}
	var created struct{ ID string }
	_ = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if _, err := srv.Advance(time.Second); err != nil {
		b.Fatal(err)
	}
	return srv, seed.APIKey, "/api/rest/v1/reports/" + created.ID
}

// getParallel runs GETs of url from 16 concurrent clients.
func getParallel(b *testing.B, client *http.Client, url, key string) {
	b.SetParallelism(16 / runtime.GOMAXPROCS(0))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("GET", url, nil)
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
}

// BenchmarkGetCompletedReport16Clients is GET /reports/{id} of a completed report from 16
// concurrent clients; compare with BenchmarkPlainHandlerSameBytes16Clients. Rate limits are off
// (WithoutRateLimits), as for any load test against the fake; everything else runs.
func BenchmarkGetCompletedReport16Clients(b *testing.B) {
	srv, key, path := completedReport(b, WithoutRateLimits())
	transport := &http.Transport{MaxIdleConnsPerHost: 64}
	b.Cleanup(transport.CloseIdleConnections)
	getParallel(b, &http.Client{Transport: transport}, srv.URL()+path, key)
}

// BenchmarkPlainHandlerSameBytes16Clients is the baseline: a plain net/http handler writing the
// same bytes the fake answers.
func BenchmarkPlainHandlerSameBytes16Clients(b *testing.B) {
	srv, key, path := completedReport(b)
	req, _ := http.NewRequest("GET", srv.URL()+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := srv.Client().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	b.Cleanup(plain.Close)
	transport := &http.Transport{MaxIdleConnsPerHost: 64}
	b.Cleanup(transport.CloseIdleConnections)
	getParallel(b, &http.Client{Transport: transport}, plain.URL+path, key)
}

// withAnalyzer replaces the analysis engine, so that benchmarks can fill a fake quickly.
func withAnalyzer(f func(context.Context, io.Reader, string) (core.Measurement, error)) Option {
	return func(o *options) { o.analyze = f }
}

// BenchmarkListUpdatedSince is the poll of the polling recipe, GET
// /reports?status=COMPLETE&updated_since=...&limit=100, over HTTP, with 50 reports updated since
// the watermark among 1,000 or 100,000 completed ones. The per-op time is the latency of one
// poll; compare the two sizes.
func BenchmarkListUpdatedSince(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			srv, err := New(WithManualClock(TestStart()), WithAnalysisPace(0), WithoutRateLimits(),
				withAnalyzer(func(context.Context, io.Reader, string) (core.Measurement, error) {
					return core.Measurement{Duration: 30 * time.Minute, Channels: 2, SampleRate: 44100, IntegratedLUFS: -16, TruePeakDB: -2, CodecName: "pcm_s16le", FormatName: "wav"}, nil
				}))
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			off := false
			ws, _ := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "Poll", ChargingEnabled: &off})
			key, _ := srv.CreateAPIKey(ws.ID, "")
			p, _ := srv.core.Authenticate(key.Key)
			var watermark time.Time
			for i := range n {
				if i == n-50 {
					if _, err := srv.Advance(time.Second); err != nil {
						b.Fatal(err)
					}
					watermark = srv.Now()
					if _, err := srv.Advance(time.Second); err != nil {
						b.Fatal(err)
					}
				}
				res, err := srv.core.Reserve(p, "a.wav", "audio/wav", 1000)
				if err == nil {
					err = srv.core.StoreUpload(res.ID, []byte("x"))
				}
				if err == nil {
					_, _, err = srv.core.CreateReportFromUpload(p, res.ID, "a.wav", 1000)
				}
				if err != nil {
					b.Fatal(err)
				}
				if i%1000 == 999 || i == n-1 {
					srv.clock.RunDue()
				}
			}
			url := srv.URL() + "/api/rest/v1/reports?status=COMPLETE&limit=100&updated_since=" +
				strings.ReplaceAll(apitime.Format(watermark), "+", "%2B")
			client := srv.Client()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				req, _ := http.NewRequest("GET", url, nil)
				req.Header.Set("Authorization", "Bearer "+key.Key)
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				var page struct{ Items []json.RawMessage }
				_ = json.NewDecoder(resp.Body).Decode(&page)
				resp.Body.Close()
				if resp.StatusCode != 200 || len(page.Items) != 50 {
					b.Fatalf("status %d, %d items", resp.StatusCode, len(page.Items))
				}
			}
		})
	}
}
