package graphqlclientproof_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/fakeserver/internal/proof/faultcut"
	"github.com/podqa/podqa-go/graphqlclient"
)

// GraphQL reads against the fake's faults: they ride the REST client's retries.

func armedFault(srv *fakeserver.Server, id string) (fakeserver.ArmedFault, bool) {
	for _, a := range srv.Faults() {
		if a.ID == id {
			return a, true
		}
	}
	return fakeserver.ArmedFault{}, false
}

func inject(t *testing.T, srv *fakeserver.Server, f fakeserver.Fault) string {
	t.Helper()
	id, err := srv.InjectFault(f)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// checkMe fails unless me is the seeded key's identity.
func checkMe(t *testing.T, me *graphqlclient.Identity, err error) {
	t.Helper()
	if err != nil || me == nil || me.User == nil || me.Key == nil {
		t.Fatalf("Me = %+v, %v", me, err)
	}
}

func TestReadsRideOutFaults(t *testing.T) {
	t.Parallel()
	cut := int64(25)
	t.Run("cut answers retried", func(t *testing.T) {
		t.Parallel()
		srv, seed := fakeserver.NewTest(t)
		gql := newGQL(t, srv, seed.APIKey)
		inject(t, srv, fakeserver.Fault{PathPrefix: "/api/graphql", TruncateAfterBytes: &cut, Count: 2})
		me, err := gql.Me(context.Background())
		checkMe(t, me, err)
	})
	t.Run("cut on every attempt: no value, the last error", func(t *testing.T) {
		t.Parallel()
		srv, seed := fakeserver.NewTest(t)
		gql := newGQL(t, srv, seed.APIKey)
		id := inject(t, srv, fakeserver.Fault{PathPrefix: "/api/graphql", TruncateAfterBytes: &cut})
		me, err := gql.Me(context.Background())
		if me != nil || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("Me = %+v, %v", me, err)
		}
		if a, _ := armedFault(srv, id); a.Fired != fastRetries.MaxAttempts {
			t.Fatalf("%d attempts, want %d", a.Fired, fastRetries.MaxAttempts)
		}
	})
	// Ten minutes of latency against a per-attempt timeout that fires once the fake holds the
	// attempt (faultcut), so that no attempt is cut before it reaches the fake and no fast one
	// is, however slow the machine: two slow answers are retried away; slow answers on every
	// attempt end with the timeout.
	for _, count := range []int{2, 0} {
		t.Run("latency beyond the attempt timeout, count "+strconv.Itoa(count), func(t *testing.T) {
			t.Parallel()
			srv, seed := fakeserver.NewTest(t)
			id := inject(t, srv, fakeserver.Fault{PathPrefix: "/api/graphql", Latency: 10 * time.Minute, Count: count})
			hc := srv.Client()
			hc.Transport = &faultcut.Transport{Next: hc.Transport, Server: srv, FaultID: id}
			gql := newGQLOver(t, srv, seed.APIKey, []client.Option{client.WithHTTPClient(hc)})
			me, err := gql.Me(context.Background())
			if count > 0 {
				checkMe(t, me, err)
				if len(srv.Faults()) != 0 {
					t.Fatal("the slow answers were not met")
				}
				return
			}
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				t.Fatalf("err = %v, want the attempt timeout", err)
			}
		})
	}
	t.Run("429 too long to wait returns its Retry-After", func(t *testing.T) {
		t.Parallel()
		srv, seed := fakeserver.NewTest(t)
		gql := newGQL(t, srv, seed.APIKey)
		inject(t, srv, fakeserver.Fault{PathPrefix: "/api/graphql", Status: http.StatusTooManyRequests, RetryAfter: time.Hour, Count: 1})
		_, err := gql.Me(context.Background())
		var ae *client.APIError
		if !errors.As(err, &ae) || !errors.Is(err, client.ErrRateLimited) || ae.RetryAfter != time.Hour {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestFlakyGraphQLSucceedsOrFailsWithTheLastError(t *testing.T) {
	t.Parallel()
	srv, seed := fakeserver.NewTest(t)
	gql := newGQL(t, srv, seed.APIKey)
	p := 0.3
	id := inject(t, srv, fakeserver.Fault{PathPrefix: "/api/graphql", Status: http.StatusBadGateway, Probability: &p})
	var last fakeserver.ArmedFault
	succeeded := 0
	for i := range 40 {
		_, err := gql.Me(context.Background())
		now, _ := armedFault(srv, id)
		attempts, faulted := now.Matches-last.Matches, now.Fired-last.Fired
		last = now
		var ae *client.APIError
		switch {
		case err == nil && faulted == attempts-1 && attempts <= fastRetries.MaxAttempts:
			succeeded++
		case errors.As(err, &ae) && ae.StatusCode == http.StatusBadGateway && faulted == attempts && attempts == fastRetries.MaxAttempts:
		default:
			t.Fatalf("call %d: %d attempts, %d faulted, err %v", i, attempts, faulted, err)
		}
	}
	if succeeded == 0 {
		t.Fatal("no call succeeded at probability 0.3")
	}
}
