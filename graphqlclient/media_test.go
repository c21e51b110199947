package graphqlclient_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/graphqlclient"
)

// TestRequestErrorsOfBothMediaTypes: a query the server refuses before running it reaches the
// caller as the same *Error, whichever way GraphQL over HTTP lets the server answer it: 200
// with an errors array and no data (application/json), 4xx with an errors array and no data
// (application/graphql-response+json), or the 422 with "data": null that servers answered
// before. Answers that ran (data, or field errors beside null data) read as before under
// either media type. (A canned server: the fake answers application/json, which this package
// asks for, so its 4xx form is shown here.)
func TestRequestErrorsOfBothMediaTypes(t *testing.T) {
	t.Parallel()
	const validation = `{"errors":[{"message":"Cannot query field \"nope\" on type \"Query\".","locations":[{"line":1,"column":3}],"extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}]}`
	tests := []struct {
		name        string
		contentType string
		status      int
		body        string
		wantStatus  int    // of the *Error; 0 for success
		wantCode    string // of its first entry
		wantIs      error  // a sentinel errors.Is must match, if any
	}{
		{"application/json: 200 with errors, no data", "application/json", 200, validation, 200, "GRAPHQL_VALIDATION_FAILED", nil},
		{"application/json: the older 422 with null data", "application/json", 422, `{"errors":[{"message":"x","extensions":{"code":"GRAPHQL_PARSE_FAILED"}}],"data":null}`, 422, "GRAPHQL_PARSE_FAILED", nil},
		{"graphql-response+json: 400 with errors, no data", "application/graphql-response+json", 400, validation, 400, "GRAPHQL_VALIDATION_FAILED", nil},
		{"graphql-response+json: the fake's own refusal", "application/graphql-response+json", 400, `{"errors":[{"extensions":{"code":"validation_error"},"message":"Content-Type must be application/json."}]}`, 400, "validation_error", client.ErrValidation},
		{"graphql-response+json: 413", "application/graphql-response+json; charset=utf-8", 413, `{"errors":[{"message":"too large","extensions":{"code":"validation_error"}}]}`, 413, "validation_error", client.ErrValidation},
		{"graphql-response+json: a field error beside null data", "application/graphql-response+json", 200, `{"errors":[{"message":"Report not found.","path":["report"],"extensions":{"code":"not_found"}}],"data":{"report":null}}`, 200, "not_found", client.ErrNotFound},
		{"graphql-response+json: success", "application/graphql-response+json", 200, `{"data":{"report":{"id":"3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e","status":"PENDING","transcriptIncluded":true}}}`, 0, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", tt.contentType)
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}))
			defer ts.Close()
			rest, err := client.New("k", client.WithBaseURL(ts.URL), client.WithHTTPClient(ts.Client()))
			if err != nil {
				t.Fatal(err)
			}
			c, err := graphqlclient.New(rest, graphqlclient.WithPersonalWorkspace())
			if err != nil {
				t.Fatal(err)
			}
			r, err := c.GetReport(context.Background(), "3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e")
			if tt.wantStatus == 0 {
				if err != nil || r == nil || r.ID != "3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e" || r.Status != "PENDING" {
					t.Fatalf("GetReport = %+v, %v", r, err)
				}
				return
			}
			var ge *graphqlclient.Error
			if !errors.As(err, &ge) {
				t.Fatalf("err = %v (%T), want a *graphqlclient.Error", err, err)
			}
			if ge.Op != "GetReport" || ge.StatusCode != tt.wantStatus || len(ge.Errors) != 1 || ge.Errors[0].Code != tt.wantCode || ge.Errors[0].Message == "" {
				t.Errorf("Error = %+v, want status %d and one entry with code %q", ge, tt.wantStatus, tt.wantCode)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.wantIs)
			}
			var ae *client.APIError
			if errors.As(err, &ae) {
				t.Errorf("a GraphQL errors answer surfaced as an *APIError: %v", ae)
			}
		})
	}
}
