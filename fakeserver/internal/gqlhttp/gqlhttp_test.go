package gqlhttp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

func TestNegotiate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		accept string
		want   string
	}{
		{"", MediaJSON},
		{"  ", MediaJSON},
		{"application/json", MediaJSON},
		{"*/*", MediaJSON},
		{"application/*", MediaJSON},
		{"application/graphql-response+json", MediaGraphQLResponse},
		{"application/graphql-response+json, application/json;q=0.9", MediaGraphQLResponse},
		{"application/json, application/graphql-response+json", MediaJSON},
		{"application/graphql-response+json;charset=utf-8", MediaGraphQLResponse},
		{"text/html", MediaGraphQLResponse},
		{"text/html, */*", MediaJSON},
		{";;;, application/json", MediaJSON},
	}
	for _, tt := range tests {
		t.Run(tt.accept, func(t *testing.T) {
			t.Parallel()
			if got := Negotiate(tt.accept); got != tt.want {
				t.Errorf("Negotiate(%q) = %q, want %q", tt.accept, got, tt.want)
			}
		})
	}
}

func TestRewrite(t *testing.T) {
	t.Parallel()
	const (
		parseFailed = `{"errors":[{"message":"Expected Name","extensions":{"code":"GRAPHQL_PARSE_FAILED"}}],"data":null}` + "\n"
		noData      = `{"errors":[{"message":"Expected Name","extensions":{"code":"GRAPHQL_PARSE_FAILED"}}]}` + "\n"
		refusal     = `{"data":null,"errors":[{"extensions":{"code":"validation_error"},"message":"Content-Type must be application/json."}]}` + "\n"
		refusalOut  = `{"errors":[{"extensions":{"code":"validation_error"},"message":"Content-Type must be application/json."}]}` + "\n"
		query       = `{"query":"{"}`
	)
	tests := []struct {
		name       string
		media      string
		status     int
		body       string
		request    string
		wantStatus int
		wantBody   string // "" for the body unchanged
		changed    bool
	}{
		{"json: a document that does not parse is 200", MediaJSON, 422, parseFailed, query, 200, noData, true},
		{"json: no query is no GraphQL request, 400", MediaJSON, 422, parseFailed, `{"qeury":"{ __typename }"}`, 400, noData, true},
		{"json: an empty query too", MediaJSON, 422, parseFailed, `{"query":""}`, 400, noData, true},
		{"json: a query that is not a string too", MediaJSON, 422, parseFailed, `{"query":7}`, 400, noData, true},
		{"json: a body that is not JSON keeps 400", MediaJSON, 400, parseFailed, `{ "not a JSON`, 400, noData, true},
		{"json: the fake's own refusal keeps 400", MediaJSON, 400, refusal, query, 400, refusalOut, true},
		{"response+json: gqlgen's 400 loses its data", MediaGraphQLResponse, 400, parseFailed, query, 400, noData, true},
		{"response+json: a 422 stays 4xx", MediaGraphQLResponse, 422, parseFailed, query, 422, noData, true},
		{"response+json: the fake's refusal loses its data", MediaGraphQLResponse, 400, refusal, query, 400, refusalOut, true},
		{"a 200 is not touched", MediaJSON, 200, parseFailed, query, 200, "", false},
		{"a 500 is not touched", MediaGraphQLResponse, 500, parseFailed, query, 500, "", false},
		{"the REST envelope of a rate limit is not touched", MediaJSON, 429, `{"error":{"code":"rate_limited","message":"slow down"}}`, query, 429, "", false},
		{"an answer with data is not touched", MediaJSON, 422, `{"errors":[{"message":"x"}],"data":{"a":1}}`, query, 422, "", false},
		{"an empty errors array is not touched", MediaJSON, 422, `{"errors":[],"data":null}`, query, 422, "", false},
		{"errors that are not an array are not touched", MediaJSON, 422, `{"errors":{"message":"x"}}`, query, 422, "", false},
		{"a body that is not JSON is not touched", MediaJSON, 422, `not json`, query, 422, "", false},
		{"a JSON array is not touched", MediaJSON, 422, `[{"errors":[1]}]`, query, 422, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, body, changed := Rewrite(tt.media, tt.status, []byte(tt.body), []byte(tt.request))
			want := tt.wantBody
			if want == "" {
				want = tt.body
			}
			if status != tt.wantStatus || string(body) != want || changed != tt.changed {
				t.Errorf("Rewrite = %d %q %v, want %d %q %v", status, body, changed, tt.wantStatus, want, tt.changed)
			}
		})
	}
}

