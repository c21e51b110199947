package storeproof

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/webhook"
	"github.com/podqa/podqa-go/webhook/webhooktest"
)

// Receivers is the proof for a shared DedupStore: three webhook.NewHandler instances, each
// on its own store from open (as three processes would open one shared state; a store that lives in
// one process returns itself), behind a small load-balancing front. The fake delivers one
// report.completed per report (n reports, completing one per fake second); the front passes each
// delivery to one instance and, at the same moment, a copy to the next one (as a retrying proxy or
// an at-least-once sender would), and answers the fake with the first instance's status, so that
// the fake retries what was refused. Every 50th event's callback fails once, on whichever instance
// runs it first. It checks that every event's callback succeeded exactly once, that each failed one
// was processed by a later attempt, once, that every delivery ended succeeded, and that once the
// stores are flushed a fourth instance finds every webhook-id done.
func Receivers(t *testing.T, open func(t *testing.T) webhook.DedupStore, n int) {
	srv, seed := fakeserver.NewTest(t, fakeserver.WithPrivateURLs(true))
	ctx := context.Background()

	var (
		mu        sync.Mutex
		succeeded = map[string]int{} // report id → successful callbacks
		failed    = map[string]int{} // report id → failed callbacks
		ranOn     = map[int]int{}    // instance → callbacks run
		attempts  = map[string]int{} // webhook-id → attempts the fake made
		last      = map[string]int{} // webhook-id → status of its last attempt
	)
	reportIndex := map[string]int{}
	instances := make([]http.Handler, 3)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		k := len(succeeded) + len(failed) + int(time.Now().UnixNano()%3) // spread over the instances
		mu.Unlock()
		primary, copyTo := k%3, (k+1)%3
		start := make(chan struct{})
		results := make([]*httptest.ResponseRecorder, 2)
		var wg sync.WaitGroup
		for i, inst := range []int{primary, copyTo} {
			req := r.Clone(ctx)
			req.Body = io.NopCloser(strings.NewReader(string(body)))
			rec := httptest.NewRecorder()
			results[i] = rec
			wg.Go(func() {
				<-start
				instances[inst].ServeHTTP(rec, req)
			})
		}
		close(start) // both at the same moment
		wg.Wait()
		for k, v := range results[0].Header() {
			w.Header()[k] = v
		}
		mu.Lock()
		attempts[r.Header.Get(webhook.HeaderID)]++
		last[r.Header.Get(webhook.HeaderID)] = results[0].Code
		mu.Unlock()
		w.WriteHeader(results[0].Code)
		_, _ = w.Write(results[0].Body.Bytes())
	}))
	t.Cleanup(front.Close)

	ep, err := srv.CreateWebhookEndpoint(ctx, seed.WorkspaceID, fakeserver.WebhookEndpointSpec{URL: front.URL, Events: []string{"report.completed"}})
	if err != nil {
		t.Fatal(err)
	}
	stores := make([]webhook.DedupStore, len(instances))
	for i := range instances {
		store := open(t)
		stores[i] = store
		h, err := webhook.NewHandler(ep.Secret, func(ctx context.Context, e webhook.Event) error {
			if e.Report == nil {
				return errors.New("not a report event")
			}
			id := e.Report.ID
			mu.Lock()
			defer mu.Unlock()
			ranOn[i]++
			if reportIndex[id]%50 == 0 && failed[id] == 0 {
				failed[id]++
				return fmt.Errorf("instance %d: deliberate failure", i)
			}
			succeeded[id]++
			return nil
		}, webhook.WithDedupStore(store), webhook.WithVerifierOptions(webhook.WithClock(srv.Clock())))
		if err != nil {
			t.Fatal(err)
		}
		instances[i] = h
	}

	reports := make([]fakeserver.SeededReport, n)
	for i := range reports {
		reports[i].CompleteAfter = time.Duration(i+1) * time.Second
	}
	ids, err := srv.SeedReports(seed.WorkspaceID, reports)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	for i, id := range ids {
		reportIndex[id] = i
	}
	mu.Unlock()
	// Every report completes and is delivered; refused attempts come again on the retry
	// ladder (about 10 minutes, then 20, …), all within a few hours.
	if _, err := srv.Advance(time.Duration(n+1) * time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Advance(4 * time.Hour); err != nil {
		t.Fatal(err)
	}

	mu.Lock()
	defer mu.Unlock()
	var twice, never, failedNotRetried, retried int
	for i, id := range ids {
		switch succeeded[id] {
		case 1:
		case 0:
			never++
		default:
			twice++
		}
		if i%50 == 0 {
			if failed[id] != 1 || succeeded[id] != 1 {
				failedNotRetried++
			} else {
				retried++
			}
		}
	}
	if never != 0 || twice != 0 || failedNotRetried != 0 {
		t.Fatalf("%d events never succeeded, %d succeeded more than once, %d failed callbacks not processed once by a retry", never, twice, failedNotRetried)
	}
	retriedDeliveries := 0
	for id, code := range last {
		if code != http.StatusOK {
			t.Fatalf("delivery %s: last attempt answered %d", id, code)
		}
		if attempts[id] > 1 {
			retriedDeliveries++
		}
	}
	if len(last) != n {
		t.Fatalf("%d deliveries reached the front, want %d", len(last), n)
	}
	// The fake's own log (its 20 newest) agrees.
	log, err := srv.WebhookDeliveries(ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range log {
		if d.Status != "succeeded" {
			t.Fatalf("the fake's log: %+v", d)
		}
	}
	for _, s := range stores {
		webhooktest.Flush(t, s)
	}
	after := open(t)
	for id := range last {
		if st, _, err := after.Claim(ctx, id, time.Minute); err != nil || st != webhook.AlreadyDone {
			t.Fatalf("delivery %s after the run: Claim = %v, %v; want already done", id, st, err)
		}
	}
	if ranOn[0] == 0 || ranOn[1] == 0 || ranOn[2] == 0 {
		t.Fatalf("callbacks per instance %v: the front did not spread the deliveries", ranOn)
	}
	t.Logf("%d events, each succeeded once; %d failed callbacks each processed once by a retry; %d deliveries needed a retry (409 or 500); callbacks per instance %v",
		n, retried, retriedDeliveries, ranOn)
}
