package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// RawRequest is a request to the service that the typed methods do not cover: an endpoint or
// a field newer than this package, or a GraphQL document (graphqlclient sends its queries so).
type RawRequest struct {
	// Method is GET, HEAD, POST, PUT, PATCH or DELETE.
	Method string
	// Path is the path under the base URL, beginning with "/", such as "/api/rest/v1/me" or
	// "/api/graphql"; it may end with a query string.
	Path string
	// Body is sent as application/json; nil sends no body.
	Body []byte
	// Idempotent says that repeating the request changes nothing (a GraphQL query, a PUT of a
	// whole state), so that it is retried as a GET is: after timeouts, lost connections and
	// 5xx answers. A request that is not idempotent, unless it is a GET or HEAD, is retried
	// only when it cannot have been carried out, as the typed methods' POSTs are.
	Idempotent bool
}

// RawResponse is a 2xx answer to a RawRequest.
type RawResponse struct {
	StatusCode int
	Header     http.Header
	// Body is the whole body, JSON unless empty.
	Body []byte
}

// Do sends r as the typed methods send their requests, with the client's credentials, user
// agent, logging, middleware, retries and response size limit, and returns the 2xx answer.
// Any other answer is an *APIError whose Body keeps a JSON body that is not a REST error
// object (such as a GraphQL errors array); so is a 2xx answer whose body is not JSON. An r that
// cannot be sent is an error wrapping ErrInvalidArgument.
func (c *Client) Do(ctx context.Context, r RawRequest) (*RawResponse, error) {
	kind := kindWrite
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		kind = kindRead
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		if r.Idempotent {
			kind = kindRead
		}
	default:
		return nil, fmt.Errorf("%w: method %q", ErrInvalidArgument, r.Method)
	}
	if !strings.HasPrefix(r.Path, "/") || strings.HasPrefix(r.Path, "//") {
		return nil, fmt.Errorf("%w: path %q must begin with a single /", ErrInvalidArgument, r.Path)
	}
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequest(r.Method, c.baseURL+r.Path, body)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	if r.Body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, st, err := c.send(ctx, kind, req)
	if err != nil {
		return nil, err
	}
	defer closeBody(resp.Body)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, st.answerError(resp)
	}
	out := &RawResponse{StatusCode: resp.StatusCode, Header: resp.Header}
	if b, ok := resp.Body.(*bufferedBody); ok {
		out.Body = b.data // read whole inside the retry loop
	} else if out.Body, err = io.ReadAll(capBody(resp.Body)); err != nil {
		return nil, fmt.Errorf("podqa: %s: reading the response: %w", st.op, err)
	}
	if ct := resp.Header.Get("Content-Type"); len(out.Body) > 0 && !isJSON(ct) {
		if ct == "" {
			ct = "none"
		}
		body := out.Body[:min(len(out.Body), maxRawBody)]
		return nil, &APIError{StatusCode: resp.StatusCode, Message: "unexpected content type " + ct, Body: body, op: st.op}
	}
	return out, nil
}
