package graphqlclientproof_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
)

// A client.WithMiddleware given through WithClientOptions sees the GraphQL client's requests,
// with their attempt numbers, as it sees the REST client's.
func TestMiddlewareSeesGraphQLRequests(t *testing.T) {
	t.Parallel()
	srv, seed := fakeserver.NewTest(t)
	var mu sync.Mutex
	var seen []string
	mw := func(req *http.Request, next client.MiddlewareNext) (*http.Response, error) {
		resp, err := next(req)
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			seen = append(seen, req.Method+" "+req.URL.Path+" "+resp.Status)
		}
		if client.Attempt(req.Context()) != 1 {
			t.Errorf("attempt %d of a request that succeeded at once", client.Attempt(req.Context()))
		}
		return resp, err
	}
	gql := newGQLOver(t, srv, seed.APIKey, []client.Option{client.WithMiddleware(mw)})
	if _, err := gql.Me(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "POST /api/graphql 200 OK" {
		t.Fatalf("middleware saw %q", seen)
	}
}
