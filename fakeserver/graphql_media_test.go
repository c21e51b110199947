package fakeserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/graphqlapi"
)

// TestGraphQLRequestErrorsFollowGraphQLOverHTTP: over HTTP, a GraphQL request error (a
// document that does not parse or validate, a variable that does not coerce, a bound of the
// validation front, no query, a body that is not JSON, a POST not declared as JSON) is
// answered as the GraphQL-over-HTTP specification has it for the media type the request
// accepts: application/json is 200 with the errors array (400 when the request is no GraphQL
// request at all), application/graphql-response+json is 400; neither has a data entry. A
// query that runs is 200 with data under both, with the negotiated Content-Type.
func TestGraphQLRequestErrorsFollowGraphQLOverHTTP(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithoutRateLimits())
	const (
		jsonMedia     = "application/json"
		responseMedia = "application/graphql-response+json"
	)
	deep := strings.Repeat("{ a ", graphqlapi.MaxDepth+1) + strings.Repeat("}", graphqlapi.MaxDepth+1)
	tests := []struct {
		name        string
		contentType string
		body        string
		wantJSON    int // status under application/json
		wantCode    string
	}{
		{"a document that does not parse", jsonMedia, `{"query":"{"}`, 200, "GRAPHQL_PARSE_FAILED"},
		{"a document that does not validate", jsonMedia, `{"query":"{ noSuchField }"}`, 200, "GRAPHQL_VALIDATION_FAILED"},
		{"a variable that does not coerce", jsonMedia, `{"query":"query Q($id: ID!) { report(id: $id) { id } }","variables":{"id":null}}`, 200, "GRAPHQL_VALIDATION_FAILED"},
		{"a bound of the validation front", jsonMedia, `{"query":` + gqlJSONString(deep) + `}`, 200, "GRAPHQL_VALIDATION_FAILED"},
		{"no query", jsonMedia, `{"qeury":"{ __typename }"}`, 400, "GRAPHQL_VALIDATION_FAILED"},
		{"a body that is not JSON", jsonMedia, `{ "not a JSON`, 400, ""},
		{"a POST not declared as JSON", "text/plain", `{"query":"{ __typename }"}`, 400, "validation_error"},
	}
	for _, tt := range tests {
		for _, accept := range []string{"", jsonMedia, "*/*", responseMedia, responseMedia + ", application/json;q=0.9"} {
			t.Run(tt.name+" accept "+accept, func(t *testing.T) {
				t.Parallel()
				h := http.Header{"Content-Type": {tt.contentType}, "Authorization": {"Bearer " + seed.APIKey}}
				if accept != "" {
					h.Set("Accept", accept)
				}
				status, header, raw := call(t, srv, "POST", "/api/graphql", h, tt.body)
				media, want := jsonMedia, tt.wantJSON
				if strings.HasPrefix(accept, responseMedia) {
					media, want = responseMedia, http.StatusBadRequest
				}
				var answer map[string]json.RawMessage
				if err := json.Unmarshal(raw, &answer); err != nil {
					t.Fatalf("%d, not JSON: %s", status, raw)
				}
				var errs []struct {
					Message    string         `json:"message"`
					Extensions map[string]any `json:"extensions"`
				}
				if err := json.Unmarshal(answer["errors"], &errs); err != nil || len(errs) == 0 || errs[0].Message == "" {
					t.Fatalf("no errors array: %s", raw)
				}
				if status != want {
					t.Errorf("status %d, want %d: %s", status, want, raw)
				}
				if _, ok := answer["data"]; ok {
					t.Errorf("a data entry in a request error: %s", raw)
				}
				if got := header.Get("Content-Type"); got != media {
					t.Errorf("Content-Type %q, want %q", got, media)
				}
				if code, _ := errs[0].Extensions["code"].(string); tt.wantCode != "" && code != tt.wantCode {
					t.Errorf("extensions.code %q, want %q", code, tt.wantCode)
				}
			})
		}
	}
	for _, accept := range []string{"", jsonMedia, responseMedia} {
		t.Run("a query that runs, accept "+accept, func(t *testing.T) {
			t.Parallel()
			h := http.Header{"Content-Type": {jsonMedia}, "Authorization": {"Bearer " + seed.APIKey}}
			if accept != "" {
				h.Set("Accept", accept)
			}
			status, header, raw := call(t, srv, "POST", "/api/graphql", h, `{"query":"{ user { id } report(id: \"0f0e0d0c-0b0a-4909-8807-060504030201\") { id } }"}`)
			var a gqlAnswer
			if err := json.Unmarshal(raw, &a); err != nil || status != http.StatusOK || a.Data["user"] == nil ||
				len(a.Errors) != 1 || a.codes()[0] != "not_found" {
				// A field error beside data is no request error: 200 under both media types.
				t.Fatalf("%d %s", status, raw)
			}
			want := jsonMedia
			if accept == responseMedia {
				want = responseMedia
			}
			if got := header.Get("Content-Type"); got != want {
				t.Errorf("Content-Type %q, want %q", got, want)
			}
		})
	}
}

func gqlJSONString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
