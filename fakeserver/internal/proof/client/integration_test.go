package clientproof_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
)

// The integration tests run each scenario against the in-memory fake and, when PODQA_BASE_URL
// and PODQA_API_KEY are set, against that real deployment too. Scenarios that need the fake's
// controls (disabling a key, injecting a fault) skip the real target with the reason.
//
// Optional variables for the real target:
//   - PODQA_ORG_API_KEY: a key of an organisation workspace, for the organisation scenario.
//   - PODQA_TEST_RATE_LIMIT=1: allows the scenario that spends the key's per-minute budget; run
//     it on its own (-run RateLimited), since it leaves the key limited for up to a minute.

// backend is one target of the integration tests.
type backend struct {
	baseURL string
	key     string
	// fake is the fake behind the target; nil for a real deployment.
	fake *fakeserver.Server
	seed fakeserver.DemoWorkspace
	// requests counts the HTTP requests the target's clients sent (attempts, not calls).
	requests atomic.Int32
}

// countingTransport counts the requests that go through it.
type countingTransport struct {
	next http.RoundTripper
	n    *atomic.Int32
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

// client returns a client of the target authenticated with key. Against the fake, retry waits
// go to a fake clock (nothing is slept); against a real deployment they are real.
func (b *backend) client(t *testing.T, key string, opts ...client.Option) *client.Client {
	t.Helper()
	next := http.DefaultTransport
	if b.fake != nil {
		next = b.fake.Client().Transport
	}
	all := append([]client.Option{
		client.WithBaseURL(b.baseURL),
		// The timeout is a watchdog against a hung deployment, far beyond any answer's time.
		client.WithHTTPClient(&http.Client{Transport: countingTransport{next: next, n: &b.requests}, Timeout: 30 * time.Second}),
		client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 4, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, MaxRetryAfter: 2 * time.Second}),
		client.WithUserAgent("podqa-go-integration-test"),
	}, opts...)
	if b.fake != nil {
		all = append(all, client.WithClock(newFakeClock()))
	}
	c, err := client.New(key, all...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// requireFake skips the test on a real deployment.
func (b *backend) requireFake(t *testing.T, why string) {
	t.Helper()
	if b.fake == nil {
		t.Skipf("needs the fake (%s); skipped against the real deployment", why)
	}
}

// eachBackend runs f as the subtests "fake" and "real".
func eachBackend(t *testing.T, f func(t *testing.T, b *backend)) {
	t.Helper()
	t.Run("fake", func(t *testing.T) {
		t.Parallel()
		srv, seed := fakeserver.NewTest(t)
		f(t, &backend{baseURL: srv.URL(), key: seed.APIKey, fake: srv, seed: seed})
	})
	t.Run("real", func(t *testing.T) {
		t.Parallel()
		base, key := os.Getenv("PODQA_BASE_URL"), os.Getenv("PODQA_API_KEY")
		if base == "" || key == "" {
			t.Skip("PODQA_BASE_URL and PODQA_API_KEY are not set: no real deployment to test against")
		}
		// One scenario at a time: they share the key's per-minute budget.
		realDeployment.Lock()
		defer realDeployment.Unlock()
		f(t, &backend{baseURL: base, key: key})
	})
}

// realDeployment serialises the scenarios run against a real deployment.
var realDeployment sync.Mutex

func TestIntegrationMePersonalKey(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b *backend) {
		me, err := b.client(t, b.key).Me(context.Background())
		if err != nil {
			t.Fatalf("Me: %v", err)
		}
		if me.Workspace.ID == "" || me.Workspace.Name == "" || me.Key == nil || me.Key.ID == "" || me.Key.CreatedAt.IsZero() {
			t.Fatalf("Me = %+v", me)
		}
		if me.Key.CreatedAt.Location() != time.UTC {
			t.Errorf("CreatedAt in %v, want UTC", me.Key.CreatedAt.Location())
		}
		if strings.Contains(me.Key.MaskedKey, b.key) || !strings.HasSuffix(me.Key.MaskedKey, "…") {
			t.Errorf("masked key %q", me.Key.MaskedKey)
		}
		if b.fake != nil {
			if me.Workspace.Type != client.WorkspacePersonal || me.Workspace.Name != "Demo" || me.Workspace.ID != b.seed.WorkspaceID || me.Key.ID != b.seed.APIKeyID {
				t.Errorf("Me = %+v, key %+v; want the seeded Demo workspace and key", me.Workspace, *me.Key)
			}
			if !me.Key.CreatedAt.Equal(fakeserver.TestStart()) {
				t.Errorf("key created at %v, want the fake's start %v", me.Key.CreatedAt, fakeserver.TestStart())
			}
		}
	})
}

