package drift_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/fakeserver/drift"
)

// seededFake is a fake whose Demo workspace holds n finished reports.
func seededFake(t *testing.T, n int) (*fakeserver.Server, fakeserver.DemoWorkspace) {
	t.Helper()
	srv, seed := fakeserver.NewTest(t)
	reports := make([]fakeserver.SeededReport, n)
	if _, err := srv.SeedReports(seed.WorkspaceID, reports); err != nil {
		t.Fatal(err)
	}
	return srv, seed
}

// clockedTransport notes the clock's instant of each request and moves the clock by step.
type clockedTransport struct {
	clock *client.ManualClock
	step  time.Duration
	mu    sync.Mutex
	at    []time.Time
}

func (c *clockedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.at = append(c.at, c.clock.Now())
	c.mu.Unlock()
	c.clock.Advance(c.step)
	return http.DefaultTransport.RoundTrip(r)
}

// TestImportWaitsOutLimits: a 429 with Retry-After and a 503 from the live side during an
// import are waited out on the injected clock, and the import is whole.
func TestImportWaitsOutLimits(t *testing.T) {
	t.Parallel()
	live, seed := liveFake(t)
	var limited, unavailable atomic.Int32
	flaky := front(t, live, nil, func(w http.ResponseWriter, r *http.Request) bool {
		switch {
		case r.URL.Path == "/api/rest/v1/series" && limited.Add(1) == 1:
			w.Header().Set("Retry-After", "20")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"error":{"code":"rate_limited","message":"Slow down."}}`)
			return true
		case strings.HasPrefix(r.URL.Path, "/api/rest/v1/reports/") && unavailable.Add(1) == 1:
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, "Service Unavailable")
			return true
		}
		return false
	})
	clock := client.NewManualClock(fakeserver.TestStart())
	var doc bytes.Buffer
	sum, err := drift.Import(context.Background(), flaky.URL, seed.APIKey, &doc, drift.WithClock(clock), drift.WithFixtureKey(fixtureKey))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Reports != 4 || limited.Load() < 2 || unavailable.Load() < 2 {
		t.Fatalf("summary %+v; %d /series and %d /reports/{id} requests", sum, limited.Load(), unavailable.Load())
	}
	if waited := clock.Now().Sub(fakeserver.TestStart()); waited < 20*time.Second {
		t.Errorf("waited %s on the clock, not the 20 s of Retry-After", waited)
	}
	if _, err := fakeserver.LoadFixtures(&doc); err != nil {
		t.Fatal(err)
	}
}

// TestImportPacesItself: the import keeps to the requests a minute it is given, in the fixed
// minute windows of the service's clock; against a fake that counts its limits (100 a minute
// on its own clock), an import of more than 100 requests is never refused with a 429.
func TestImportPacesItself(t *testing.T) {
	t.Parallel()
	t.Run("three a minute", func(t *testing.T) {
		t.Parallel()
		live, seed := seededFake(t, 4)
		clock := client.NewManualClock(fakeserver.TestStart())
		tr := &clockedTransport{clock: clock, step: time.Second}
		_, err := drift.Import(context.Background(), live.URL(), seed.APIKey, io.Discard, drift.WithClock(clock),
			drift.WithHTTPClient(&http.Client{Transport: tr}), drift.WithRequestsPerMinute(3))
		if err != nil {
			t.Fatal(err)
		}
		perMinute := map[time.Time]int{}
		for _, at := range tr.at {
			perMinute[at.Truncate(time.Minute)]++
		}
		// /me, /series, /reports, GraphQL, and each report and its transcript.
		if len(tr.at) != 4+2*4 || len(perMinute) < 4 {
			t.Fatalf("%d requests over %d minutes", len(tr.at), len(perMinute))
		}
		for m, n := range perMinute {
			if n > 3 {
				t.Errorf("%d requests in the minute from %s", n, m.Format(time.TimeOnly))
			}
		}
	})
	t.Run("the fake's own limit", func(t *testing.T) {
		t.Parallel()
		live, seed := seededFake(t, 60)
		_, err := drift.Import(context.Background(), live.URL(), seed.APIKey, io.Discard, drift.WithClock(live.Clock()),
			drift.WithHTTPClient(live.Client()), drift.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 1}))
		if err != nil {
			t.Fatal(err)
		}
		if refused := live.Requests(fakeserver.RequestFilter{Status: http.StatusTooManyRequests}); len(refused) != 0 {
			t.Errorf("%d requests refused with 429", len(refused))
		}
		if all := live.Requests(fakeserver.RequestFilter{Limit: 1000}); len(all) < 100+20 {
			t.Errorf("only %d requests: the test needs more than a minute's limit", len(all))
		}
	})
}

// TestImportShowsProgress: a long import writes its count, rate and time left.
func TestImportShowsProgress(t *testing.T) {
	t.Parallel()
	live, seed := seededFake(t, 30)
	clock := client.NewManualClock(fakeserver.TestStart())
	var progress strings.Builder
	_, err := drift.Import(context.Background(), live.URL(), seed.APIKey, io.Discard, drift.WithClock(clock), drift.WithRequestsPerMinute(0),
		drift.WithHTTPClient(&http.Client{Transport: &clockedTransport{clock: clock, step: 250 * time.Millisecond}}), drift.WithProgress(&progress))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	line := regexp.MustCompile(`^import: (25|30)/30 reports, [0-9.]+ reports/s, about \d+s left$`)
	if len(lines) != 2 || !line.MatchString(lines[0]) || !line.MatchString(lines[1]) || !strings.HasSuffix(lines[1], "about 0s left") {
		t.Fatalf("progress:\n%s", progress.String())
	}
}
