package soak_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/graphqlclient"
	"github.com/podqa/podqa-go/webhook"
)

const (
	soakClients   = 32
	opsPerClient  = 30
	feedEpisodes  = 12
	faultRounds   = 20
	clockStep     = 20 * time.Second
	uploadSeconds = 1
)

// serverErrors counts the 5xx answers the clients see, split into the ones fault injection
// explains and the rest.
type serverErrors struct {
	frontRefusals atomic.Int64 // plain-text 503 from in front of the API: injected
	internal      atomic.Int64 // JSON 500 internal_error: injected on GETs only
	other         atomic.Int64
	mu            sync.Mutex
	samples       []string
}

type countingTransport struct {
	next http.RoundTripper
	errs *serverErrors
}

func (c countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil || resp.StatusCode < 500 {
		return resp, err
	}
	ct := resp.Header.Get("Content-Type")
	switch {
	case resp.StatusCode == http.StatusServiceUnavailable && strings.HasPrefix(ct, "text/plain"):
		c.errs.frontRefusals.Add(1)
	case resp.StatusCode == http.StatusInternalServerError && req.Method == http.MethodGet && strings.HasPrefix(ct, "application/json"):
		c.errs.internal.Add(1)
	default:
		c.errs.other.Add(1)
		c.errs.mu.Lock()
		c.errs.samples = append(c.errs.samples, fmt.Sprintf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, ct))
		c.errs.mu.Unlock()
	}
	return resp, err
}

// verifyNoLeak fails t if goroutines other than those ignored are still running. goleak's own
// VerifyNone gives them about a second to end; on a loaded machine the fake's may need longer,
// so the search is repeated for up to two minutes, a watchdog that only a real leak outlasts.
func verifyNoLeak(t *testing.T, ignore goleak.Option) {
	t.Helper()
	var err error
	for watchdog := time.Now().Add(2 * time.Minute); time.Now().Before(watchdog); {
		if err = goleak.Find(ignore); err == nil {
			return
		}
	}
	t.Error(err)
}