func TestIntegrationMeOrganisationKey(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b *backend) {
		key, wantID := os.Getenv("PODQA_ORG_API_KEY"), ""
		if b.fake != nil {
			ws, err := b.fake.CreateWorkspace(fakeserver.WorkspaceSpec{Type: "organisation", Name: "Acme Audio"})
			if err != nil {
				t.Fatal(err)
			}
			k, err := b.fake.CreateAPIKey(ws.ID, "CI")
			if err != nil {
				t.Fatal(err)
			}
			key, wantID = k.Key, ws.ID
		} else if key == "" {
			t.Skip("PODQA_ORG_API_KEY is not set: no organisation key to test with")
		}
		me, err := b.client(t, key).Me(context.Background())
		if err != nil {
			t.Fatalf("Me: %v", err)
		}
		if me.Workspace.Type != client.WorkspaceOrganisation || (wantID != "" && (me.Workspace.ID != wantID || me.Workspace.Name != "Acme Audio")) {
			t.Fatalf("Workspace = %+v, want the organisation %s", me.Workspace, wantID)
		}
		if me.Key == nil || me.Key.Description == "" {
			t.Errorf("Key = %+v", me.Key)
		}
	})
}

func TestIntegrationRejectedKey(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b *backend) {
		key := "podqa_api_" + strings.Repeat("0", 48) // unknown on a real deployment
		if b.fake != nil {
			if err := b.fake.SetAPIKeyDisabled(b.seed.APIKeyID, true); err != nil {
				t.Fatal(err)
			}
			key = b.key
		}
		before := b.requests.Load()
		_, err := b.client(t, key).Me(context.Background())
		var ae *client.APIError
		if !errors.As(err, &ae) || ae.StatusCode != http.StatusUnauthorized || ae.Code != client.CodeInvalidAPIKey || !errors.Is(err, client.ErrInvalidAPIKey) {
			t.Fatalf("err = %v, want 401 invalid_api_key", err)
		}
		if n := b.requests.Load() - before; n != 1 {
			t.Errorf("%d attempts, want 1: a 401 is never retried", n)
		}
		if strings.Contains(err.Error(), key) {
			t.Errorf("the error shows the key: %v", err)
		}
	})
}

// TestIntegrationRateLimited spends the key's 100 requests per minute; the 101st is a 429 whose
// Retry-After exceeds the policy's MaxRetryAfter, so the call returns at once with RetryAfter set.
func TestIntegrationRateLimited(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b *backend) {
		if b.fake == nil && os.Getenv("PODQA_TEST_RATE_LIMIT") != "1" {
			t.Skip("spends the key's per-minute budget; set PODQA_TEST_RATE_LIMIT=1 to run it against the real deployment")
		}
		c := b.client(t, b.key, client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 4, MinBackoff: time.Millisecond, MaxRetryAfter: 100 * time.Millisecond}))
		ctx := context.Background()
		var err error
		calls := 0
		for calls < 150 {
			calls++
			if _, err = c.Me(ctx); err != nil {
				break
			}
		}
		var ae *client.APIError
		if !errors.As(err, &ae) || !errors.Is(err, client.ErrRateLimited) || ae.StatusCode != http.StatusTooManyRequests || ae.Code != client.CodeRateLimited {
			t.Fatalf("after %d calls err = %v, want 429 rate_limited", calls, err)
		}
		if ae.RetryAfter <= 0 || ae.RetryAfter > time.Minute {
			t.Errorf("RetryAfter = %v, want within the minute window", ae.RetryAfter)
		}
		if b.fake != nil {
			if calls != 101 {
				t.Errorf("limited at call %d, want 101", calls)
			}
			// The fake's clock stands at the start of a minute, so the window ends in 60 s.
			if ae.RetryAfter != time.Minute {
				t.Errorf("RetryAfter = %v, want 1m0s", ae.RetryAfter)
			}
			if n := int(b.requests.Load()); n != 101 {
				t.Errorf("%d requests, want 101: the 429 over MaxRetryAfter must not be retried", n)
			}
		}
	})
}

