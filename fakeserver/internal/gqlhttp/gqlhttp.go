// Package gqlhttp makes the fake's GraphQL request errors follow the GraphQL-over-HTTP
// specification for both response media types. A request error is an answer with an errors
// array and no execution (the JSON body or its parameters could not be read, the document did
// not parse or validate, a variable did not coerce, a bound of the fake refused the query):
//
//   - With application/json (the default, and what Accept: application/json or */* gets) it is
//     200, its errors array saying what went wrong, except a request that is not a GraphQL
//     request at all (a body that is not JSON, no query), which stays 4xx.
//   - With application/graphql-response+json it keeps its 4xx (gqlgen's 400, the fake's own
//     refusals' 400 or 413, the 422 of an answer past the fake's size bound).
//
// In both, the answer has no data entry: the GraphQL specification leaves data out when an
// error was raised before execution began.
package gqlhttp

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// The two response media types of GraphQL over HTTP.
const (
	MediaJSON            = "application/json"
	MediaGraphQLResponse = "application/graphql-response+json"
)

// Negotiate picks the response media type for an Accept header as gqlgen's POST transport
// does, so that the rules here and the Content-Type gqlgen writes agree: no Accept, */*,
// application/* and application/json give application/json; application/graphql-response+json
// gives itself; the first of these in the header wins; a header naming neither gets
// application/graphql-response+json.
func Negotiate(accept string) string {
	if strings.TrimSpace(accept) == "" {
		return MediaJSON
	}
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "*/*", "application/*", MediaJSON:
			return MediaJSON
		case MediaGraphQLResponse:
			return MediaGraphQLResponse
		}
	}
	return MediaGraphQLResponse
}

// Rewrite is the answer a GraphQL request error gets under media (Negotiate's answer), given
// the status and body the server wrote and the request's body. Anything that is not a request
// error (a status below 400 or from 500, a body that is not a JSON object with a non-empty
// errors array and a null or absent data, such as the REST envelope of a rate limit) comes
// back unchanged, with changed false.
func Rewrite(media string, status int, body, request []byte) (newStatus int, newBody []byte, changed bool) {
	if status < 400 || status >= 500 {
		return status, body, false
	}
	var answer map[string]json.RawMessage
	if json.Unmarshal(body, &answer) != nil {
		return status, body, false
	}
	var errs []json.RawMessage
	if json.Unmarshal(answer["errors"], &errs) != nil || len(errs) == 0 {
		return status, body, false
	}
	if data, ok := answer["data"]; ok && string(bytes.TrimSpace(data)) != "null" {
		return status, body, false
	}
	if media == MediaJSON && status == http.StatusUnprocessableEntity {
		// gqlgen's 422: the document, its variables or a bound of the fake refused the query,
		// or the request carried no query at all, which is no GraphQL request (400).
		status = http.StatusBadRequest
		if hasQuery(request) {
			status = http.StatusOK
		}
	}
	delete(answer, "data")
	out, err := json.Marshal(answer)
	if err != nil {
		return status, body, true
	}
	return status, append(out, '\n'), true
}

// hasQuery tells whether request is a JSON object whose query is a non-empty string: a GraphQL
// request, whose errors are the document's, not the request's form.
func hasQuery(request []byte) bool {
	var params struct {
		Query *string `json:"query"`
	}
	return json.Unmarshal(request, &params) == nil && params.Query != nil && *params.Query != ""
}

// Answer is an http.ResponseWriter that holds back an error answer (status 400 to 499) until
// Finish, which writes it as Rewrite says; any other answer goes through as written.
type Answer struct {
	w       http.ResponseWriter
	media   string
	request []byte
	status  int
	held    bool
	buf     bytes.Buffer
}

// NewAnswer wraps w for a request whose Accept header is accept and whose body is request.
func NewAnswer(w http.ResponseWriter, accept string, request []byte) *Answer {
	return &Answer{w: w, media: Negotiate(accept), request: request}
}

// Header returns the wrapped writer's header map.
func (a *Answer) Header() http.Header { return a.w.Header() }

// WriteHeader records the status; an error status is held back until Finish.
func (a *Answer) WriteHeader(code int) {
	if a.status != 0 {
		return
	}
	a.status = code
	if code >= 400 && code < 500 {
		a.held = true
		return
	}
	a.w.WriteHeader(code)
}

// Write writes b, or holds it when the answer is an error.
func (a *Answer) Write(b []byte) (int, error) {
	if a.status == 0 {
		a.WriteHeader(http.StatusOK)
	}
	if a.held {
		return a.buf.Write(b)
	}
	return a.w.Write(b)
}

// Finish writes a held error answer, rewritten when it is a GraphQL request error. It does
// nothing for an answer already written through.
func (a *Answer) Finish() {
	if !a.held {
		return
	}
	a.held = false
	status, body, changed := Rewrite(a.media, a.status, a.buf.Bytes(), a.request)
	if changed {
		h := a.w.Header()
		h.Set("Content-Type", a.media)
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	a.w.WriteHeader(status)
	_, _ = a.w.Write(body)
}
