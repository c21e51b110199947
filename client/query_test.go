package client_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
)

// TestPostQuery checks the shared transport graphqlclient is built on: credentials, a 2xx JSON
// body returned as it is, and an error answer as an *APIError keeping its JSON body.
func TestPostQuery(t *testing.T) {
	t.Parallel()
	srv, seed := fakeserver.NewTest(t)
	c, err := client.New(seed.APIKey, client.WithBaseURL(srv.URL()), client.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	body, err := c.PostQuery(ctx, "/api/graphql", []byte(`{"query":"{ user { id } }"}`))
	if err != nil || !bytes.Contains(body, []byte(seed.WorkspaceID)) {
		t.Errorf("query: %s, %v", body, err)
	}

	_, err = c.PostQuery(ctx, "/api/graphql", []byte(`{"query":"{ nothing }"}`))
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 422 || !bytes.Contains(ae.Body, []byte(`"errors"`)) {
		t.Errorf("invalid query: %v", err)
	}

	if _, err := c.PostQuery(ctx, "api/graphql", nil); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("relative path: %v", err)
	}
}