// TestIntegrationFrontEnd503Retried has the fake answer the plain-text 503 of the service's
// front twice: the client retries and the third attempt succeeds.
func TestIntegrationFrontEnd503Retried(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b *backend) {
		b.requireFake(t, "fault injection")
		if _, err := b.fake.InjectFault(fakeserver.Fault{Method: http.MethodGet, PathPrefix: "/api/rest/v1/me", Status: 503, Count: 2}); err != nil {
			t.Fatal(err)
		}
		me, err := b.client(t, b.key).Me(context.Background())
		if err != nil || me.Workspace.Name != "Demo" {
			t.Fatalf("Me = %+v, %v", me, err)
		}
		if n := b.requests.Load(); n != 3 {
			t.Errorf("%d attempts, want 3", n)
		}
	})
}

// TestIntegrationFrontEnd503Exhausted: when every attempt gets the front's 503, the error is an
// *APIError with no code and the raw body.
func TestIntegrationFrontEnd503Exhausted(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b *backend) {
		b.requireFake(t, "fault injection")
		if _, err := b.fake.InjectFault(fakeserver.Fault{PathPrefix: "/api/rest/v1/me", Status: 503, Count: 10}); err != nil {
			t.Fatal(err)
		}
		_, err := b.client(t, b.key).Me(context.Background())
		var ae *client.APIError
		if !errors.As(err, &ae) || ae.StatusCode != 503 || ae.Code != "" || !strings.Contains(string(ae.Body), "Service Unavailable") {
			t.Fatalf("err = %v (%+v)", err, ae)
		}
		if n := b.requests.Load(); n != 4 {
			t.Errorf("%d attempts, want 4", n)
		}
	})
}

// TestIntegrationReadsOfAnEmptyWorkspace reads what a workspace without reports answers.
func TestIntegrationReadsOfAnEmptyWorkspace(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b *backend) {
		c := b.client(t, b.key)
		ctx := context.Background()
		_, err := c.GetReport(ctx, "00000000-0000-4000-8000-000000000000")
		if !errors.Is(err, client.ErrNotFound) {
			t.Errorf("GetReport of an unknown id: %v, want ErrNotFound", err)
		}
		page, err := c.ListReports(ctx, client.ListReportsParams{Status: client.StatusComplete, Limit: 5})
		if err != nil {
			t.Fatalf("ListReports: %v", err)
		}
		if page.Limit != 5 || page.Offset != 0 || len(page.Items) > 5 {
			t.Errorf("page = limit %d offset %d, %d items", page.Limit, page.Offset, len(page.Items))
		}
		if b.fake != nil && (len(page.Items) != 0 || page.HasMore) {
			t.Errorf("the seeded workspace lists %d reports", len(page.Items))
		}
		_, err = c.ListReports(ctx, client.ListReportsParams{Status: "complete"})
		if !errors.Is(err, client.ErrValidation) {
			t.Errorf("lower-case status: %v, want ErrValidation", err)
		}
	})
}

// TestIntegrationRateLimitWindowReopens: after the minute window the fake refused in has passed,
// the same key works again.
func TestIntegrationRateLimitWindowReopens(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b *backend) {
		b.requireFake(t, "moves the fake's clock")
		c := b.client(t, b.key, client.WithRetryPolicy(client.RetryPolicy{MaxRetryAfter: -1}))
		ctx := context.Background()
		var err error
		for range 101 {
			if _, err = c.Me(ctx); err != nil {
				break
			}
		}
		var ae *client.APIError
		if !errors.As(err, &ae) || ae.RetryAfter != time.Minute {
			t.Fatalf("err = %v, want a 429 with Retry-After 60 s", err)
		}
		if _, err := b.fake.Advance(ae.RetryAfter); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Me(ctx); err != nil {
			t.Fatalf("after the window: %v", err)
		}
	})
}

