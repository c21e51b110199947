package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// PostQuery POSTs body, a JSON document that only reads (such as a GraphQL query), to path
// under the base URL, such as "/api/graphql", and returns the body of a 2xx JSON answer. It is
// the transport the podqa packages built on this client share (graphqlclient uses it): the
// request carries the client's credentials, user agent and logging, and is retried under the
// client's RetryPolicy like a GET, which is safe because repeating a read changes nothing. Any
// other answer is an *APIError; its Body keeps a JSON body that is not a REST error object,
// such as a GraphQL errors array.
func (c *Client) PostQuery(ctx context.Context, path string, body []byte) ([]byte, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("%w: path %q must begin with /", ErrInvalidArgument, path)
	}
	req, err := http.NewRequest(http.MethodPost, c.baseURL+path, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, st, err := c.send(ctx, kindRead, req)
	if err != nil {
		return nil, err
	}
	defer closeBody(resp.Body)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorRead))
		e := parseError(resp.StatusCode, resp.Header, raw, c.now())
		e.op = st.op
		if m := redirectMessage(resp); m != "" {
			e.Message = m
		}
		return nil, e
	}
	if ct := resp.Header.Get("Content-Type"); !isJSON(ct) {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxRawBody))
		if ct == "" {
			ct = "none"
		}
		return nil, &APIError{StatusCode: resp.StatusCode, Message: "unexpected content type " + ct, Body: raw, op: st.op}
	}
	if b, ok := resp.Body.(*bufferedBody); ok {
		return b.data, nil // read whole inside the retry loop
	}
	raw, err := io.ReadAll(capBody(resp.Body))
	if err != nil {
		return nil, fmt.Errorf("podqa: %s: reading the response: %w", st.op, err)
	}
	return raw, nil
}
