package fakeserver_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver"
)

// slowReceiver is a webhook receiver that holds every attempt until the test releases it or
// the sender gives the attempt up; arrived hears each attempt as it comes.
type slowReceiver struct {
	*httptest.Server
	arrived chan struct{}
	release chan struct{}
}

func newSlowReceiver(t *testing.T) *slowReceiver {
	t.Helper()
	r := &slowReceiver{arrived: make(chan struct{}, 1<<16), release: make(chan struct{})}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		r.arrived <- struct{}{}
		select {
		case <-r.release:
		case <-req.Context().Done():
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(func() {
		close(r.release)
		r.Close()
	})
	return r
}

// liveHeap is the heap in use once a collection has run.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestResetsKeepGoroutinesAndHeapFlat is must-have 5 of issue 41: on a real clock, with a
// receiver that never answers, pollers on the control API and the REST API, and a burst of
// completed reports (so webhook attempts) before every reset, 1,000 resets leave the
// goroutines and the live heap where they were after the first few. Before resets ended the
// old state's attempts, each reset left its attempts waiting on the receiver or for one of
// the sender's 128 slots, with their deliveries and bodies. The bounds count goroutines and
// bytes; nothing is timed.
func TestResetsKeepGoroutinesAndHeapFlat(t *testing.T) {
	// Not parallel: it counts the process's goroutines.
	resets, reportsPerReset := 1000, 20
	if testing.Short() {
		resets = 200
	}
	srv, err := fakeserver.New(fakeserver.WithPrivateURLs(true), fakeserver.WithoutRateLimits(),
		fakeserver.WithWebhookTimeout(time.Hour)) // the receiver is slower than any run
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	demo, err := srv.SeedDemo()
	if err != nil {
		t.Fatal(err)
	}
	receiver := newSlowReceiver(t)

	// Two pollers, as a test harness and a client would poll, until the resets are done.
	done := make(chan struct{})
	var pollers sync.WaitGroup
	stop := sync.OnceFunc(func() { close(done); pollers.Wait() })
	t.Cleanup(stop) // before the fake closes
	polls := make([]int, 2)
	for i, target := range []struct{ path, token string }{
		{"/_fake/webhook-deliveries", srv.AdminToken()},
		{"/api/rest/v1/reports", demo.APIKey},
	} {
		pollers.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				req, err := http.NewRequest(http.MethodGet, srv.URL()+target.path, nil)
				if err != nil {
					t.Error(err)
					return
				}
				req.Header.Set("Authorization", "Bearer "+target.token)
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode >= 500 {
					t.Errorf("poll of %s: %s", target.path, resp.Status)
				}
				polls[i]++
			}
		})
	}

	// round makes the state of one reset: an endpoint on the slow receiver and reports that
	// complete at once, each a delivery attempted at once. Below the sender's 128 slots, the
	// round waits for an attempt to reach the receiver, so that attempts are on the wire when
	// the reset comes, with the fix or without (past them, without the fix, none would arrive).
	round := func(i int) {
		if _, err := srv.CreateWebhookEndpoint(context.Background(), demo.WorkspaceID, fakeserver.WebhookEndpointSpec{
			URL: receiver.URL + fmt.Sprintf("/hook/%d", i), Events: []string{"report.completed"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := srv.SeedReports(demo.WorkspaceID, make([]fakeserver.SeededReport, reportsPerReset)); err != nil {
			t.Fatal(err)
		}
		if i < 100 {
			<-receiver.arrived
		}
		if _, err := srv.Reset(); err != nil {
			t.Fatal(err)
		}
	}
	const warmup = 20
	for i := range warmup {
		round(i)
	}
	baseGoroutines, baseHeap := runtime.NumGoroutine(), liveHeap()
	for i := warmup; i < resets; i++ {
		round(i)
	}
	stop()
	if polls[0] == 0 || polls[1] == 0 {
		t.Fatalf("the pollers made %v polls", polls)
	}
	goroutines, heap := runtime.NumGoroutine(), liveHeap()
	t.Logf("after %d resets (%d polls): %d goroutines (%d after %d), live heap %d KiB (%d KiB after %d)",
		resets, polls[0]+polls[1], goroutines, baseGoroutines, warmup, heap>>10, baseHeap>>10, warmup)
	// The pollers' two goroutines are gone; a few connections may linger either way.
	if goroutines > baseGoroutines+8 {
		t.Errorf("goroutines grew from %d to %d over %d resets", baseGoroutines, goroutines, resets-warmup)
	}
	// The state of one round is a few hundred KiB; 1,000 rounds' attempts held would be tens
	// of MiB.
	if heap > baseHeap+4<<20 {
		t.Errorf("the live heap grew from %d KiB to %d KiB over %d resets", baseHeap>>10, heap>>10, resets-warmup)
	}
}