// TestIntegrationInternalErrorOnGetRetried: a JSON 500 from the API is retried on a read.
func TestIntegrationInternalErrorOnGetRetried(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b *backend) {
		b.requireFake(t, "fault injection")
		if _, err := b.fake.InjectFault(fakeserver.Fault{PathPrefix: "/api/rest/v1/credits", Status: 500, Count: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.client(t, b.key).GetCredits(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := b.requests.Load(); n != 2 {
			t.Errorf("%d attempts, want 2", n)
		}
	})
}

// TestIntegrationNotFound: unknown ids are 404 not_found on every read that takes one, never
// retried.
func TestIntegrationNotFound(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b *backend) {
		c := b.client(t, b.key)
		ctx := context.Background()
		unknown := "00000000-0000-4000-8000-000000000000"
		_, err := c.GetReport(ctx, unknown)
		var ae *client.APIError
		if !errors.As(err, &ae) || ae.StatusCode != http.StatusNotFound || ae.Code != client.CodeNotFound || !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("GetReport: %v", err)
		}
		if _, err := c.GetTranscript(ctx, unknown); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("GetTranscript: %v", err)
		}
		if _, err := c.GetSeries(ctx, unknown); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("GetSeries: %v", err)
		}
		if _, err := c.ListEpisodes(ctx, unknown, client.ListParams{}); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("ListEpisodes: %v", err)
		}
		if n := b.requests.Load(); n != 4 {
			t.Errorf("%d attempts for 4 calls: a 404 is never retried", n)
		}
	})
}

// TestIntegrationValidation: parameters the service refuses come back as validation_error.
func TestIntegrationValidation(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b *backend) {
		c := b.client(t, b.key)
		if _, err := c.ListReports(context.Background(), client.ListReportsParams{Limit: 101}); !errors.Is(err, client.ErrValidation) {
			t.Errorf("limit 101: %v, want ErrValidation", err)
		}
		if _, err := c.ListSeries(context.Background(), client.ListParams{Limit: 101}); !errors.Is(err, client.ErrValidation) {
			t.Errorf("series limit 101: %v, want ErrValidation", err)
		}
	})
}

// TestIntegrationEmptyPages: the pages of an empty listing, and iterators over them.
func TestIntegrationEmptyPages(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b *backend) {
		c := b.client(t, b.key)
		ctx := context.Background()
		// Nothing can have been updated an hour from now, on any deployment.
		future := client.ListReportsParams{UpdatedSince: time.Now().Add(time.Hour)}
		reports, err := c.ListReports(ctx, future)
		if err != nil {
			t.Fatal(err)
		}
		if reports.Items == nil || len(reports.Items) != 0 || reports.HasMore || reports.Limit != 50 || reports.Offset != 0 {
			t.Errorf("reports page %+v", reports)
		}
		for r, err := range c.AllReports(ctx, future) {
			t.Errorf("AllReports yielded %+v, %v", r, err)
		}
		series, err := c.ListSeries(ctx, client.ListParams{Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if series.Limit != 5 || series.Offset != 0 {
			t.Errorf("series page %+v", series)
		}
		if b.fake != nil && (len(series.Items) != 0 || series.HasMore) {
			t.Errorf("the seeded workspace lists %d series", len(series.Items))
		}
	})
}

// TestIntegrationCredits reads the credit position; on the fake, the seeded Demo workspace's.
func TestIntegrationCredits(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b *backend) {
		cr, err := b.client(t, b.key).GetCredits(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if cr.Progress < 0 || cr.Progress > 1 || cr.FinishDate.IsZero() || cr.FinishDate.Location() != time.UTC || cr.TopupLots == nil {
			t.Fatalf("credits %+v", cr)
		}
		if b.fake == nil {
			return
		}
		if cr.PlanAllowance != 12000 || cr.Balance != 12000 || cr.PlanUsed != 0 || cr.PlanRemaining != 12000 ||
			cr.TopupBalance != 0 || len(cr.TopupLots) != 0 || !cr.TopupExpiresAt.IsZero() || cr.Progress != 0 ||
			!cr.ChargingEnabled || cr.FreeAllowance || !cr.FinishDate.After(fakeserver.TestStart()) {
			t.Errorf("Demo credits %+v", cr)
		}
	})
}
