package clientproof_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/fakeserver/clienttest"
)

// TestDo checks the raw request: credentials, the 2xx body returned as it is, an error answer
// as an *APIError keeping its JSON body, retries by idempotence, and requests refused unsent.
func TestDo(t *testing.T) {
	t.Parallel()
	srv, seed := fakeserver.NewTest(t)
	c := clienttest.NewClient(t, srv, seed.APIKey)
	ctx := context.Background()
	query := []byte(`{"query":"{ user { id } }"}`)
	// A loopback receiver that NewTest accepts; nothing is delivered, since no report is made.
	hook, err := c.SubscribeWebhook(ctx, client.WebhookSubscribeParams{URL: "http://127.0.0.1:9/podqa", Events: []client.WebhookEvent{client.EventReportCompleted}})
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name       string
		req        client.RawRequest
		fault      *fakeserver.Fault
		wantStatus int    // of the answer or of the *APIError
		wantBody   string // contained in the body
		wantErr    error
	}{
		{name: "REST read", req: client.RawRequest{Method: "GET", Path: "/api/rest/v1/me"}, wantStatus: 200, wantBody: seed.WorkspaceID},
		{name: "REST read with a query string", req: client.RawRequest{Method: "GET", Path: "/api/rest/v1/series?limit=1"}, wantStatus: 200, wantBody: `"limit":1`},
		{name: "GraphQL query", req: client.RawRequest{Method: "POST", Path: "/api/graphql", Body: query, Idempotent: true}, wantStatus: 200, wantBody: seed.WorkspaceID},
		{name: "invalid GraphQL keeps its errors array", req: client.RawRequest{Method: "POST", Path: "/api/graphql", Body: []byte(`{"query":"{ nothing }"}`), Idempotent: true}, wantStatus: 200, wantBody: `"errors"`},
		{name: "idempotent request retried after a 500",
			req:   client.RawRequest{Method: "POST", Path: "/api/graphql", Body: query, Idempotent: true},
			fault: &fakeserver.Fault{PathPrefix: "/api/graphql", Status: 500, Count: 1}, wantStatus: 200, wantBody: seed.WorkspaceID},
		{name: "other request not repeated after a 500",
			req:   client.RawRequest{Method: "POST", Path: "/api/graphql", Body: query},
			fault: &fakeserver.Fault{PathPrefix: "/api/graphql", Status: 500, Count: 1}, wantStatus: 500},
		{name: "empty 2xx answer", req: client.RawRequest{Method: "DELETE", Path: "/webhook/subscribe/" + hook.ID}, wantStatus: 204},
		{name: "relative path", req: client.RawRequest{Method: "GET", Path: "api/graphql"}, wantErr: client.ErrInvalidArgument},
		{name: "another host", req: client.RawRequest{Method: "GET", Path: "//example.com/x"}, wantErr: client.ErrInvalidArgument},
		{name: "unknown method", req: client.RawRequest{Method: "TRACE", Path: "/api/rest/v1/me"}, wantErr: client.ErrInvalidArgument},
	}
	for _, tt := range tests { // in order: the faults and the DELETE change the fake
		t.Run(tt.name, func(t *testing.T) {
			if tt.fault != nil {
				if _, err := srv.InjectFault(*tt.fault); err != nil {
					t.Fatal(err)
				}
			}
			resp, err := c.Do(ctx, tt.req)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			var ae *client.APIError
			status, body := 0, []byte(nil)
			switch {
			case err == nil:
				status, body = resp.StatusCode, resp.Body
			case errors.As(err, &ae):
				status, body = ae.StatusCode, ae.Body
			default:
				t.Fatalf("err = %v", err)
			}
			if status != tt.wantStatus || !bytes.Contains(body, []byte(tt.wantBody)) {
				t.Errorf("status %d body %s, want %d containing %q", status, body, tt.wantStatus, tt.wantBody)
			}
			if err == nil && resp.Header.Get("Content-Type") == "" && len(resp.Body) > 0 {
				t.Error("the answer's headers are missing")
			}
		})
	}
	if _, err := c.GetReport(ctx, "7f1d2c3b-0000-4000-8000-000000000001"); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("the client is still usable: %v", err)
	}
}