// TestSoak runs soakClients concurrent clients, each doing opsPerClient operations drawn from
// a mixed workload (reports from a hosted feed and from uploads, listing and paging, reading
// reports and credits over REST, listing and reading reports over GraphQL), while a driver moves the fake's clock and injects faults. It requires:
// no 5xx beyond the injected ones, every created report final once the clock has moved on, and
// no goroutine left behind once the fake is closed.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak is long: -short skips it, the full suite (CI) runs it")
	}
	defer verifyNoLeak(t, goleak.IgnoreCurrent())

	srv, err := fakeserver.New(fakeserver.WithManualClock(fakeserver.TestStart()), fakeserver.WithoutRateLimits(),
		fakeserver.WithPrivateURLs(true))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := srv.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}()
	seed, err := srv.SeedDemo()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.SetCredits(seed.WorkspaceID, fakeserver.CreditsChange{PlanAllowance: ptr(1e9)}); err != nil {
		t.Fatal(err)
	}
	episodes := make([]fakeserver.HostedEpisode, feedEpisodes)
	for i := range episodes {
		// Short, mono, 8 kHz audio keeps the measuring cheap under the race detector.
		episodes[i] = fakeserver.HostedEpisode{Title: fmt.Sprintf("Episode %d", feedEpisodes-i), Duration: time.Duration(1+i%3) * time.Second, Channels: 1, SampleRate: 8000}
	}
	feed, err := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "Soak", Episodes: episodes})
	if err != nil {
		t.Fatal(err)
	}
	wav, err := fakeserver.SynthesizeWAV(fakeserver.AudioSpec{Duration: uploadSeconds * time.Second, SampleRate: 8000, Channels: 1})
	if err != nil {
		t.Fatal(err)
	}

	errs := &serverErrors{}
	httpClient := &http.Client{Transport: countingTransport{next: srv.Client().Transport, errs: errs}}
	c, err := client.New(seed.APIKey, client.WithBaseURL(srv.URL()), client.WithHTTPClient(httpClient),
		client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 6, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, MaxRetryAfter: time.Second}))
	if err != nil {
		t.Fatal(err)
	}

	gql, err := graphqlclient.New(c)
	if err != nil {
		t.Fatal(err)
	}

	// A watchdog that turns a hang into a failure, minutes beyond what the soak takes under
	// load; the soak's own bounds are on the fake's clock and on operations done.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// Two local receivers: one subscribed over REST, one made as in Settings. The second fails
	// the first attempt of every third delivery, so the retry ladder runs during the soak.
	restReceiver := newReceiver(t, srv, 0)
	defer restReceiver.server.Close()
	sub, err := c.SubscribeWebhook(ctx, client.WebhookSubscribeParams{URL: restReceiver.server.URL,
		Events: []client.WebhookEvent{client.EventReportCompleted, client.EventReportFailed, client.EventReportOutOfQuota}})
	if err != nil {
		t.Fatal(err)
	}
	restReceiver.setSecret(t, sub.Secret)
	settingsReceiver := newReceiver(t, srv, 3)
	defer settingsReceiver.server.Close()
	ep, err := srv.CreateWebhookEndpoint(ctx, seed.WorkspaceID, fakeserver.WebhookEndpointSpec{URL: settingsReceiver.server.URL,
		Events: []string{"report.completed", "report.failed", "report.out_of_quota"}})
	if err != nil {
		t.Fatal(err)
	}
	settingsReceiver.setSecret(t, ep.Secret)
	var (
		created   sync.Map // report id → struct{}
		workers   sync.WaitGroup
		failures  atomic.Int64
		firstFail sync.Once
		failMsg   string
	)
	fail := func(format string, args ...any) {
		failures.Add(1)
		firstFail.Do(func() { failMsg = fmt.Sprintf(format, args...) })
	}
	for w := range soakClients {
		workers.Add(1)
		go func() {
			defer workers.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			for range opsPerClient {
				if err := soakOp(ctx, c, gql, rng, feed.FeedURL, wav, &created); err != nil {
					fail("client %d: %v", w, err)
				}
			}
		}()
	}

	// The driver moves the clock and arms faults while the clients work.
	driverDone := make(chan struct{})
	go func() {
		defer close(driverDone)
		for i := range faultRounds {
			fault := fakeserver.Fault{Method: http.MethodGet, PathPrefix: "/api/rest/v1/reports", Status: http.StatusInternalServerError, Count: 2}
			if i%2 == 1 {
				fault = fakeserver.Fault{PathPrefix: "/api/rest/v1/", Status: http.StatusServiceUnavailable, Count: 2}
			}
			if _, err := srv.InjectFault(fault); err != nil {
				fail("inject: %v", err)
			}
			if _, err := srv.Advance(clockStep); err != nil {
				fail("advance: %v", err)
			}
		}
	}()
	workers.Wait()
	<-driverDone
	srv.ClearFaults()
	if n := failures.Load(); n > 0 {
		t.Fatalf("%d operations failed; the first: %s", n, failMsg)
	}

	// Every report created must reach a final status once the clock has moved on.
	if _, err := srv.Advance(2 * time.Hour); err != nil {
		t.Fatal(err)
	}
	total, final := 0, 0
	created.Range(func(key, _ any) bool {
		total++
		r, err := c.GetReport(ctx, key.(string))
		if err != nil {
			t.Errorf("report %s: %v", key, err)
			return true
		}
		if r.Status.IsFinal() {
			final++
		} else {
			t.Errorf("report %s is still %s", key, r.Status)
		}
		return true
	})
	if total == 0 || final != total {
		t.Errorf("%d of %d created reports are final", final, total)
	}

	// Every finished report reached both receivers exactly once, and every delivery ended well.
	for name, rcv := range map[string]*receiver{"REST": restReceiver, "Settings": settingsReceiver} {
		rcv.mu.Lock()
		if len(rcv.reports) != total {
			t.Errorf("%s receiver heard of %d reports, want %d", name, len(rcv.reports), total)
		}
		created.Range(func(key, _ any) bool {
			if n := rcv.reports[key.(string)]; n != 1 {
				t.Errorf("%s receiver: report %s delivered %d times", name, key, n)
			}
			return true
		})
		rcv.mu.Unlock()
	}
	deliveries, err := srv.WebhookDeliveries("")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range deliveries {
		if d.Status != "succeeded" {
			t.Errorf("delivery %s (%s) ended %s: %v", d.ID, d.EventType, d.Status, d.LastError)
		}
	}
	settingsReceiver.mu.Lock()
	refused := settingsReceiver.refused
	settingsReceiver.mu.Unlock()
	if refused == 0 {
		t.Error("the failing receiver never refused a delivery: the retry ladder did not run")
	}
	if n := errs.other.Load(); n > 0 {
		t.Errorf("%d unexpected 5xx answers, such as %q", n, errs.samples[:min(len(errs.samples), 5)])
	}
	injected500 := int64(faultRounds / 2 * 2)
	if n := errs.internal.Load(); n > injected500 {
		t.Errorf("%d internal errors on GETs, only %d were injected", n, injected500)
	}
	t.Logf("%d clients × %d operations: %d reports created, all final and delivered once to each of 2 receivers (%d first attempts refused and retried); 5xx seen: %d front refusals and %d internal errors, all injected",
		soakClients, opsPerClient, total, refused, errs.frontRefusals.Load(), errs.internal.Load())
}