// TestAnswer runs the writer as the GraphQL route uses it: an error answer is held and written
// rewritten at Finish, with a Content-Length and Content-Type that match; a success goes
// through untouched as it is written.
func TestAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		accept      string
		status      int
		body        string
		wantStatus  int
		wantBody    string
		wantType    string
		wantRetryAf string
	}{
		{"json error", "application/json", 422, `{"errors":[{"message":"no"}],"data":null}`, 200, `{"errors":[{"message":"no"}]}` + "\n", MediaJSON, ""},
		{"response+json error", MediaGraphQLResponse, 400, `{"errors":[{"message":"no"}],"data":null}`, 400, `{"errors":[{"message":"no"}]}` + "\n", MediaGraphQLResponse, ""},
		{"success", MediaGraphQLResponse, 200, `{"data":{"a":1}}`, 200, `{"data":{"a":1}}`, "text/x-kept", ""},
		{"success without WriteHeader", "", 0, `{"data":{"a":1}}`, 200, `{"data":{"a":1}}`, "text/x-kept", ""},
		{"rate limit", "", 429, `{"error":{"code":"rate_limited"}}`, 429, `{"error":{"code":"rate_limited"}}`, "text/x-kept", "7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			a := NewAnswer(rec, tt.accept, []byte(`{"query":"{ a }"}`))
			a.Header().Set("Content-Type", "text/x-kept")
			if tt.wantRetryAf != "" {
				a.Header().Set("Retry-After", tt.wantRetryAf)
			}
			if tt.status != 0 {
				a.WriteHeader(tt.status)
				a.WriteHeader(http.StatusTeapot) // a second call changes nothing, as net/http's
			}
			// Written in two pieces: the held answer must be the whole of them.
			half := len(tt.body) / 2
			for _, piece := range []string{tt.body[:half], tt.body[half:]} {
				if n, err := a.Write([]byte(piece)); n != len(piece) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if tt.status >= 400 && rec.Body.Len() != 0 {
				t.Fatalf("an error answer went out before Finish: %q", rec.Body.String())
			}
			a.Finish()
			a.Finish() // once only
			if rec.Code != tt.wantStatus || rec.Body.String() != tt.wantBody {
				t.Errorf("answer %d %q, want %d %q", rec.Code, rec.Body.String(), tt.wantStatus, tt.wantBody)
			}
			if got := rec.Header().Get("Content-Type"); got != tt.wantType {
				t.Errorf("Content-Type %q, want %q", got, tt.wantType)
			}
			if got := rec.Header().Get("Retry-After"); got != tt.wantRetryAf {
				t.Errorf("Retry-After %q, want %q", got, tt.wantRetryAf)
			}
			if cl := rec.Header().Get("Content-Length"); tt.wantType != "text/x-kept" && cl != strconv.Itoa(len(tt.wantBody)) {
				t.Errorf("Content-Length %q for a body of %d bytes", cl, len(tt.wantBody))
			}
		})
	}
}

// FuzzRewrite: whatever the body, the request and the Accept header, Rewrite neither panics
// nor invents a status outside the one it was given and 200, leaves a non-error status alone,
// and a body it changes is a JSON object with a non-empty errors array and no data entry.
func FuzzRewrite(f *testing.F) {
	f.Add("application/json", 422, []byte(`{"errors":[{"message":"x"}],"data":null}`), []byte(`{"query":"{"}`))
	f.Add(MediaGraphQLResponse, 400, []byte(`{"data":null,"errors":[{}]}`), []byte(`{`))
	f.Add("*/*", 429, []byte(`{"error":{}}`), []byte(``))
	f.Fuzz(func(t *testing.T, accept string, status int, body, request []byte) {
		media := Negotiate(accept)
		if media != MediaJSON && media != MediaGraphQLResponse {
			t.Fatalf("Negotiate(%q) = %q", accept, media)
		}
		got, out, changed := Rewrite(media, status, body, request)
		if !changed {
			if got != status || string(out) != string(body) {
				t.Fatalf("unchanged, but %d %q from %d %q", got, out, status, body)
			}
			return
		}
		if status < 400 || status >= 500 {
			t.Fatalf("status %d rewritten", status)
		}
		if got != status && got != http.StatusOK && got != http.StatusBadRequest {
			t.Fatalf("status %d became %d", status, got)
		}
		var answer map[string]json.RawMessage
		if err := json.Unmarshal(out, &answer); err != nil {
			t.Fatalf("rewritten body %q: %v", out, err)
		}
		var errs []json.RawMessage
		if _, ok := answer["data"]; ok || json.Unmarshal(answer["errors"], &errs) != nil || len(errs) == 0 {
			t.Fatalf("rewritten body %q", out)
		}
	})
}