// soakOp runs one operation of the mixed workload. Errors the service documents for the
// situation (a 503 the client gave up on after its retries, a conflict) are not failures;
// anything else is.
func soakOp(ctx context.Context, c *client.Client, gql *graphqlclient.Client, rng *rand.Rand, feedURL string, wav []byte, created *sync.Map) error {
	switch op := rng.IntN(12); {
	case op < 3:
		r, err := c.CreateReportFromFeed(ctx, feedURL, client.CreateReportParams{EpisodeIndex: rng.IntN(feedEpisodes)})
		if err != nil {
			return tolerated(err)
		}
		created.Store(r.ID, struct{}{})
	case op < 5:
		r, err := c.Upload(ctx, strings.NewReader(string(wav)), client.UploadParams{FileName: "take.wav", ContentType: "audio/wav"})
		if err != nil {
			return tolerated(err)
		}
		created.Store(r.ID, struct{}{})
	case op < 7:
		page, err := c.ListReports(ctx, client.ListReportsParams{Limit: 1 + rng.IntN(100), Offset: rng.IntN(50)})
		if err != nil {
			return tolerated(err)
		}
		if page.Limit == 0 {
			return errors.New("a page without its applied limit")
		}
	case op < 8:
		n := 0
		for _, err := range c.AllReports(ctx, client.ListReportsParams{Status: client.StatusComplete}) {
			if err != nil {
				return tolerated(err)
			}
			if n++; n >= 150 {
				break
			}
		}
	case op < 9:
		var id string
		created.Range(func(k, _ any) bool { id = k.(string); return rng.IntN(4) != 0 })
		if id == "" {
			return nil
		}
		if _, err := c.GetReport(ctx, id); err != nil {
			return tolerated(err)
		}
	case op < 10:
		if _, err := c.GetCredits(ctx); err != nil {
			return tolerated(err)
		}
	case op < 11:
		rows, err := gql.ListReports(ctx, graphqlclient.ListReportsParams{ListParams: graphqlclient.ListParams{Limit: 20}, Status: client.StatusComplete})
		if err != nil {
			return fmt.Errorf("GraphQL reports: %w", err)
		}
		for _, r := range rows {
			if r.Status != client.StatusComplete {
				return fmt.Errorf("GraphQL status filter let %s through", r.Status)
			}
		}
	default:
		var id string
		created.Range(func(k, _ any) bool { id = k.(string); return rng.IntN(4) != 0 })
		if id == "" {
			return nil
		}
		if _, err := gql.GetReport(ctx, id); err != nil {
			return fmt.Errorf("GraphQL report: %w", err)
		}
	}
	return nil
}

// tolerated passes over the errors fault injection can legitimately cause once the client's
// retries are spent.
func tolerated(err error) error {
	var apiErr *client.APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode >= 500 && (apiErr.Code == "" || apiErr.Code == client.CodeInternalError) {
		return nil
	}
	return err
}

func ptr[T any](v T) *T { return &v }

// receiver is a local webhook receiver: it verifies deliveries on the fake's clock, drops
// redeliveries by webhook-id, and counts the report events it handled per report.
type receiver struct {
	server    *httptest.Server
	clock     client.Clock // the fake's, which stamps its deliveries
	mu        sync.Mutex
	handler   http.Handler
	failEvery int            // refuse the first attempt of every failEvery-th delivery; 0 never
	attempts  map[string]int // attempts seen per webhook-id
	seen      int            // distinct webhook-ids seen
	refused   int
	reports   map[string]int // report id → times handled
}

func newReceiver(t *testing.T, srv *fakeserver.Server, failEvery int) *receiver {
	rcv := &receiver{clock: srv.Clock(), failEvery: failEvery, attempts: map[string]int{}, reports: map[string]int{}}
	rcv.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(webhook.HeaderID)
		rcv.mu.Lock()
		if rcv.attempts[id] == 0 {
			rcv.seen++
		}
		rcv.attempts[id]++
		refuse := rcv.failEvery > 0 && rcv.attempts[id] == 1 && rcv.seen%rcv.failEvery == 0
		if refuse {
			rcv.refused++
		}
		h := rcv.handler
		rcv.mu.Unlock()
		if refuse || h == nil {
			http.Error(w, "not now", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	}))
	return rcv
}

func (rcv *receiver) setSecret(t *testing.T, secret string) {
	t.Helper()
	h, err := webhook.NewHandler(secret, func(_ context.Context, e webhook.Event) error {
		if e.Report == nil {
			return fmt.Errorf("unexpected event %s", e.Type)
		}
		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		rcv.reports[e.Report.ID]++
		return nil
	}, webhook.WithVerifierOptions(webhook.WithClock(rcv.clock)))
	if err != nil {
		t.Fatal(err)
	}
	rcv.mu.Lock()
	rcv.handler = h
	rcv.mu.Unlock()
}
